// Differential property: range queries through the frontend's middlewares (step alignment,
// split by interval, results cache with partial hits, retries over a flaky querier) give
// byte-for-byte the JSON the querier gives for the whole query, over seeded generated data
// and queries whose ranges and steps cross split boundaries and cached extents.
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { MemoryStorage } from '../promql/index.js';
import {
  type Cache,
  createSeededRandom,
  MemoryCache,
  type RandomStream,
} from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import type { RangeHandler } from './handler.js';
import { buildRangeHandler, DEFAULT_RANGE_MIDDLEWARES_CONFIG } from './range_middlewares.js';
import { encodeRangeResponse } from './range_response.js';
import { alignToStep } from './step_align.js';
import { engineDownstream, engineRangeBody, rangeRequest } from './test_helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const T0 = 19_675 * 24 * HOUR;
const DATA_END = T0 + 10 * HOUR;

function generateData(rnd: RandomStream): MemoryStorage {
  const storage = new MemoryStorage();
  const series: { labels: Labels; counter: boolean; from: number; to: number }[] = [];
  for (const job of ['api', 'db']) {
    for (const instance of ['a', 'b', 'c']) {
      series.push({
        labels: Labels.fromStrings(
          '__name__',
          'http_requests_total',
          'job',
          job,
          'instance',
          instance,
        ),
        counter: true,
        from: T0,
        to: DATA_END,
      });
    }
  }
  for (const room of ['kitchen', 'hall', 'attic']) {
    series.push({
      labels: Labels.fromStrings('__name__', 'temperature', 'room', room),
      counter: false,
      from: T0,
      to: DATA_END,
    });
  }
  // A series that appears and one that goes away mid-range.
  series.push({
    labels: Labels.fromStrings('__name__', 'temperature', 'room', 'cellar'),
    counter: false,
    from: T0 + 3 * HOUR + 7_000,
    to: DATA_END,
  });
  series.push({
    labels: Labels.fromStrings('__name__', 'http_requests_total', 'job', 'batch', 'instance', 'z'),
    counter: true,
    from: T0,
    to: T0 + 6 * HOUR,
  });
  for (const s of series) {
    let value = s.counter ? rnd.int(100) : 15 + rnd.int(10);
    for (let t = s.from; t <= s.to; t += 15_000) {
      if (rnd.next() < 0.05) continue; // a missed scrape
      const jitter = rnd.int(3_000) - 1_500;
      if (s.counter) value = rnd.next() < 0.002 ? rnd.int(5) : value + rnd.int(20);
      else value = Math.round((value + rnd.next() * 2 - 1) * 100) / 100;
      storage.add(s.labels, t + jitter, value);
    }
  }
  return storage;
}

const QUERIES = [
  'sum(rate(http_requests_total[5m]))',
  'sum by (job) (rate(http_requests_total[2m]))',
  'count_over_time(temperature[10m])',
  'avg by (room) (temperature)',
  'max_over_time(temperature[15m])',
  'temperature offset 10m',
  'rate(http_requests_total[5m] @ end())',
  'sum(temperature @ start())',
  'sum_over_time(temperature[30m:5m])',
  'topk(2, temperature)',
  'temperature > 20',
  'count(http_requests_total)',
  'time()',
  'timestamp(temperature)',
  'increase(http_requests_total{job="api"}[1h])',
  'absent(nonexistent)',
];

const STEPS = [7_000, 15_000, 30_000, MIN, 90_000, 5 * MIN, 20 * MIN];

interface Scenario {
  readonly name: string;
  readonly align: boolean;
  readonly split: number;
  readonly cache: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'split 1h + cache', align: false, split: HOUR, cache: true },
  { name: 'aligned, split 2h + cache', align: true, split: 2 * HOUR, cache: true },
  { name: 'split 25m, no cache', align: false, split: 25 * MIN, cache: false },
];

