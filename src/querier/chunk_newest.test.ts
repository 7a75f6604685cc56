// Instant selectors read only the newest chunk of each chunk series: both engines, at one
// evaluation time, need nothing older than the newest sample in the lookback window. Range
// queries and range selectors still read every chunk in their window.
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { DEFAULT_ENGINE_OPTIONS, type PromQLEngine, type Queryable } from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import { countingChunk, xorChunks, type Sample } from './blocks_fakes.testing.js';
import { ChunkSampleReader } from './chunk_samples.js';
import { storeSeriesToStorageSeries } from './chunk_series.js';

/** Ten chunks of ten samples, one per second over [0, 99s], value t/1000; reads counted. */
function queryable(counter: { reads: number }): Queryable {
  const samples: Sample[] = [];
  for (let t = 0; t < 100_000; t += 1000) samples.push([t, t / 1000]);
  const chunks = xorChunks(samples, 10).map((c) => countingChunk(c, counter));
  return {
    querier: (mint, maxt) =>
      Promise.resolve({
        select: () => {
          const reader = new ChunkSampleReader();
          return Promise.resolve([
            storeSeriesToStorageSeries(
              { labels: Labels.fromStrings('__name__', 'up'), chunks },
              mint,
              maxt,
              reader,
            ),
          ]);
        },
        labelNames: () => Promise.resolve([]),
        labelValues: () => Promise.resolve([]),
        close: () => Promise.resolve(),
      }),
  };
}

describe.each([
  ['prometheus', (): PromQLEngine => new Engine(DEFAULT_ENGINE_OPTIONS, {})],
  ['thanos', (): PromQLEngine => new VectorEngine(DEFAULT_ENGINE_OPTIONS, {})],
] as const)('the %s engine over chunk series', (_name, make) => {
  const engine = make();

  it('reads only the newest chunk for an instant selector', async () => {
    const counter = { reads: 0 };
    const r = await engine.instantQuery(queryable(counter), 'up', 95_500);
    expect(r.value).toMatchObject({ type: 'vector', vector: [{ t: 95_500, f: 95 }] });
    // The last chunk ([90s, 99s]) only: its header and its bytes.
    expect(counter.reads).toBeGreaterThan(0);
    expect(counter.reads).toBeLessThanOrEqual(2);
  });

  it('falls back to an older chunk when the newest starts after the evaluation time', async () => {
    const counter = { reads: 0 };
    const r = await engine.instantQuery(queryable(counter), 'up', 89_999);
    expect(r.value).toMatchObject({ type: 'vector', vector: [{ f: 89 }] });
    expect(counter.reads).toBeLessThanOrEqual(4);
  });

  it('reads every chunk in the window for a range query and a range selector', async () => {
    const counter = { reads: 0 };
    const r = await engine.rangeQuery(queryable(counter), 'up', 0, 99_000, 10_000);
    expect(r.value.type).toBe('matrix');
    expect(counter.reads).toBeGreaterThanOrEqual(10);
    const ranged = { reads: 0 };
    const c = await engine.instantQuery(queryable(ranged), 'count_over_time(up[1m])', 99_000);
    expect(c.value).toMatchObject({ type: 'vector', vector: [{ f: 60 }] });
    expect(ranged.reads).toBeGreaterThanOrEqual(6);
  });
});
