import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { RunningStrata } from './strata.js';
import { runServe } from './serve.js';

function captureIO() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s) },
    out,
    err,
  };
}

/** Flags for a quiet single-process instance on free loopback ports. */
const BASE_FLAGS = [
  '-server.http-listen-address=127.0.0.1',
  '-server.http-listen-port=0',
  '-server.grpc-listen-address=127.0.0.1',
  '-server.grpc-listen-port=0',
  '-ring.store=inmemory',
  '-log.level=error',
];

/** Runs `strata serve` until it reports started; returns the exit-code promise and the instance. */
async function serveUntilStarted(flags: string[], exits: number[] = []) {
  const { io, err } = captureIO();
  let onStarted!: (s: RunningStrata) => void;
  const startedPromise = new Promise<RunningStrata>((resolve) => (onStarted = resolve));
  const code = runServe([...BASE_FLAGS, ...flags], io, {
    nodeName: 'serve-test',
    onStarted,
    exit: (c) => exits.push(c),
  });
  const strata = await Promise.race([
    startedPromise,
    code.then((c) => {
      throw new Error(`serve exited with ${c} before starting: ${err.join('')}`);
    }),
  ]);
  const url = `http://127.0.0.1:${strata.listener?.port ?? 0}`;
  return { code, strata, url, err };
}

describe('runServe', () => {
  it('prints the flag help and returns 0', async () => {
    const { io, out } = captureIO();
    expect(await runServe(['-help'], io)).toBe(0);
    expect(out.join('')).toContain('-server.http-listen-port');
  });

  it('prints a configuration error and returns 1', async () => {
    const { io, err } = captureIO();
    expect(await runServe(['-no.such-flag=1'], io)).toBe(1);
    expect(err.join('')).toContain('no.such-flag');
  });

  it('returns 1 naming the module when a module fails to start', async () => {
    const { io, err } = captureIO();
    const flags = BASE_FLAGS.filter((f) => !f.startsWith('-ring.store'));
    expect(await runServe([...flags, '-ring.store=consul'], io, { nodeName: 'serve-test' })).toBe(
      1,
    );
    expect(err.join('')).toMatch(
      /^error starting Strata: module ring failed to start: ingester\.lifecycler\.ring\.kvstore: .*consul/m,
    );
  });

  it('serves until SIGTERM, then stops everything and returns 0', async () => {
    const { code, strata, url } = await serveUntilStarted(['-target=all', '-auth.enabled=false']);
    expect((await fetch(`${url}/ready`)).status).toBe(200);
    expect(await (await fetch(`${url}/config?mode=diff`)).text()).toMatch(/^auth_enabled: false$/m);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await code).toBe(0);
    expect(strata.modules.statuses().every((s) => s.state === 'Terminated')).toBe(true);
    await expect(fetch(`${url}/ready`)).rejects.toThrow();
    // The signal listeners are gone again.
    expect(process.listenerCount('SIGTERM')).toBe(0);
    expect(process.listenerCount('SIGINT')).toBe(0);
  });

  it('exposes metrics a Prometheus scrape accepts', async () => {
    const { code, url } = await serveUntilStarted(['-target=distributor']);
    const res = await fetch(`${url}/metrics`);
    const text = await res.text();
    // Process metrics from the real registry and our request metrics are both there.
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toContain('# TYPE cortex_request_duration_seconds histogram');
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    if (promtool.error === undefined) {
      // Exit 1 would be a parse error. Exit 3 means lint findings; the only ones allowed are
      // prom-client's own default gauges named with `_total`, which we cannot rename.
      const findings = `${promtool.stdout}${promtool.stderr}`.split('\n').filter((l) => l !== '');
      const ours = findings.filter(
        (l) => !/^nodejs_active_(handles|requests|resources)_total non-counter metrics/.test(l),
      );
      expect(promtool.status === 0 || promtool.status === 3, findings.join('\n')).toBe(true);
      expect(ours).toEqual([]);
    }
    process.emit('SIGINT', 'SIGINT');
    expect(await code).toBe(0);
  });

  it('reports the modules still stopping when the grace period runs out, and exits non-zero', async () => {
    const exits: number[] = [];
    const { code, url, err } = await serveUntilStarted(
      ['-target=configs', '-server.graceful-shutdown-timeout=300ms'],
      exits,
    );
    // A profile request keeps the HTTP server busy past the grace period.
    const controller = new AbortController();
    const slow = fetch(`${url}/debug/fgprof?seconds=20`, { signal: controller.signal }).catch(
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 100));
    process.emit('SIGTERM', 'SIGTERM');
    expect(await code).toBe(1);
    expect(exits).toEqual([1]);
    expect(err.join('')).toContain(
      'graceful shutdown timed out after 300ms; modules still stopping: server',
    );
    controller.abort();
    await slow;
  });

  it('exits at once on a second signal', async () => {
    const exits: number[] = [];
    const { code, url } = await serveUntilStarted(
      ['-target=configs', '-server.graceful-shutdown-timeout=30s'],
      exits,
    );
    const controller = new AbortController();
    const slow = fetch(`${url}/debug/fgprof?seconds=20`, { signal: controller.signal }).catch(
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 100));
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    expect(exits).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    // Our test exit hook does not end the process: let the shutdown finish normally.
    controller.abort();
    await slow;
    expect(await code).toBe(0);
  });
});
