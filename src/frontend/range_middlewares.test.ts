// The assembled chain: Cortex's order (align → split → cache → retry) and its config rules.
import { describe, expect, it } from 'vitest';
import { MemoryCache, newMetricsRegistry } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import {
  buildRangeHandler,
  DEFAULT_RANGE_MIDDLEWARES_CONFIG,
  validateRangeMiddlewaresConfig,
} from './range_middlewares.js';
import { formulaAnswer, rangeRequest, RecordingDownstream } from './test_helpers.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('buildRangeHandler', () => {
  it('aligns, splits, caches and retries in Cortex order', async () => {
    const clock = new ManualClock(10 * HOUR);
    const cache = new MemoryCache({ name: 'frontend-cache', maxSizeBytes: 1 << 20 }, { clock });
    const down = new RecordingDownstream();
    let failNext = true;
    const registry = newMetricsRegistry();
    const handler = buildRangeHandler(
      {
        ...DEFAULT_RANGE_MIDDLEWARES_CONFIG,
        alignQueriesWithStep: true,
        splitQueriesByInterval: HOUR,
        cacheResults: true,
      },
      { clock, cache, registry },
      (req, signal) => {
        if (failNext) {
          failNext = false;
          return Promise.reject(Object.assign(new Error('querier restarting'), { status: 503 }));
        }
        return down.handler(req, signal);
      },
    );
    const req = rangeRequest({
      query: 'up',
      start: 30_500,
      end: 2 * HOUR + 10_000,
      params: { limit: '', timeout: '', lookbackDelta: '', stats: 'all' },
    });
    const first = await handler(req, new AbortController().signal);
    // Aligned to [0, 2h]; split at the hour (the last sub-query takes the final step too, as
    // its boundary + step reaches the end); the failed first attempt retried.
    expect(down.ranges().sort((a, b) => a[0] - b[0])).toEqual([
      [0, HOUR - MIN],
      [HOUR, 2 * HOUR],
    ]);
    expect(down.calls.every((c) => c.params.stats === '')).toBe(true);
    expect(first.series).toEqual(
      formulaAnswer(rangeRequest({ query: 'up', start: 0, end: 2 * HOUR })).series,
    );
    const second = await handler(req, new AbortController().signal);
    expect(down.calls.length).toBe(2);
    expect(second.series).toEqual(first.series);
    const metrics = await registry.metrics();
    expect(metrics).toContain('cortex_frontend_split_queries_total 4');
    expect(metrics).toContain('cortex_query_frontend_retries_sum 1');
  });

  it('passes queries through untouched when everything is off', async () => {
    const down = new RecordingDownstream();
    const handler = buildRangeHandler(
      DEFAULT_RANGE_MIDDLEWARES_CONFIG,
      { clock: new ManualClock(0) },
      down.handler,
    );
    const req = rangeRequest({ start: 30_500, end: 3 * HOUR + 1 });
    await handler(req, new AbortController().signal);
    expect(down.calls).toEqual([req]);
  });

  it('refuses a results cache without a split interval, as Cortex does', () => {
    expect(() =>
      validateRangeMiddlewaresConfig({ ...DEFAULT_RANGE_MIDDLEWARES_CONFIG, cacheResults: true }),
    ).toThrow(
      'querier.cache-results may only be enabled in conjunction with querier.split-queries-by-interval. Please set the latter',
    );
  });
});
