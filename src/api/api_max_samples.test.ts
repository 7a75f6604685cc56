// The sample limit over HTTP: a query that would hold more samples than `max_samples` answers
// 422 `execution` with Prometheus's message in both engines, and the server keeps answering
// queries within the limit afterwards.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { MemoryStorage } from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import { newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { HttpServer } from '../server/index.js';
import { registerPrometheusApi } from './index.js';

const MAX_SAMPLES = 100;
const TOO_MANY =
  '{"status":"error","errorType":"execution","error":"query processing would load too many samples into memory in query execution"}';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function start(): Promise<string> {
  const clock = new ManualClock(600_000);
  const server = new HttpServer(
    {
      authEnabled: false,
      prefixes: { legacy: '/api/prom', prometheus: '/prometheus', alertmanager: '/alertmanager' },
    },
    { clock, logger: new CapturingLogger(), metrics: newMetricsRegistry() },
  );
  // 10 series with a sample every 15s over 10 minutes: 41 samples each, 410 in all.
  const storage = new MemoryStorage();
  for (let i = 0; i < 10; i++) {
    for (let t = 0; t <= 600_000; t += 15_000) {
      storage.add(Labels.fromStrings('__name__', 'm', 'i', `${i}`), t, t / 1000);
    }
  }
  registerPrometheusApi(server, {
    queryable: () => storage,
    engines: {
      prometheus: new Engine({ maxSamples: MAX_SAMPLES }, { clock }),
      thanos: new VectorEngine({ maxSamples: MAX_SAMPLES }, { clock }),
    },
    buildInfo: {
      version: 'v',
      revision: 'r',
      branch: 'b',
      buildUser: 'u',
      buildDate: 'd',
      goVersion: 'g',
    },
    clock,
  });
  const http = createServer(server.handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/prometheus/api/v1`;
}

async function get(url: string, engine: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url, { headers: { 'X-PromQL-EngineType': engine } });
  return { status: r.status, body: await r.text() };
}

describe.each(['prometheus', 'thanos'])('max_samples over HTTP, %s engine', (engine) => {
  it('answers 422 past the limit and keeps serving', async () => {
    const api = await start();
    // Range query: 10 series x 41 steps = 410 points.
    expect(await get(`${api}/query_range?query=m&start=0&end=600&step=15`, engine)).toEqual({
      status: 422,
      body: TOO_MANY,
    });
    // Instant range vector: 410 samples.
    expect(await get(`${api}/query?query=m[10m]&time=600`, engine)).toEqual({
      status: 422,
      body: TOO_MANY,
    });
    // Within the limit: 10 series x 10 steps = 100 points.
    const ok = await get(`${api}/query_range?query=m&start=0&end=135&step=15`, engine);
    expect(ok.status).toBe(200);
    expect((JSON.parse(ok.body) as { data: { result: unknown[] } }).data.result).toHaveLength(10);
  });
});
