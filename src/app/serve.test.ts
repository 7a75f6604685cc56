import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INITIALISED_ONLY } from '../server/index.js';
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

/** Where the instances of this file keep their data (blocks, TSDBs, index-headers). */
const DATA = mkdtempSync(join(tmpdir(), 'strata-serve-test-'));

/** Flags for a quiet single-process instance on free loopback ports. */
const BASE_FLAGS = [
  '-experimental.tsdb.backend=filesystem',
  `-experimental.tsdb.filesystem.dir=${join(DATA, 'blocks')}`,
  `-experimental.tsdb.dir=${join(DATA, 'tsdb')}`,
  `-experimental.tsdb.bucket-store.sync-dir=${join(DATA, 'tsdb-sync')}`,
  `-compactor.data-dir=${join(DATA, 'compactor')}`,
  '-server.http-listen-address=127.0.0.1',
  '-server.http-listen-port=0',
  '-server.grpc-listen-address=127.0.0.1',
  '-server.grpc-listen-port=0',
  '-ring.store=inmemory',
  // The ingester would wait a minute after joining before /ready says so.
  '-ingester.min-ready-duration=0s',
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
    expect(
      strata.modules
        .statuses()
        .every((s) => s.state === 'Terminated' || s.state === INITIALISED_ONLY),
    ).toBe(true);
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
    // promtool comes from the test setup (Debian's prometheus package): it must parse the
    // exposition and find nothing to lint.
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${promtool.stdout}${promtool.stderr}`).toBe('');
    expect(promtool.status).toBe(0);
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
    const slow = await startSlowRequest(url);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await code).toBe(1);
    expect(exits).toEqual([1]);
    expect(err.join('')).toContain(
      'graceful shutdown timed out after 300ms; modules still stopping: server',
    );
    await slow.abort();
  });

  it('exits at once on a second signal', async () => {
    const exits: number[] = [];
    const { code, url } = await serveUntilStarted(
      ['-target=configs', '-server.graceful-shutdown-timeout=30s'],
      exits,
    );
    const slow = await startSlowRequest(url);
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    expect(exits).toEqual([]);
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    // Our test exit hook does not end the process: let the shutdown finish normally.
    await slow.abort();
    expect(await code).toBe(0);
  });
});

/**
 * Starts a 20 s wall-clock profile request and resolves once it holds the profiler (a probe
 * is then refused with 409), so the HTTP server has a request in flight. Retries in the rare
 * case where the probe itself got the profiler first and the slow request was refused.
 */
async function startSlowRequest(url: string): Promise<{ abort(): Promise<void> }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const controller = new AbortController();
    let settled = false;
    const slow = fetch(`${url}/debug/fgprof?seconds=20`, { signal: controller.signal })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined)
      .finally(() => (settled = true));
    while (!settled) {
      const probe = await fetch(`${url}/debug/pprof/profile?seconds=1`);
      await probe.arrayBuffer();
      if (probe.status === 409 && !settled) {
        return {
          abort: async () => {
            controller.abort();
            await slow;
          },
        };
      }
    }
  }
  throw new Error('could not get a slow request in flight');
}
