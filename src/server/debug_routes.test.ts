import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { AbortError, newMetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import {
  DEFAULT_PROFILE_SECONDS,
  parseSeconds,
  type Profiler,
  registerDebugRoutes,
} from './debug_routes.js';
import { HttpServer } from './http_server.js';
import { CapturingLogger } from '../runtime/testing/index.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function serve(handler: HttpServer['handler']): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

interface Call {
  kind: 'cpu' | 'heap';
  ms?: number;
  wall?: boolean;
  signal?: AbortSignal | undefined;
}

const PROFILE_BYTES = new Uint8Array([0x1f, 0x8b, 8, 0, 1, 2, 3]);

/** Records calls; `hold` makes CPU captures wait until their signal aborts. */
function fakeProfiler(calls: Call[], hold = false): Profiler {
  return {
    captureCpuProfile: (ms, opts, signal) => {
      calls.push({ kind: 'cpu', ms, wall: opts.wall, signal });
      if (!hold) return Promise.resolve(PROFILE_BYTES);
      return new Promise((_resolve, reject) => {
        signal?.addEventListener('abort', () => reject(new AbortError()), { once: true });
      });
    },
    captureHeapProfile: () => {
      calls.push({ kind: 'heap' });
      return Promise.resolve(PROFILE_BYTES);
    },
  };
}

async function start(hold = false) {
  const calls: Call[] = [];
  const logger = new CapturingLogger();
  const server = new HttpServer(
    {
      authEnabled: true,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock: new ManualClock(0), logger, metrics: newMetricsRegistry() },
  );
  registerDebugRoutes(server, { profiler: fakeProfiler(calls, hold) });
  return { url: await serve(server.handler), calls, logger };
}

describe('/debug/pprof/profile', () => {
  it('captures a CPU profile of 30 s by default and sends it as octet-stream', async () => {
    const { url, calls } = await start();
    const res = await fetch(`${url}/debug/pprof/profile`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="profile"');
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(PROFILE_BYTES);
    expect(calls).toMatchObject([{ kind: 'cpu', ms: DEFAULT_PROFILE_SECONDS * 1000, wall: false }]);
  });

  it('honours seconds=N', async () => {
    const { url, calls } = await start();
    await fetch(`${url}/debug/pprof/profile?seconds=2`);
    expect(calls[0]?.ms).toBe(2000);
  });

  it('answers 400 naming an invalid seconds value', async () => {
    const { url, calls } = await start();
    for (const bad of ['0', '-1', 'abc', '1.5', '3601']) {
      const res = await fetch(`${url}/debug/pprof/profile?seconds=${bad}`);
      expect(res.status, bad).toBe(400);
      expect(await res.text()).toContain(`invalid seconds "${bad}"`);
    }
    expect(calls).toEqual([]);
  });

  it('stops profiling when the client goes away', async () => {
    const { url, calls } = await start(true);
    const controller = new AbortController();
    const pending = fetch(`${url}/debug/pprof/profile?seconds=60`, {
      signal: controller.signal,
    }).catch(() => undefined);
    await waitFor(() => calls.length === 1);
    controller.abort();
    await pending;
    await waitFor(() => calls[0]?.signal?.aborted === true);
  });
});

describe('concurrent CPU profiles', () => {
  it('answer 409 while another CPU or wall-clock profile runs, then work again', async () => {
    const { url, calls, logger } = await start(true);
    const controller = new AbortController();
    const first = fetch(`${url}/debug/pprof/profile?seconds=60`, {
      signal: controller.signal,
    }).catch(() => undefined);
    await waitFor(() => calls.length === 1);
    for (const path of ['/debug/pprof/profile?seconds=1', '/debug/fgprof?seconds=1']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status, path).toBe(409);
      expect(await res.text()).toContain('already being captured');
    }
    expect(calls).toHaveLength(1);
    controller.abort();
    await first;
    await waitFor(() => calls[0]?.signal?.aborted === true);
    // The slot is free again: the next capture reaches the profiler.
    const next = new AbortController();
    const again = fetch(`${url}/debug/fgprof?seconds=1`, { signal: next.signal }).catch(
      () => undefined,
    );
    await waitFor(() => calls.length === 2);
    next.abort();
    await again;
    expect(logger.find('unhandled error')).toEqual([]);
  });
});

describe('/debug/fgprof', () => {
  it('captures a wall-clock profile', async () => {
    const { url, calls } = await start();
    const res = await fetch(`${url}/debug/fgprof?seconds=3`);
    expect(res.status).toBe(200);
    expect(calls).toMatchObject([{ kind: 'cpu', ms: 3000, wall: true }]);
  });

  it('refuses formats other than pprof', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/debug/fgprof?format=folded`);
    expect(res.status).toBe(501);
    expect(await res.text()).toContain('fgprof format "folded" is not supported');
  });
});

describe('/debug/pprof/heap', () => {
  it('sends a heap profile', async () => {
    const { url, calls } = await start();
    const res = await fetch(`${url}/debug/pprof/heap`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="heap"');
    expect(calls).toEqual([{ kind: 'heap' }]);
  });
});

describe('Go-only profiles', () => {
  it('answer 501 saying why and which profiles exist', async () => {
    const { url } = await start();
    for (const name of ['trace', 'goroutine', 'block', 'mutex']) {
      const res = await fetch(`${url}/debug/pprof/${name}`);
      expect(res.status, name).toBe(501);
      const text = await res.text();
      expect(text).toContain(`/debug/pprof/${name} is not available`);
      expect(text).toContain('no Node.js equivalent');
      expect(text).toContain('/debug/pprof/profile');
      expect(text).toContain('/debug/pprof/heap');
    }
  });
});

describe('/debug/pprof/', () => {
  it('is a small HTML index', async () => {
    const { url } = await start();
    for (const path of ['/debug/pprof/', '/debug/pprof']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      const html = await res.text();
      expect(html).toContain('<a href="/debug/pprof/profile">profile</a>');
      expect(html).toContain('/debug/fgprof');
      expect(html).toContain('<code>goroutine</code>');
    }
  });
});

describe('parseSeconds', () => {
  it('defaults to 30 and accepts whole seconds', () => {
    expect(parseSeconds(undefined)).toBe(30);
    expect(parseSeconds('')).toBe(30);
    expect(parseSeconds('1')).toBe(1);
    expect(parseSeconds('3600')).toBe(3600);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('condition not reached');
}
