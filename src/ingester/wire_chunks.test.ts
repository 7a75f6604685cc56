import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { RpcError } from '../runtime/index.js';
import { countingPause } from '../runtime/testing/index.js';
import { rawChunksFromSamples, type SeriesChunks } from '../tsdb/index.js';
import { decodeSeriesChunks, encodeSeriesChunks } from './wire_chunks.js';

/** The documented layout, built independently: u32 counts and lengths, UTF-8, f64, u8, LE. */
function layout(series: readonly SeriesChunks[]): Uint8Array {
  const parts: number[] = [];
  const num = (v: number, size: 4 | 8): void => {
    const b = new Uint8Array(size);
    const view = new DataView(b.buffer);
    if (size === 4) view.setUint32(0, v, true);
    else view.setFloat64(0, v, true);
    parts.push(...b);
  };
  num(series.length, 4);
  for (const s of series) {
    num(s.labels.length, 4);
    s.labels.forEach((name, value) => {
      for (const str of [name, value]) {
        const bytes = new TextEncoder().encode(str);
        num(bytes.length, 4);
        parts.push(...bytes);
      }
    });
    num(s.chunks.length, 4);
    for (const c of s.chunks) {
      num(c.minTime, 8);
      num(c.maxTime, 8);
      parts.push(c.encoding);
      num(c.data.length, 4);
      parts.push(...c.data);
    }
  }
  return Uint8Array.from(parts);
}

const SERIES: SeriesChunks[] = [
  {
    labels: Labels.fromStrings('__name__', 'up', 'job', 'nöde'),
    chunks: rawChunksFromSamples([1_000, 2_000, 3_000], [1, Number.NaN, -0.5], 2),
  },
  { labels: Labels.fromStrings('__name__', 'empty'), chunks: [] },
];

describe('ingester.QueryStream chunk wire format', () => {
  it('encodes the documented layout and decodes it back', async () => {
    const bytes = await encodeSeriesChunks(SERIES);
    expect([...bytes]).toEqual([...layout(SERIES)]);
    const back = decodeSeriesChunks(bytes);
    expect(back.map((s) => s.labels.toString())).toEqual(SERIES.map((s) => s.labels.toString()));
    expect(back[0]?.chunks.map((c) => [c.minTime, c.maxTime, c.encoding, [...c.data]])).toEqual(
      SERIES[0]?.chunks.map((c) => [c.minTime, c.maxTime, c.encoding, [...c.data]]),
    );
    expect(decodeSeriesChunks(await encodeSeriesChunks([]))).toEqual([]);
  });

  it('rejects truncated and over-long answers as internal errors naming the byte', async () => {
    const bytes = await encodeSeriesChunks(SERIES);
    const cut = (): unknown => decodeSeriesChunks(bytes.subarray(0, bytes.length - 30));
    expect(cut).toThrow(RpcError);
    expect(cut).toThrow(/truncated at byte \d+/);
    const longer = new Uint8Array(bytes.length + 3);
    longer.set(bytes);
    expect(() => decodeSeriesChunks(longer)).toThrow(/3 trailing bytes/);
  });

  it('writes the same bytes when it pauses between series', async () => {
    const pause = countingPause();
    const sliced = await encodeSeriesChunks(SERIES, pause);
    expect(pause.pauses).toBe(SERIES.length);
    expect([...sliced]).toEqual([...(await encodeSeriesChunks(SERIES))]);
  });
});
