import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import type { SeriesSamples } from '../ingester/index.js';
import { SAMPLE_FLOAT, SAMPLE_NONE } from '../promql/index.js';
import { SeriesSamplesIterator, mergeSamples, mergeSeriesSets } from './merge.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function series(labels: Labels, samples: readonly (readonly [number, number])[]): SeriesSamples {
  return {
    labels,
    timestamps: Float64Array.from(samples.map((s) => s[0])),
    values: Float64Array.from(samples.map((s) => s[1])),
  };
}

function pairs(s: SeriesSamples): [number, number][] {
  return [...s.timestamps].map((t, i) => [t, s.values[i] as number]);
}

describe('mergeSamples', () => {
  it('keeps replicated samples once and interleaves the rest in time order', () => {
    const merged = mergeSamples([
      series(L('a', '1'), [
        [1, 10],
        [2, 20],
        [4, 40],
      ]),
      series(L('a', '1'), [
        [2, 20],
        [3, 30],
        [4, 40],
        [5, 50],
      ]),
    ]);
    expect(pairs(merged)).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
      [4, 40],
      [5, 50],
    ]);
  });

  it('takes the first replica when two disagree at the same timestamp', () => {
    const merged = mergeSamples([series(L('a', '1'), [[1, 1]]), series(L('a', '1'), [[1, 2]])]);
    expect(pairs(merged)).toEqual([[1, 1]]);
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
        (ts, masks) => {
          const sorted = [...ts].sort((a, b) => a - b);
          const replicas = masks.map((mask) =>
            series(
              L('x', 'y'),
              sorted.filter((_, i) => mask[i] === true).map((t) => [t, t * 2] as const),
            ),
          );
          const expected = sorted.filter((_, i) => masks.some((m) => m[i] === true));
          const merged = mergeSamples(replicas);
          expect([...merged.timestamps]).toEqual(expected);
          expect([...merged.values]).toEqual(expected.map((t) => t * 2));
        },
      ),
    );
  });
});

describe('mergeSeriesSets', () => {
  it('groups series by labels across answers and sorts them', () => {
    const out = mergeSeriesSets([
      [series(L('__name__', 'b'), [[1, 1]]), series(L('__name__', 'a'), [[1, 1]])],
      [series(L('__name__', 'a'), [[2, 2]]), series(L('__name__', 'c'), [[1, 1]])],
      [],
    ]);
    expect(out.map((s) => s.labels.toString())).toEqual([
      '{__name__="a"}',
      '{__name__="b"}',
      '{__name__="c"}',
    ]);
    expect(pairs(out[0] as SeriesSamples)).toEqual([
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

describe('mergeSeriesSets keeping replicas (the simulator canary skip_read_dedup)', () => {
  it('keeps every replica copy of a sample, grouped per series and in time order', () => {
    const a = series(L('a', '1'), [
      [1, 10],
      [2, 20],
    ]);
    const b = series(L('a', '1'), [
      [2, 20],
      [3, 30],
    ]);
    const [merged] = mergeSeriesSets([[a], [b]], true);
    expect(pairs(merged!)).toEqual([
      [1, 10],
      [2, 20],
      [2, 20],
      [3, 30],
    ]);
    // The default merge de-duplicates the same answers.
    expect(pairs(mergeSeriesSets([[a], [b]])[0]!)).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
  });
});
