// Differential property of query sharding: generated range queries through the frontend's
// middlewares with `query_vertical_shard_size` > 1 — each shard a sub-query the real PromQL
// engine answers over the querier's shard-filtering storage — equal the engine's answer for
// the whole query over the same generated data. Every answer must be byte-identical except
// ungrouped sums and averages of non-integers, equal within float rounding (the documented
// exception). Ungrouped topk/bottomk are also checked over data full of ties.
import { describe, expect, it } from 'vitest';
import { encodeQueryData, Form, successBody, toApiError } from '../api/index.js';
import { HttpError } from '../server/index.js';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { MemoryStorage, type Queryable } from '../promql/index.js';
import { shardingQueryable } from '../querier/query_shard.js';
import { createSeededRandom, MemoryCache, newMetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import type { RangeHandler } from './handler.js';
import { encodeInstantResponse, shardedInstantRequest } from './instant_query.js';
import {
  buildInstantShardHandler,
  buildRangeHandler,
  DEFAULT_RANGE_MIDDLEWARES_CONFIG,
} from './range_middlewares.js';
import {
  decodeRangeResponse,
  encodeRangeResponse,
  encodeRangeResponseText,
} from './range_response.js';
import { engineDownstream, engineRangeBody, rangeRequest } from './test_helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 19_675 * 24 * HOUR;
const DATA_END = T0 + 6 * HOUR;

function generateData(seed: string): MemoryStorage {
  const rnd = createSeededRandom(seed).stream('data');
  const storage = new MemoryStorage();
  const add = (labels: Labels, kind: 'counter' | 'gauge' | 'int', from = T0, to = DATA_END) => {
    let v = kind === 'gauge' ? 15 + rnd.int(10) : rnd.int(100);
    for (let t = from; t <= to; t += 15_000) {
      if (rnd.next() < 0.05) continue;
      if (kind === 'counter') v = rnd.next() < 0.002 ? rnd.int(5) : v + rnd.int(20) + rnd.next();
      else if (kind === 'gauge') v = Math.round((v + rnd.next() * 2 - 1) * 100) / 100;
      else v = rnd.int(50);
      storage.add(labels, t + rnd.int(3_000) - 1_500, v);
    }
  };
  for (const job of ['api', 'db', 'batch']) {
    for (const instance of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const zone = ['z1', 'z2'][rnd.int(2)] as string;
      add(
        Labels.fromStrings(
          '__name__',
          'http_requests_total',
          'job',
          job,
          'instance',
          instance,
          'zone',
          zone,
        ),
        'counter',
      );
      add(Labels.fromStrings('__name__', 'queue_length', 'job', job, 'instance', instance), 'int');
      if (rnd.next() < 0.5) {
        add(
          Labels.fromStrings(
            '__name__',
            'http_errors_total',
            'job',
            job,
            'instance',
            instance,
            'zone',
            zone,
          ),
          'counter',
        );
      }
    }
  }
  for (const room of ['kitchen', 'hall', 'attic', 'cellar', 'garage', 'porch', 'study', 'bath']) {
    const from = rnd.next() < 0.3 ? T0 + rnd.int(3 * HOUR) : T0;
    const to = rnd.next() < 0.3 ? DATA_END - rnd.int(3 * HOUR) : DATA_END;
    add(
      Labels.fromStrings('__name__', 'temperature', 'room', room, 'floor', `${rnd.int(3)}`),
      'gauge',
      from,
      to,
    );
  }
  return storage;
}

const INNER = [
  'rate(http_requests_total[5m])',
  'increase(http_requests_total{job!="db"}[10m])',
  'temperature',
  'max_over_time(temperature[15m])',
  'temperature offset 10m',
  'queue_length',
  'queue_length > 20',
  'rate({__name__=~"http_.*"}[5m])',
  'rate(http_requests_total[5m] @ end())',
  'abs(temperature - 20)',
  'rate(queue_length[5m])',
];

const GROUPINGS = [
  '',
  'by (job)',
  'by (room)',
  'by (zone, job)',
  'without (instance)',
  'without (room)',
  'by (floor)',
];
const AGGREGATIONS = ['sum', 'count', 'min', 'max', 'avg', 'topk', 'bottomk'];

function generateQuery(rnd: { int(n: number): number }): string {
  const op = AGGREGATIONS[rnd.int(AGGREGATIONS.length)] as string;
  const grouping = GROUPINGS[rnd.int(GROUPINGS.length)] as string;
  const inner = INNER[rnd.int(INNER.length)] as string;
  const param = op === 'topk' || op === 'bottomk' ? `${1 + rnd.int(4)}, ` : '';
  return `${op}${grouping === '' ? '' : ` ${grouping}`} (${param}${inner})`;
}

type Outcome = { ok: true; body: string } | { ok: false; message: string };

async function outcome(run: () => Promise<string>): Promise<Outcome> {
  try {
    return { ok: true, body: await run() };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
}

/** Same series and timestamps; values equal within float rounding. */
function expectClose(got: string, want: string, what: string): void {
  const g = decodeRangeResponse(got);
  const w = decodeRangeResponse(want);
  expect(
    g.series.map((s) => s.metric.toString()),
    what,
  ).toEqual(w.series.map((s) => s.metric.toString()));
  g.series.forEach((s, i) => {
    const ws = w.series[i]?.floats ?? [];
    expect(
      s.floats.map((p) => p.t),
      what,
    ).toEqual(ws.map((p) => p.t));
    s.floats.forEach((p, j) => {
      const wf = (ws[j] as { f: number }).f;
      if (Number.isNaN(wf) || !Number.isFinite(wf)) expect(p.f, what).toBe(wf);
      else expect(Math.abs(p.f - wf), what).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(wf)));
    });
  });
}

