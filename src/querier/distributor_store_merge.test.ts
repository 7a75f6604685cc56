// Merging the ingesters' series with the store-gateways': one series per label set in label
// order, every timestamp once, checked against the model for random overlapping inputs.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { SAMPLE_FLOAT, type StorageSeries } from '../promql/index.js';
import { xorChunks, type Sample } from './blocks_fakes.testing.js';
import { storeSeriesToStorageSeries } from './chunk_series.js';
import { mergeStorageSeries } from './distributor_store_merge.js';
import { toStorageSeries } from './merge.js';

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);

function samplesOf(s: StorageSeries): [number, number][] {
  const out: [number, number][] = [];
  const it = s.iterator();
  while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
  return out;
}

function ingesterSeries(labels: Labels, samples: readonly Sample[]): StorageSeries {
  return toStorageSeries({
    labels,
    timestamps: Float64Array.from(samples.map((s) => s[0])),
    values: Float64Array.from(samples.map((s) => s[1])),
  });
}

function storeSeries(labels: Labels, samples: readonly Sample[], mint: number, maxt: number) {
  return storeSeriesToStorageSeries({ labels, chunks: xorChunks(samples, 7) }, mint, maxt);
}

describe('mergeStorageSeries', () => {
  it('unions label sets in order and merges shared ones', () => {
    const a = L('__name__', 'a');
    const b = L('__name__', 'b');
    const c = L('__name__', 'c');
    const merged = mergeStorageSeries([
      [
        storeSeries(
          a,
          [
            [1, 1],
            [2, 2],
          ],
          0,
          10,
        ),
        storeSeries(c, [[5, 5]], 0, 10),
      ],
      [
        ingesterSeries(a, [
          [2, 2],
          [3, 3],
        ]),
        ingesterSeries(b, [[4, 4]]),
      ],
    ]);
    expect(merged.map((s) => s.labels.get('__name__'))).toEqual(['a', 'b', 'c']);
    expect(samplesOf(merged[0]!)).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);
  });

  it('keeps the earlier list’s sample when two disagree at one timestamp', () => {
    const a = L('__name__', 'a');
    const merged = mergeStorageSeries([
      [ingesterSeries(a, [[1, 10]])],
      [ingesterSeries(a, [[1, 20]])],
    ]);
    expect(samplesOf(merged[0]!)).toEqual([[1, 10]]);
  });

  it('ingester and store overlap: every sample once (property)', () => {
    const samplesArb = fc
      .uniqueArray(fc.integer({ min: 0, max: 500 }), { maxLength: 40 })
      .map((ts) => [...ts].sort((x, y) => x - y).map((t): Sample => [t, t + 0.25]));
    fc.assert(
      fc.property(
        fc.array(samplesArb, { minLength: 1, maxLength: 3 }),
        fc.array(samplesArb, { minLength: 1, maxLength: 3 }),
        (storeCopies, ingesterCopies) => {
          const labels = L('__name__', 'm');
          const stores = storeCopies
            .filter((s) => s.length > 0)
            .map((s) => storeSeries(labels, s, 0, 500));
          const ingesters = ingesterCopies
            .filter((s) => s.length > 0)
            .map((s) => ingesterSeries(labels, s));
          const merged = mergeStorageSeries([
            mergeStorageSeries(stores.map((s) => [s])),
            mergeStorageSeries(ingesters.map((s) => [s])),
          ]);
          const model = [...new Set([...storeCopies, ...ingesterCopies].flat().map(([t]) => t))]
            .sort((x, y) => x - y)
            .map((t) => [t, t + 0.25]);
          if (model.length === 0) expect(merged).toHaveLength(0);
          else expect(samplesOf(merged[0]!)).toEqual(model);
        },
      ),
      { numRuns: 200 },
    );
  });
});