describe('frontend answers equal the querier', () => {
  const engine = new Engine({}, { clock: new ManualClock(0) });
  const storage = generateData(createSeededRandom('frontend-differential').stream('data'));

  it.each(SCENARIOS)('$name', async (scenario) => {
    const rnd = createSeededRandom(`frontend-differential/${scenario.name}`).stream('queries');
    // "now" inside the data, so the freshness window cuts extents of recent queries.
    const clock = new ManualClock(T0 + 8 * HOUR + 12_345);
    const memory = new MemoryCache({ name: 'frontend-cache', maxSizeBytes: 64 << 20 }, { clock });
    let hits = 0;
    const cache: Cache = {
      name: memory.name,
      getMulti: async (keys, signal) => {
        const found = await memory.getMulti(keys, signal);
        hits += found.size;
        return found;
      },
      setMulti: (entries, ttl) => memory.setMulti(entries, ttl),
      delete: (key) => memory.delete(key),
      close: () => memory.close(),
    };
    const direct = engineDownstream(engine, storage);
    let calls = 0;
    // Every fourth call fails as an overloaded querier would; retries must hide it.
    const flaky: RangeHandler = (req, signal) =>
      ++calls % 4 === 0
        ? Promise.reject(new HttpError('unavailable', 'querier overloaded'))
        : direct(req, signal);
    const frontend = buildRangeHandler(
      {
        ...DEFAULT_RANGE_MIDDLEWARES_CONFIG,
        alignQueriesWithStep: scenario.align,
        splitQueriesByInterval: scenario.split,
        cacheResults: scenario.cache,
        maxQueryParallelism: 3,
      },
      { clock, cache },
      flaky,
    );
    const dashboard: { query: string; start: number; end: number; step: number }[] = [];
    for (let i = 0; i < 50; i++) {
      let query = QUERIES[rnd.int(QUERIES.length)] as string;
      let start: number;
      let end: number;
      let step: number;
      const previous = dashboard[rnd.int(Math.max(1, dashboard.length))];
      if (previous !== undefined && rnd.next() < 0.5) {
        // A dashboard refresh: the same query and step, the window moved and resized a little.
        query = previous.query;
        step = previous.step;
        start = previous.start + (rnd.int(9) - 2) * step;
        end = previous.end + rnd.int(7) * step;
      } else {
        step = STEPS[rnd.int(STEPS.length)] as number;
        start = T0 - HOUR + rnd.int(11 * HOUR);
        if (rnd.next() < 0.8) start = alignToStep(start, step);
        end = start + Math.min(rnd.int(7 * HOUR), 1_500 * step);
        if (rnd.next() < 0.8) end = alignToStep(end, step);
        if (end < start) end = start;
      }
      dashboard.push({ query, start, end, step });
      const req = rangeRequest({ query, start, end, step });
      const got = encodeRangeResponse(await frontend(req, new AbortController().signal));
      const expectedReq = scenario.align
        ? rangeRequest({
            query,
            step,
            start: alignToStep(start, step),
            end: alignToStep(end, step),
          })
        : req;
      const want = await engineRangeBody(engine, storage, expectedReq);
      expect(got, `${query} [${start}, ${end}] step ${step}`).toBe(want);
    }
    // Sub-queries and retries happened, and the cache answered parts of queries.
    expect(calls).toBeGreaterThan(60);
    if (scenario.cache) expect(hits).toBeGreaterThan(20);
  });
});

describe('late samples and max_cache_freshness', () => {
  it('shows samples that arrive inside the freshness window; older ones wait for the cache', async () => {
    const engine = new Engine({}, { clock: new ManualClock(0) });
    const storage = new MemoryStorage();
    const metric = Labels.fromStrings('__name__', 'temperature', 'room', 'lab');
    for (let t = T0; t <= T0 + 2 * HOUR; t += 15_000) storage.add(metric, t, 20);
    const now = T0 + 2 * HOUR + 30_000;
    const clock = new ManualClock(now);
    const cache = new MemoryCache({ name: 'frontend-cache', maxSizeBytes: 1 << 24 }, { clock });
    const frontend = buildRangeHandler(
      { ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, splitQueriesByInterval: HOUR, cacheResults: true },
      { clock, cache },
      engineDownstream(engine, storage),
    );
    const req = rangeRequest({
      query: 'max_over_time(temperature[1m])',
      start: T0,
      end: now - 30_000,
      step: 15_000,
    });
    const ask = async () => encodeRangeResponse(await frontend(req, new AbortController().signal));
    expect(await ask()).toBe(await engineRangeBody(engine, storage, req));
    // A late sample 20s before the end: inside the 1m window, so the next answer has it.
    storage.add(metric, req.end - 20_000, 99);
    const fresh = await ask();
    expect(fresh).toBe(await engineRangeBody(engine, storage, req));
    expect(fresh).toContain(`[${(req.end - 15_000) / 1000},"99"]`);
    // A late sample an hour back was cached without it: Cortex serves the cached answer.
    storage.add(metric, T0 + HOUR - 5_000, 55);
    const stale = await ask();
    expect(stale).not.toContain('"55"');
    expect(await engineRangeBody(engine, storage, req)).toContain('"55"');
  });
});