function exactness(query: string): 'exact' | 'close' {
  const ungrouped = /^\w+ \(/.test(query);
  if (!ungrouped || /^(count|min|max|topk|bottomk) /.test(query)) return 'exact';
  // Sums of integers are exact in any order.
  return /\(queue_length( > 20)?\)$/.test(query) ? 'exact' : 'close';
}

interface Scenario {
  readonly name: string;
  readonly shards: number;
  readonly split: number;
  readonly parallelism: number;
  /** Every fourth querier call fails with 503. */
  readonly flaky?: boolean;
  /** `shardExactOnly`: every answer must then be byte-identical. */
  readonly exactOnly?: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: '3 shards, flaky querier', shards: 3, split: 0, parallelism: 4, flaky: true },
  { name: '4 shards after split 1h + cache', shards: 4, split: HOUR, parallelism: 3 },
  { name: '7 shards, one at a time', shards: 7, split: 0, parallelism: 1 },
  { name: '5 shards, exact only', shards: 5, split: 0, parallelism: 5, exactOnly: true },
];

describe('sharded answers equal the unsharded query', () => {
  const engine = new Engine({}, { clock: new ManualClock(0) });
  const storage = generateData('shard-differential');
  const querierStorage: Queryable = shardingQueryable(storage);

  it.each(SCENARIOS)('$name', async (scenario) => {
    const rnd = createSeededRandom(`shard-differential/${scenario.name}`).stream('queries');
    const clock = new ManualClock(DATA_END + HOUR);
    const registry = newMetricsRegistry();
    // The shard selectors the querier was asked for.
    const shardsSeen = new Set<string>();
    const direct = engineDownstream(engine, querierStorage);
    let calls = 0;
    const recording: RangeHandler = async (req, signal) => {
      for (const m of req.query.matchAll(/__query_shard__="(\d+_of_\d+)/g))
        shardsSeen.add(m[1] as string);
      // A flaky querier: shard sub-queries are retried on their own.
      if (scenario.flaky === true && ++calls % 4 === 0) {
        throw new HttpError('unavailable', 'querier overloaded');
      }
      try {
        return await direct(req, signal);
      } catch (err) {
        // The status the querier's HTTP API gives an engine error (422 is not retried).
        throw toApiError(err);
      }
    };
    const frontend = buildRangeHandler(
      {
        ...DEFAULT_RANGE_MIDDLEWARES_CONFIG,
        splitQueriesByInterval: scenario.split,
        cacheResults: scenario.split > 0,
        maxQueryParallelism: scenario.parallelism,
        shardSize: () => scenario.shards,
        shardExactOnly: scenario.exactOnly === true,
      },
      {
        clock,
        cache: new MemoryCache({ name: 'results', maxSizeBytes: 64 << 20 }, { clock }),
        registry,
      },
      recording,
    );
    // Splitting alone can change which series topk/bottomk keep among ties (the engine's
    // input order at a step depends on the range), so behind a split the reference is the
    // same split without sharding: what sharding adds must change nothing.
    const reference =
      scenario.split > 0
        ? buildRangeHandler(
            { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, splitQueriesByInterval: scenario.split },
            { clock },
            engineDownstream(engine, storage),
          )
        : undefined;
    const kinds = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const query = generateQuery(rnd);
      const step = [15_000, 60_000, 5 * MIN][rnd.int(3)] as number;
      const start = T0 - 10 * MIN + rnd.int(5 * HOUR);
      const end = Math.min(start + rnd.int(3 * HOUR), start + 1_000 * step);
      const req = rangeRequest({
        query,
        start: start - (start % step),
        end: end - (end % step),
        step,
      });
      const what = `${query} [${req.start}, ${req.end}] step ${step}`;
      const want = await outcome(async () =>
        reference === undefined
          ? engineRangeBody(engine, storage, req)
          : encodeRangeResponseText(await reference(req, new AbortController().signal)),
      );
      const got = await outcome(async () =>
        encodeRangeResponseText(await frontend(req, new AbortController().signal)),
      );
      if (!want.ok || !got.ok) {
        expect(got, what).toEqual(want);
        kinds.add('error');
        continue;
      }
      const kind = scenario.exactOnly === true ? 'exact' : exactness(query);
      kinds.add(kind);
      if (kind === 'exact') expect(got.body, what).toBe(want.body);
      else expectClose(got.body, want.body, what);
    }
    expect([...kinds].sort()).toEqual(
      scenario.exactOnly === true ? ['error', 'exact'] : ['close', 'error', 'exact'],
    );
    // Every query was shardable (but ungrouped sum/avg when exact only); each became one
    // sub-query (two for ungrouped avg) per shard.
    const metric = async (name: string) =>
      (await registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
    const succeeded = await metric('cortex_frontend_query_sharding_rewrites_succeeded_total');
    const attempted = await metric('cortex_frontend_query_sharding_rewrites_attempted_total');
    if (scenario.exactOnly === true) expect(succeeded).toBeLessThan(attempted);
    else expect(succeeded).toBe(attempted);
    expect(succeeded).toBeGreaterThanOrEqual(40);
    expect(await metric('cortex_frontend_sharded_queries_total')).toBeGreaterThanOrEqual(
      succeeded * scenario.shards,
    );
    expect([...shardsSeen].sort()).toEqual(
      Array.from({ length: scenario.shards }, (_, i) => `${i + 1}_of_${scenario.shards}`).sort(),
    );
  });

  it('instant queries: sharded as one-step ranges, the same samples as the engine', async () => {
    const rnd = createSeededRandom('shard-differential/instant').stream('queries');
    const registry = newMetricsRegistry();
    const shards = buildInstantShardHandler(
      { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, shardSize: () => 4, shardExactOnly: true },
      { clock: new ManualClock(0), registry },
      engineDownstream(engine, querierStorage),
    ) as RangeHandler;
    const bySeries = (body: string) => {
      const parsed = JSON.parse(body) as { data: { result: { metric: object }[] } };
      parsed.data.result.sort((a, b) =>
        JSON.stringify(a.metric).localeCompare(JSON.stringify(b.metric)),
      );
      return parsed;
    };
    let compared = 0;
    let errors = 0;
    for (let i = 0; i < 80; i++) {
      const query = generateQuery(rnd);
      const t = T0 - 10 * MIN + rnd.int(7 * HOUR);
      const form = new Form(
        new Map([
          ['query', [query]],
          ['time', [String(t / 1000)]],
        ]),
        undefined,
      );
      const req = shardedInstantRequest(
        form,
        { tenantIds: ['team-a'], headers: new Map(), forwardHeaders: [] },
        { shardSize: () => 4, exactOnly: true, nowMs: () => 0 },
      );
      // Ungrouped sum/avg are not sharded when answers must be exact: the querier answers.
      if (req === undefined) {
        expect(/^(sum|avg) \(/.test(query), query).toBe(true);
        continue;
      }
      const want = await outcome(async () => {
        const result = await engine.instantQuery(storage, query, t);
        return successBody(
          encodeQueryData(result.value, undefined),
          result.annotations.warnings(),
          result.annotations.infos(),
        );
      });
      const got = await outcome(async () =>
        encodeInstantResponse(await shards(req, new AbortController().signal), t),
      );
      const what = `${query} at ${t}`;
      if (!want.ok || !got.ok) {
        expect(got, what).toEqual(want);
        errors++;
        continue;
      }
      expect(bySeries(got.body), what).toEqual(bySeries(want.body));
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
    expect(errors).toBeGreaterThan(0);
    const sharded = await registry.getSingleMetric('cortex_frontend_sharded_queries_total')?.get();
    expect(sharded?.values[0]?.value).toBeGreaterThanOrEqual(compared * 4);
  });

  it('points annotations into the client query text, not the shard sub-queries', async () => {
    const frontend = buildRangeHandler(
      { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, shardSize: () => 12 },
      { clock: new ManualClock(0) },
      engineDownstream(engine, querierStorage),
    );
    for (const query of [
      // Integers, so the ungrouped avg is exact too.
      'avg(floor(rate(queue_length[5m]) * 1000))',
      'sum by (job) (\n  rate(queue_length{job!="x"}[5m]) * 2\n)',
      'topk (3, (rate(queue_length[5m])))',
    ]) {
      const req = rangeRequest({ query, start: T0, end: T0 + HOUR, step: MIN });
      const want = await engineRangeBody(engine, storage, req);
      expect(want).toMatch(
        /"infos":\["PromQL info: metric might not be a counter.* \(\d+:\d+\)"\]/,
      );
      expect(encodeRangeResponse(await frontend(req, new AbortController().signal))).toBe(want);
    }
  });

  it('leaves unshardable queries, limits and stats to one querier call', async () => {
    const seen: string[] = [];
    const frontend = buildRangeHandler(
      { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, shardSize: (tenant) => (tenant === 'team-a' ? 4 : 0) },
      { clock: new ManualClock(0) },
      (req, signal) => {
        seen.push(req.query);
        return engineDownstream(engine, querierStorage)(req, signal);
      },
    );
    const signal = new AbortController().signal;
    const base = { start: T0, end: T0 + HOUR, step: MIN };
    for (const req of [
      rangeRequest({ ...base, query: 'quantile(0.5, temperature)' }),
      rangeRequest({
        ...base,
        query: 'sum(temperature)',
        params: { limit: '2', timeout: '', lookbackDelta: '', stats: '' },
      }),
      rangeRequest({ ...base, query: 'sum(temperature)', tenantIds: ['team-b'] }),
    ]) {
      expect(encodeRangeResponse(await frontend(req, signal))).toBe(
        await engineRangeBody(engine, storage, req),
      );
    }
    expect(seen).toEqual(['quantile(0.5, temperature)', 'sum(temperature)', 'sum(temperature)']);
    await frontend(rangeRequest({ ...base, query: 'sum by (room) (temperature)' }), signal);
    expect(seen.slice(3)).toHaveLength(4);
    expect(seen.slice(3).every((q) => q.includes(':by:room"'))).toBe(true);
  });

  it('ungrouped topk/bottomk equal the engine choice among ties, or run whole', async () => {
    const rnd = createSeededRandom('shard-ties').stream('data');
    let sharded = 0;
    let whole = 0;
    for (let trial = 0; trial < 25; trial++) {
      const ties = new MemoryStorage();
      const series = 3 + rnd.int(20);
      for (let i = 0; i < series; i++) {
        const l = Labels.fromStrings('__name__', 'q', 'i', `s${i}`);
        const levels = 2 + rnd.int(30);
        for (let t = T0; t <= T0 + 10 * MIN; t += 15_000) {
          ties.add(l, t, rnd.next() < 0.02 ? NaN : rnd.int(levels));
        }
      }
      for (const n of [2, 3, 5]) {
        const calls: string[] = [];
        const frontend = buildRangeHandler(
          { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, shardSize: () => n },
          { clock: new ManualClock(0) },
          (req, signal) => {
            calls.push(req.query);
            return engineDownstream(engine, shardingQueryable(ties))(req, signal);
          },
        );
        for (const query of [
          'topk(1, q)',
          'topk(2, q)',
          'topk(4, q)',
          'bottomk(3, q)',
          'bottomk(7, -q)',
        ]) {
          calls.length = 0;
          const req = rangeRequest({ query, start: T0, end: T0 + 10 * MIN, step: 15_000 });
          const got = encodeRangeResponse(await frontend(req, new AbortController().signal));
          expect(got, `${query} over ${series} series, ${n} shards`).toBe(
            await engineRangeBody(engine, ties, req),
          );
          if (calls.at(-1) === query) whole++;
          else sharded++;
        }
      }
    }
    // Both paths were taken: answers merged from shards, and ties sent back whole.
    expect(sharded).toBeGreaterThan(20);
    expect(whole).toBeGreaterThan(20);
  });
});
