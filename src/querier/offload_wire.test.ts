// What crosses to and from an evaluation worker: series sets and results keep their label
// sets exactly (packed into one string and cut points), whatever characters they hold.
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { Annotations, type QueryResult, type StorageSeries } from '../promql/index.js';
import { countingPause } from '../runtime/testing/index.js';
import { rawChunksFromSamples } from '../tsdb/index.js';
import { storeSeriesToStorageSeries } from './chunk_series.js';
import { decodeResult, decodeSeriesSet, encodeResult, encodeSeriesSet } from './offload_wire.js';

const SETS = [
  Labels.fromStrings('__name__', 'up', 'job', 'a'),
  Labels.fromStrings('__name__', 'up', 'emoji', '🙂 ü', 'empty', ''),
  Labels.EMPTY,
  Labels.fromStrings('x', 'y'.repeat(1000)),
];

function series(labels: Labels, i: number): StorageSeries {
  const chunks = rawChunksFromSamples([1000 * i, 1000 * i + 500], [i, i + 0.5]);
  return storeSeriesToStorageSeries({ labels, chunks }, 0, 1_000_000);
}

function samples(s: StorageSeries): number[][] {
  const { ts, fs } = s.samples!(-Infinity, Infinity);
  return Array.from(ts, (t, i) => [t, fs[i] as number]);
}

describe('the worker wire', () => {
  it('carries series sets with their labels and chunks', async () => {
    const input = SETS.map(series);
    const { set } = await encodeSeriesSet(input);
    const output = decodeSeriesSet(set);
    expect(output.map((s) => s.labels.toString())).toEqual(SETS.map((l) => l.toString()));
    expect(output.map(samples)).toEqual(input.map(samples));
    expect(decodeSeriesSet((await encodeSeriesSet([])).set)).toEqual([]);
  });

  it('packs the same set when it pauses between series', async () => {
    const input = SETS.map(series);
    const pause = countingPause();
    const sliced = await encodeSeriesSet(input, pause);
    expect(pause.pauses).toBe(input.length);
    expect(sliced.set).toEqual((await encodeSeriesSet(input)).set);
    expect(decodeSeriesSet(sliced.set).map(samples)).toEqual(input.map(samples));
  });

  it('carries results with their label sets', () => {
    const result: QueryResult = {
      value: {
        type: 'vector',
        vector: SETS.map((metric, i) => ({
          metric,
          t: 5,
          f: i,
          ...(i === 1 ? { dropName: true } : {}),
        })),
      },
      annotations: new Annotations(),
      stats: { totalQueryableSamples: 4, peakSamples: 4, engine: 'prometheus' },
    };
    const back = decodeResult(encodeResult(result).result);
    expect(back.value).toEqual(result.value);
  });
});
