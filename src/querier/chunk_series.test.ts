// Lazy decoding of store-gateway chunks: window restriction, seeks that skip chunks unread,
// RF copies and overlapping blocks merged with each timestamp once, and a property test
// against the model (the sorted, de-duplicated union of every source inside the window).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import {
  SAMPLE_FLOAT,
  SAMPLE_NONE,
  type SampleIterator,
  type StorageSeries,
} from '../promql/index.js';
import type { StoreChunk } from '../storegateway/index.js';
import { countingChunk, xorChunk, xorChunks, type Sample } from './blocks_fakes.testing.js';
import { ChunkSampleReader } from './chunk_samples.js';
import {
  chunkLanes,
  mergeStoreSeries,
  storeChunksIterator,
  storeSeriesToStorageSeries,
} from './chunk_series.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function bulk(s: StorageSeries, start: number, end: number): [number, number][] {
  const { ts, fs } = s.samples!(start, end);
  return Array.from(ts, (t, i) => [t, fs[i] as number]);
}

function drain(it: SampleIterator): [number, number][] {
  const out: [number, number][] = [];
  while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
  expect(it.err()).toBeNull();
  return out;
}

/** Samples every `step` ms in [from, to], value = t / 1000. */
function series(from: number, to: number, step: number): Sample[] {
  const out: Sample[] = [];
  for (let t = from; t <= to; t += step) out.push([t, t / 1000]);
  return out;
}

