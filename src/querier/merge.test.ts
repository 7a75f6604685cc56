import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import type { SeriesSamples } from '../ingester/index.js';
import { SAMPLE_FLOAT, SAMPLE_NONE, type StorageSeries } from '../promql/index.js';
import { rawChunksFromSamples, type SeriesChunks } from '../tsdb/index.js';
import { SeriesSamplesIterator, mergeIngesterAnswers } from './merge.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function series(labels: Labels, samples: readonly (readonly [number, number])[]): SeriesSamples {
  return {
    labels,
    timestamps: Float64Array.from(samples.map((s) => s[0])),
    values: Float64Array.from(samples.map((s) => s[1])),
  };
}

/** An ingester's answer for one series: its samples as XOR chunks of `perChunk`. */
function chunked(
  labels: Labels,
  samples: readonly (readonly [number, number])[],
  perChunk = 120,
): SeriesChunks {
  const s = series(labels, samples);
  return { labels, chunks: rawChunksFromSamples(s.timestamps, s.values, perChunk) };
}

function pairs(s: StorageSeries): [number, number][] {
  const out: [number, number][] = [];
  const it = s.iterator();
  while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
  expect(it.err()).toBeNull();
  return out;
}

const ALL = [-Infinity, Infinity] as const;

describe('mergeIngesterAnswers', () => {
  it('keeps replicated samples once and interleaves the rest in time order', () => {
    const [merged] = mergeIngesterAnswers(
      [
        [
          chunked(L('a', '1'), [
            [1, 10],
            [2, 20],
            [4, 40],
          ]),
        ],
        [
          chunked(
            L('a', '1'),
            [
              [2, 20],
              [3, 30],
              [4, 40],
              [5, 50],
            ],
            2,
          ),
        ],
      ],
      ...ALL,
    );
    expect(pairs(merged!)).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
  });

  it('takes the first replica when two disagree at the same timestamp', () => {
    const [merged] = mergeIngesterAnswers(
      [[chunked(L('a', '1'), [[1, 1]])], [chunked(L('a', '1'), [[1, 2]])]],
      ...ALL,
    );
    expect(pairs(merged!)).toEqual([[1, 1]]);
  });

  it('decodes only the window: chunks reaching outside it yield none of their outside samples', () => {
    const answer = [
      chunked(
        L('a', '1'),
        [
          [10, 1],
          [20, 2],
          [30, 3],
          [40, 4],
        ],
        3,
      ),
      chunked(L('a', '2'), [[50, 5]]),
    ];
    const out = mergeIngesterAnswers([answer], 15, 35);
    expect(pairs(out[0]!)).toEqual([
      [20, 2],
      [30, 3],
    ]);
    // A series whose chunks miss the window has no samples in it.
    expect(pairs(out[1]!)).toEqual([]);
  });

  it('property: the merge of replicas is the sorted union of their timestamps', () => {
    const sampleSet = fc.uniqueArray(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 });
    fc.assert(
      fc.property(
        sampleSet,
        fc.array(fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.integer({ min: 1, max: 7 }),
        (ts, masks, perChunk) => {
          const sorted = [...ts].sort((a, b) => a - b);
          const replicas = masks
            .map((mask) => sorted.filter((_, i) => mask[i] === true))
            .filter((kept) => kept.length > 0)
            .map((kept) => [
              chunked(
                L('x', 'y'),
                kept.map((t) => [t, t * 2] as const),
                perChunk,
              ),
            ]);
          const expected = sorted.filter((_, i) => masks.some((m) => m[i] === true));
          const merged = mergeIngesterAnswers(replicas, ...ALL);
          const got = merged.length === 0 ? [] : pairs(merged[0]!);
          expect(got.map((p) => p[0])).toEqual(expected);
          expect(got.map((p) => p[1])).toEqual(expected.map((t) => t * 2));
        },
      ),
    );
  });

  it('groups series by labels across answers and sorts them', () => {
    const out = mergeIngesterAnswers(
      [
        [chunked(L('__name__', 'a'), [[1, 1]]), chunked(L('__name__', 'b'), [[1, 1]])],
        [chunked(L('__name__', 'a'), [[2, 2]]), chunked(L('__name__', 'c'), [[1, 1]])],
        [],
      ],
      ...ALL,
    );
    expect(out.map((s) => s.labels.toString())).toEqual([
      '{__name__="a"}',
      '{__name__="b"}',
      '{__name__="c"}',
    ]);
    expect(pairs(out[0]!)).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });
});

describe('SeriesSamplesIterator', () => {
  const s = series(L('a', '1'), [
    [10, 1],
    [20, 2],
    [30, 3],
    [40, 4],
  ]);

  it('walks every sample then reports the end', () => {
    const it = new SeriesSamplesIterator(s);
    const seen: number[] = [];
    while (it.next() === SAMPLE_FLOAT) seen.push(it.atT(), it.atF());
    expect(seen).toEqual([10, 1, 20, 2, 30, 3, 40, 4]);
    expect(it.next()).toBe(SAMPLE_NONE);
    expect(it.err()).toBeNull();
  });

  it('seeks forward to the first sample at or after t and never backwards', () => {
    const it = new SeriesSamplesIterator(s);
    expect(it.seek(25)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(30);
    expect(it.seek(5)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(30);
    expect(it.next()).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(40);
    expect(it.seek(41)).toBe(SAMPLE_NONE);
  });

  it('seek before the first next starts at the first sample', () => {
    const it = new SeriesSamplesIterator(s);
    expect(it.seek(-1)).toBe(SAMPLE_FLOAT);
    expect(it.atT()).toBe(10);
  });
});

describe('mergeIngesterAnswers keeping replicas (the simulator canary skip_read_dedup)', () => {
  it('keeps every replica copy of a sample, grouped per series and in time order', () => {
    const a = chunked(L('a', '1'), [
      [1, 10],
      [2, 20],
    ]);
    const b = chunked(L('a', '1'), [
      [2, 20],
      [3, 30],
    ]);
    const [merged] = mergeIngesterAnswers([[a], [b]], ...ALL, true);
    expect(pairs(merged!)).toEqual([
      [1, 10],
      [2, 20],
      [2, 20],
      [3, 30],
    ]);
    // The default merge de-duplicates the same answers.
    expect(pairs(mergeIngesterAnswers([[a], [b]], ...ALL)[0]!)).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
  });
});
