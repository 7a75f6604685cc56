// The results cache against a recording downstream: which ranges reach the querier on cold,
// warm and partial hits, what is stored, the freshness window, no-store and partial answers,
// and entries that are garbage or belong to another key.
import { describe, expect, it } from 'vitest';
import type { Cache } from '../runtime/index.js';
import { MemoryCache, newMetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import type { RangeHandler } from './handler.js';
import type { RangeRequest } from './range_request.js';
import { EMPTY_HEADERS } from './range_response.js';
import { resultsCacheMetrics, resultsCacheMiddleware } from './results_cache.js';
import {
  type CachedResponse,
  decodeCachedResponse,
  encodeCachedResponse,
  generateCacheKey,
  hashKey,
} from './results_cache_codec.js';
import { PARTIAL_DATA_WARNING } from './results_cache_extents.js';
import { formulaAnswer, rangeRequest, RecordingDownstream } from './test_helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const signal = new AbortController().signal;

function setup(nowMs = 10 * HOUR, cache?: Cache) {
  const clock = new ManualClock(nowMs);
  const memory = new MemoryCache({ name: 'frontend-cache', maxSizeBytes: 1 << 24 }, { clock });
  const down = new RecordingDownstream();
  const registry = newMetricsRegistry();
  const handler: RangeHandler = resultsCacheMiddleware(
    {
      splitInterval: DAY,
      maxCacheFreshness: () => MIN,
      maxQueryParallelism: 4,
      ttlMs: 0,
    },
    { cache: cache ?? memory, clock, metrics: resultsCacheMetrics(registry) },
  )(down.handler);
  const ask = async (start: number, end: number, more: Partial<RangeRequest> = {}) => {
    const req = rangeRequest({ start, end, ...more });
    const resp = await handler(req, signal);
    return { req, resp };
  };
  const stored = async (req: RangeRequest): Promise<CachedResponse | undefined> => {
    const hashed = hashKey(generateCacheKey(req, DAY));
    const bytes = (await memory.getMulti([hashed])).get(hashed);
    return bytes === undefined ? undefined : decodeCachedResponse(bytes);
  };
  return { clock, memory, down, ask, stored, registry };
}

/** The answer a querier gives for [start, end]: what every cached answer must equal. */
function expected(req: RangeRequest) {
  return formulaAnswer(req).series;
}

describe('results cache keys', () => {
  it('uses Cortex key and hash formats', () => {
    expect(hashKey('')).toBe('cbf29ce484222325');
    expect(hashKey('a')).toBe('af63dc4c8601ec8c');
    const req = rangeRequest({ tenantIds: ['a', 'b'], query: 'up', start: DAY + 5, step: MIN });
    expect(generateCacheKey(req, DAY)).toBe('a|b:up:60000:1');
  });
});

describe('resultsCacheMiddleware', () => {
  it('answers a repeated query from the cache (cold, then warm)', async () => {
    const { down, ask, stored } = setup();
    const cold = await ask(0, HOUR);
    expect(down.ranges()).toEqual([[0, HOUR]]);
    expect(cold.resp.series).toEqual(expected(cold.req));
    const entry = await stored(cold.req);
    expect(entry?.extents.map((e) => [e.start, e.end])).toEqual([[0, HOUR]]);
    const warm = await ask(0, HOUR);
    expect(down.calls.length).toBe(1);
    expect(warm.resp.series).toEqual(cold.resp.series);
  });

  it('fetches only the missing ranges and stores merged extents', async () => {
    const { down, ask, stored } = setup();
    await ask(HOUR, 2 * HOUR);
    const later = await ask(30 * MIN, 3 * HOUR);
    // Front gap [30m, 1h] (the extent's start again) and the tail [2h, 3h].
    expect(down.ranges()).toEqual([
      [HOUR, 2 * HOUR],
      [30 * MIN, HOUR],
      [2 * HOUR, 3 * HOUR],
    ]);
    expect(later.resp.series).toEqual(expected(later.req));
    expect((await stored(later.req))?.extents.map((e) => [e.start, e.end])).toEqual([
      [30 * MIN, 3 * HOUR],
    ]);
    const inside = await ask(45 * MIN, 150 * MIN);
    expect(down.calls.length).toBe(3);
    expect(inside.resp.series).toEqual(expected(inside.req));
  });

  it('keeps disjoint extents apart and fills the hole between them', async () => {
    const { down, ask, stored } = setup();
    await ask(0, HOUR);
    await ask(3 * HOUR, 4 * HOUR);
    const entry = await stored(rangeRequest());
    expect(entry?.extents.map((e) => [e.start, e.end])).toEqual([
      [0, HOUR],
      [3 * HOUR, 4 * HOUR],
    ]);
    const all = await ask(0, 4 * HOUR);
    expect(down.ranges().slice(2)).toEqual([[HOUR, 3 * HOUR]]);
    expect(all.resp.series).toEqual(expected(all.req));
  });

  it('never caches nor serves the last max_cache_freshness', async () => {
    const { down, ask, stored, clock } = setup(2 * HOUR);
    await ask(0, 2 * HOUR);
    // now − 1m = 1h59m, already on the step grid.
    expect((await stored(rangeRequest()))?.extents.map((e) => [e.start, e.end])).toEqual([
      [0, 2 * HOUR - MIN],
    ]);
    // Late samples change the recent answer: the fresh part must come from the querier.
    down.answer = (req) => {
      const a = formulaAnswer(req);
      return {
        ...a,
        series: a.series.map((s) => ({
          ...s,
          floats: s.floats.map((p) => ({ t: p.t, f: p.f + 1 })),
        })),
      };
    };
    const again = await ask(0, 2 * HOUR);
    expect(down.ranges()[1]).toEqual([2 * HOUR - MIN, 2 * HOUR]);
    const floats = again.resp.series[0]?.floats ?? [];
    expect(floats.at(-1)).toEqual({ t: 2 * HOUR, f: 7201 });
    expect(floats.at(-2)).toEqual({ t: 2 * HOUR - MIN, f: 7140 });
    // A request that starts inside the window bypasses the cache altogether.
    await clock.advance(HOUR);
    const before = down.calls.length;
    await ask(3 * HOUR - 30_000, 3 * HOUR, { step: 10_000 });
    await ask(3 * HOUR - 30_000, 3 * HOUR, { step: 10_000 });
    expect(down.calls.length).toBe(before + 2);
    expect(await stored(rangeRequest({ start: 3 * HOUR - 30_000, step: 10_000 }))).toBeUndefined();
  });

  it('bypasses the cache for Cache-Control: no-store requests and unaligned requests', async () => {
    const { down, ask, stored } = setup();
    await ask(0, HOUR, { cachingDisabled: true });
    await ask(0, HOUR, { cachingDisabled: true });
    await ask(30_000, HOUR + 30_000);
    await ask(30_000, HOUR + 30_000);
    expect(down.calls.length).toBe(4);
    expect(await stored(rangeRequest())).toBeUndefined();
  });

  it('does not store no-store, partial-data, negative-offset or @-after-end answers', async () => {
    const { down, ask, stored } = setup();
    down.answer = (req) => ({
      ...formulaAnswer(req),
      headers: new Map([['cache-control', ['no-store']]]),
    });
    await ask(0, HOUR);
    expect(await stored(rangeRequest())).toBeUndefined();
    down.answer = (req) => ({ ...formulaAnswer(req), warnings: [PARTIAL_DATA_WARNING] });
    await ask(0, HOUR);
    expect(await stored(rangeRequest())).toBeUndefined();
    down.answer = formulaAnswer;
    for (const query of ['up offset -5m', 'up @ 7200.000', 'up @ 36000.000']) {
      await ask(0, HOUR, { query });
      expect(await stored(rangeRequest({ query })), query).toBeUndefined();
    }
    await ask(0, HOUR, { query: 'up offset 5m @ 1800.000' });
    expect(await stored(rangeRequest({ query: 'up offset 5m @ 1800.000' }))).toBeDefined();
  });

  it('discards extents under 5m for requests over 5m', async () => {
    const { down, ask } = setup();
    await ask(0, 2 * MIN);
    const big = await ask(0, HOUR);
    expect(down.ranges()).toEqual([
      [0, 2 * MIN],
      [0, HOUR],
    ]);
    expect(big.resp.series).toEqual(expected(big.req));
  });

  it('treats garbage, truncated and foreign-key entries as misses and replaces them', async () => {
    const { down, ask, stored, memory, registry } = setup();
    const req = rangeRequest({ start: 0, end: HOUR });
    const key = generateCacheKey(req, DAY);
    const valid = encodeCachedResponse({
      key,
      extents: [{ start: 0, end: HOUR, response: formulaAnswer(req) }],
    });
    const wrongValues = formulaAnswer(rangeRequest({ query: 'other' }));
    const bad: Uint8Array[] = [
      new TextEncoder().encode('garbage'),
      valid.slice(0, valid.length >> 1),
      encodeCachedResponse({
        key: 'someone-else',
        extents: [{ start: 0, end: HOUR, response: { ...wrongValues, headers: EMPTY_HEADERS } }],
      }),
    ];
    for (const bytes of bad) {
      memory.setMulti(new Map([[hashKey(key), bytes]]), 0);
      const before = down.calls.length;
      const got = await ask(0, HOUR);
      expect(down.calls.length).toBe(before + 1);
      expect(got.resp.series).toEqual(expected(req));
      expect((await stored(req))?.key).toBe(key);
    }
    const text = await registry.metrics();
    expect(text).toContain(
      'strata_frontend_results_cache_invalid_entries_total{reason="decode"} 2',
    );
    expect(text).toContain(
      'strata_frontend_results_cache_invalid_entries_total{reason="key_mismatch"} 1',
    );
  });

  it('answers correctly when the cache backend fails', async () => {
    const broken: Cache = {
      name: 'broken',
      getMulti: () => Promise.reject(new Error('connection refused')),
      setMulti: () => {},
      delete: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const { down, ask } = setup(10 * HOUR, broken);
    const got = await ask(0, HOUR);
    expect(got.resp.series).toEqual(expected(got.req));
    expect(down.calls.length).toBe(1);
  });
});
