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
  // NULs inside values: packed string by string, not as the joined form alone.
  Labels.fromStrings('a', 'x\u0000y', 'b', '\u0000', 'c', ''),
  Labels.fromStrings('trailing', ''),
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
    expect(output.every((s, i) => s.labels.equals(SETS[i] as Labels))).toBe(true);
    expect(output.map((s) => s.labels.joined())).toEqual(SETS.map((l) => l.joined()));
    expect(output.map(samples)).toEqual(input.map(samples));
    expect(decodeSeriesSet((await encodeSeriesSet([])).set)).toEqual([]);
  });

  it('refers to chunks in shared memory in place and copies only the others', async () => {
    const plain = SETS.map(series);
    // The same chunks with their bytes in two shared blocks (as the head keeps them).
    const blocks = [new SharedArrayBuffer(4096), new SharedArrayBuffer(4096)];
    const used = [0, 0];
    const inShared = (data: Uint8Array, block: number): Uint8Array => {
      const view = new Uint8Array(blocks[block] as SharedArrayBuffer, used[block], data.length);
      view.set(data);
      used[block] = (used[block] as number) + data.length;
      return view;
    };
    let copiedBytes = 0;
    const mixed = SETS.map((labels, i) => {
      const chunks = rawChunksFromSamples([1000 * i, 1000 * i + 500], [i, i + 0.5]).map((c) => {
        if (i === 3) {
          copiedBytes += c.data.length;
          return c;
        }
        return { ...c, data: inShared(c.data, i % 2) };
      });
      return storeSeriesToStorageSeries({ labels, chunks }, 0, 1_000_000);
    });
    const { set, transfer } = await encodeSeriesSet(mixed);
    expect(set.shared).toEqual(blocks);
    expect(set.shared[0]).toBe(blocks[0]);
    expect(set.bytes.byteLength).toBe(copiedBytes);
    // Shared blocks cross by reference: they are never in the transfer list.
    expect(transfer.some((b) => (b as ArrayBufferLike) instanceof SharedArrayBuffer)).toBe(false);
    const output = decodeSeriesSet(set);
    expect(output.map(samples)).toEqual(plain.map(samples));
    expect(output.map((s) => s.labels.toString())).toEqual(SETS.map((l) => l.toString()));
    // Through a real structured clone, as a worker receives it.
    expect(decodeSeriesSet(structuredClone(set)).map(samples)).toEqual(plain.map(samples));
  });

  it('packs the same set when it pauses between series', async () => {
    const input = SETS.map(series);
    const pause = countingPause();
    const sliced = await encodeSeriesSet(input, pause);
    expect(pause.pauses).toBe(input.length);
    expect(sliced.set).toEqual((await encodeSeriesSet(input)).set);
    expect(decodeSeriesSet(sliced.set).map(samples)).toEqual(input.map(samples));
  });

  it('reads a series of several overlapping chunks as the querier does, by every read', async () => {
    // Two copies of one series (replicas), one cut every 7 samples and one every 11, plus a
    // chunk of later samples: three lanes, merged keeping each timestamp once.
    const ts = Array.from({ length: 40 }, (_, i) => 1000 * i);
    const fs = ts.map((t) => t / 7);
    const chunks = [
      ...rawChunksFromSamples(ts, fs, 7),
      ...rawChunksFromSamples(ts, fs, 11),
      ...rawChunksFromSamples([50_000, 51_000], [1, 2]),
    ];
    const plain = storeSeriesToStorageSeries({ labels: SETS[0] as Labels, chunks }, 3_000, 50_500);
    const [packed] = decodeSeriesSet((await encodeSeriesSet([plain])).set) as [StorageSeries];
    const walk = (s: StorageSeries): number[][] => {
      const it = s.iterator();
      const out: number[][] = [];
      while (it.next() !== 0) out.push([it.atT(), it.atF()]);
      return out;
    };
    expect(walk(packed)).toEqual(walk(plain));
    expect(walk(packed)).toHaveLength(38); // 3 s to 39 s, and 50 s
    for (const [start, end] of [
      [-Infinity, Infinity],
      [10_000, 20_000],
      [39_500, 60_000],
    ] as const) {
      const got = packed.samples!(start, end);
      const want = plain.samples!(start, end);
      expect([...got.ts]).toEqual([...want.ts]);
      expect([...got.fs]).toEqual([...want.fs]);
      expect([...packed.newest!(start, end).ts]).toEqual([...plain.newest!(start, end).ts]);
    }
    // A second walk reads the same (the lanes are worked out once and kept).
    expect(walk(packed)).toEqual(walk(plain));
    const enc = packed.encoded!;
    expect([enc.mint, enc.maxt]).toEqual([3_000, 50_500]);
    expect(enc.chunks.map((c) => [c.minTime, c.maxTime, [...c.data]])).toEqual(
      chunks.map((c) => [c.minTime, c.maxTime, [...c.data]]),
    );
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