describe('ChunkLaneIterator (one lane)', () => {
  it('returns only samples inside [mint, maxt]', () => {
    const chunks = xorChunks(series(0, 99_000, 1000), 10);
    expect(drain(storeChunksIterator(chunks, 15_000, 42_000))).toEqual(
      series(15_000, 42_000, 1000).map(([t, v]) => [t, v]),
    );
  });

  it('never decodes a chunk outside the window', () => {
    const counter = { reads: 0 };
    // Ten chunks of ten samples: [0..9s], [10..19s], ... [90..99s].
    const chunks = xorChunks(series(0, 99_000, 1000), 10).map((c) => countingChunk(c, counter));
    const got = drain(storeChunksIterator(chunks, 31_000, 48_000));
    expect(got[0]?.[0]).toBe(31_000);
    expect(got[got.length - 1]?.[0]).toBe(48_000);
    // Only the chunks [30..39s] and [40..49s] overlap the window.
    expect(counter.reads).toBe(2);
  });

  it('seeks past whole chunks without reading them', () => {
    const counter = { reads: 0 };
    const chunks = xorChunks(series(0, 99_000, 1000), 10).map((c) => countingChunk(c, counter));
    const it = storeChunksIterator(chunks, 0, 200_000);
    expect(it.next()).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(0);
    expect(it.seek(75_500)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(76_000);
    expect(it.atF()).toBe(76);
    // The first chunk, then straight to [70..79s].
    expect(counter.reads).toBe(2);
    // Seeking backwards stays put; next continues.
    expect(it.seek(10_000)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(76_000);
    expect(it.next()).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(77_000);
    expect(it.seek(1_000_000)).toBe(SAMPLE_NONE);
    expect(it.next()).toBe(SAMPLE_NONE);
    expect(counter.reads).toBe(2);
  });

  it('seek before any next starts at the window start', () => {
    const it = storeChunksIterator(xorChunks(series(0, 9000, 1000), 4), 3000, 9000);
    expect(it.seek(0)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(3000);
  });

  it('reports an unsupported encoding as the iterator error', () => {
    const chunk: StoreChunk = { ...xorChunk([[1, 1]]), encoding: 2 };
    const it = storeChunksIterator([chunk], 0, 10);
    expect(it.next()).toBe(SAMPLE_NONE);
    expect(it.err()?.message).toMatch(/unsupported chunk encoding 2/);
  });
});

describe('overlapping chunks', () => {
  it('splits chunks into non-overlapping lanes', () => {
    const a = xorChunk([
      [0, 0],
      [10, 1],
    ]);
    const b = xorChunk([
      [10, 1],
      [20, 2],
    ]); // starts at a's end: overlaps
    const c = xorChunk([
      [21, 3],
      [30, 4],
    ]);
    const lanes = chunkLanes([c, b, a], 0, 100);
    expect(lanes.map((l) => l.map((x) => x.minTime))).toEqual([[0, 21], [10]]);
  });

  it('merges RF copies of a block into each sample once', () => {
    const samples = series(0, 7_199_000, 15_000);
    // Three ingesters shipped the same samples, cut into chunks at different points.
    const copies = [xorChunks(samples, 120), xorChunks(samples, 100), xorChunks(samples, 77)];
    const merged = mergeStoreSeries(
      copies.map((chunks) => [{ labels: L('__name__', 'up'), chunks }]),
    );
    expect(merged).toHaveLength(1);
    const s = storeSeriesToStorageSeries(merged[0]!, 0, 7_200_000);
    expect(drain(s.iterator())).toEqual(samples.map(([t, v]) => [t, v]));
  });

  it('fills a copy’s gap from another copy', () => {
    const full = series(0, 60_000, 10_000);
    const gappy = full.filter(([t]) => t !== 30_000 && t !== 40_000);
    const it = storeChunksIterator([xorChunk(gappy), xorChunk(full)], 0, 100_000);
    expect(drain(it)).toEqual(full.map(([t, v]) => [t, v]));
  });
});

describe('bulk reads (StorageSeries.samples)', () => {
  it('keeps the earliest lane’s sample on equal timestamps, as the iterator does', () => {
    const a = xorChunk([
      [0, 1],
      [10, 2],
    ]);
    const b = xorChunk([
      [10, 99],
      [20, 3],
    ]);
    const s = storeSeriesToStorageSeries({ labels: L(), chunks: [a, b] }, 0, 100);
    expect(bulk(s, 0, 100)).toEqual(drain(s.iterator()));
    expect(bulk(s, 0, 100)).toEqual([
      [0, 1],
      [10, 2],
      [20, 3],
    ]);
  });

  it('reads series larger than a shared block and keeps earlier views intact', () => {
    const reader = new ChunkSampleReader();
    const big = series(0, 199_999_000, 1000); // 200,000 samples: more than one block
    const first = storeSeriesToStorageSeries(
      { labels: L(), chunks: xorChunks(series(0, 9_000, 1000), 4) },
      0,
      10_000,
      reader,
    );
    const firstSamples = first.samples!(0, 10_000);
    const second = storeSeriesToStorageSeries(
      { labels: L(), chunks: xorChunks(big, 120) },
      0,
      200_000_000,
      reader,
    );
    expect(second.samples!(0, 200_000_000).ts.length).toBe(big.length);
    expect(Array.from(firstSamples.ts)).toEqual(series(0, 9_000, 1000).map(([t]) => t));
  });

  it('fails on a chunk of an unsupported encoding', () => {
    const chunk = { ...xorChunk([[1, 1]]), encoding: 2 };
    const s = storeSeriesToStorageSeries({ labels: L(), chunks: [chunk] }, 0, 10);
    expect(() => s.samples!(0, 10)).toThrow(/unsupported chunk encoding 2/);
  });
});

describe('mergeStoreSeries', () => {
  it('groups answers by labels, sorted, keeping every chunk', () => {
    const a = { labels: L('__name__', 'a'), chunks: [xorChunk([[1, 1]])] };
    const b = { labels: L('__name__', 'b'), chunks: [xorChunk([[2, 2]])] };
    const b2 = { labels: L('__name__', 'b'), chunks: [xorChunk([[3, 3]])] };
    const merged = mergeStoreSeries([[b], [a, b2]]);
    expect(merged.map((s) => s.labels.get('__name__'))).toEqual(['a', 'b']);
    expect(merged[1]?.chunks).toHaveLength(2);
  });
});

describe('property: merged chunks equal the model', () => {
  // A source: distinct ascending timestamps, cut into chunks of random sizes. Values are a
  // function of the timestamp, as replicated samples are.
  const source = fc
    .tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: 2000 }), { minLength: 1, maxLength: 60 }),
      fc.integer({ min: 1, max: 12 }),
    )
    .map(([ts, perChunk]) => {
      const samples = [...ts].sort((a, b) => a - b).map((t): Sample => [t, t * 0.5 + 1]);
      return { samples, chunks: xorChunks(samples, perChunk) };
    });

  it('next() and the bulk read walk the sorted unique union inside the window', () => {
    // One reader for every run: its shared blocks must keep earlier reads intact.
    const reader = new ChunkSampleReader();
    fc.assert(
      fc.property(
        fc.array(source, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: -10, max: 2010 }),
        fc.integer({ min: 0, max: 2100 }),
        (sources, mint, span) => {
          const maxt = mint + span;
          const chunks = sources.flatMap((s) => s.chunks);
          const model = [...new Set(sources.flatMap((s) => s.samples.map(([t]) => t)))]
            .filter((t) => t >= mint && t <= maxt)
            .sort((a, b) => a - b)
            .map((t) => [t, t * 0.5 + 1]);
          expect(drain(storeChunksIterator(chunks, mint, maxt))).toEqual(model);
          // The bulk read gives the same samples, whatever sub-window it is asked for.
          const s = storeSeriesToStorageSeries({ labels: L(), chunks }, mint, maxt, reader);
          expect(bulk(s, -Infinity, Infinity)).toEqual(model);
          const mid = mint + Math.floor(span / 2);
          expect(bulk(s, mid, Infinity)).toEqual(model.filter(([t]) => (t as number) >= mid));
          // The newest sample alone, from the last chunks only.
          for (const end of [maxt, mid, mint]) {
            const inWindow = model.filter(([t]) => (t as number) >= mint && (t as number) <= end);
            const { ts, fs } = s.newest!(mint, end);
            expect(Array.from(ts, (t, i) => [t, fs[i]])).toEqual(inWindow.slice(-1));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('seek(t) lands on the model’s first sample at or after t', () => {
    fc.assert(
      fc.property(
        fc.array(source, { minLength: 1, maxLength: 4 }),
        fc.array(fc.integer({ min: 0, max: 2100 }), { minLength: 1, maxLength: 6 }),
        (sources, targets) => {
          const all = [...new Set(sources.flatMap((s) => s.samples.map(([t]) => t)))].sort(
            (a, b) => a - b,
          );
          const it = storeChunksIterator(
            sources.flatMap((s) => s.chunks),
            0,
            2000,
          );
          let floor = -Infinity;
          for (const target of targets) {
            // Seeks never move backwards: the effective target is the furthest so far.
            const want = all.find((t) => t >= Math.max(target, floor));
            const r = it.seek(target);
            if (want === undefined) {
              expect(r).toBe(SAMPLE_NONE);
              return;
            }
            expect(r).toBe(SAMPLE_FLOAT);
            expect(it.atT()).toBe(want);
            floor = want;
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
