import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeChunkEndTime,
  computeChunkEndTimeV242,
  decideFloatAppend,
  DEFAULT_SAMPLES_PER_CHUNK,
  Encoding,
  MAX_BYTES_PER_XOR_CHUNK,
  rangeForTimestamp,
  XorChunk,
  type ChunkCutOptions,
  type OpenChunkState,
  type XorAppender,
} from './index.js';

const TWO_HOURS = 2 * 3600 * 1000;
const OPTIONS: ChunkCutOptions = { chunkRange: TWO_HOURS, samplesPerChunk: 120 };

interface DrivenChunk {
  chunk: XorChunk;
  appender: XorAppender;
  minTime: number;
  maxTime: number;
  timestamps: number[];
}

/** A series as the head keeps it, driven only by decideFloatAppend. */
function drive(
  timestamps: readonly number[],
  value: (i: number) => number,
  options: ChunkCutOptions = OPTIONS,
): { chunks: DrivenChunk[]; rejected: number[] } {
  const chunks: DrivenChunk[] = [];
  const rejected: number[] = [];
  let nextAt = Number.MIN_SAFE_INTEGER; // memSeries starts with math.MinInt64
  timestamps.forEach((t, i) => {
    const open = chunks.at(-1);
    const openChunk: OpenChunkState | null =
      open === undefined
        ? null
        : {
            encoding: Encoding.XOR,
            minTime: open.minTime,
            maxTime: open.maxTime,
            numSamples: open.chunk.numSamples(),
            numBytes: open.chunk.bytes().length,
          };
    const d = decideFloatAppend(
      { openChunk, lastCompletedMaxTime: null, nextAt },
      t,
      Encoding.XOR,
      options,
    );
    if (!d.inOrder) {
      rejected.push(t);
      return;
    }
    nextAt = d.nextAt;
    let target = open;
    if (d.cutNewChunk || target === undefined) {
      const chunk = new XorChunk();
      target = { chunk, appender: chunk.appender(), minTime: t, maxTime: t, timestamps: [] };
      chunks.push(target);
    }
    expect(d.chunkMinTime).toBe(target.minTime);
    target.appender.append(t, value(i));
    target.maxTime = t;
    target.timestamps.push(t);
  });
  return { chunks, rejected };
}

function regular(start: number, step: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start + i * step);
}

describe('rangeForTimestamp', () => {
  it('returns the end of the chunk range, truncating like Go integer division', () => {
    expect(rangeForTimestamp(0, TWO_HOURS)).toBe(TWO_HOURS);
    expect(rangeForTimestamp(TWO_HOURS - 1, TWO_HOURS)).toBe(TWO_HOURS);
    expect(rangeForTimestamp(TWO_HOURS, TWO_HOURS)).toBe(2 * TWO_HOURS);
    // Go: (-1 / w) = 0, so the range "ends" at w; (-w-1 / w) = -1, so it ends at 0.
    expect(rangeForTimestamp(-1, TWO_HOURS)).toBe(TWO_HOURS);
    expect(rangeForTimestamp(-TWO_HOURS - 1, TWO_HOURS)).toBe(0);
    // Exact where float division would round: 2^53-1 = 3 * 3002399751580330 + 1.
    expect(rangeForTimestamp(Number.MAX_SAFE_INTEGER, 3)).toBe(Number.MAX_SAFE_INTEGER - 1 + 3);
  });
});

describe('computeChunkEndTime', () => {
  it.each([
    // n = 1000 / (251 * 4) < 1: the range is full, end at max.
    ['exactly 1/4 full, even increment', 0, 250, 1000, 4, 1000],
    // n = 900 / (101 * 4) = 2.2 -> 2 chunks: 100 + 900 / 2.
    ['1/4 full, uneven increment', 100, 200, 1000, 4, 550],
    // n = 5000 / (111 * 4.2) = 10.7 -> 10 chunks: 5000 + 5000 / 10.
    ['decimal ratio to full', 5000, 5110, 10000, 4.2, 5500],
    // n < 1 also guards the division by floor(n) = 0.
    ['fits less than one chunk', 0, 500, 1000, 4, 1000],
    // n = 900 / 4 = 225 chunks: 100 + 900 / 225.
    ['cur == start', 100, 100, 1000, 4, 104],
  ])('%s', (_name, start, cur, maxT, ratio, expected) => {
    expect(computeChunkEndTime(start, cur, maxT, ratio)).toBe(expected);
  });
});

describe('computeChunkEndTimeV242', () => {
  it('predicts in integer arithmetic like Prometheus 2.42', () => {
    expect(computeChunkEndTimeV242(0, 250, 1000)).toBe(1000); // 1000 / 1004 = 0 chunks
    expect(computeChunkEndTimeV242(100, 200, 1000)).toBe(550); // 900 / 404 = 2
    expect(computeChunkEndTimeV242(100, 100, 1000)).toBe(104); // 900 / 4 = 225
    expect(computeChunkEndTimeV242(0, 99, 1000)).toBe(500); // 1000 / 400 = 2
    // Truncating: 1000 / 3 = 333, where the float version gives floor(3.3) = 3 as well.
    expect(computeChunkEndTimeV242(0, 74, 1000)).toBe(333);
  });
});

describe('decideFloatAppend', () => {
  it('cuts a 15s series into four chunks of 120 samples per two-hour range', () => {
    // At 30 samples (t = 435000) the end is predicted at 0 + 7200000 / floor(4.14) = 1800000;
    // each later chunk predicts the next quarter the same way.
    const { chunks } = drive(regular(0, 15000, 2 * 480), () => 1);
    expect(chunks.map((c) => c.timestamps.length)).toEqual([
      120, 120, 120, 120, 120, 120, 120, 120,
    ]);
    expect(chunks.map((c) => c.minTime)).toEqual(regular(0, 1800000, 8));
  });

  it('always cuts at the chunk-range boundary', () => {
    // 60s samples: 120 of them would cross the 2h boundary at sample 120.
    const { chunks } = drive(regular(3600000, 60000, 200), () => 1);
    expect(chunks[0]?.maxTime).toBeLessThan(TWO_HOURS);
    expect(chunks[1]?.minTime).toBe(TWO_HOURS);
  });

  it('cuts at twice the target when the sample rate rises after the prediction', () => {
    // 30 samples a minute apart predict the end at the range boundary (n = 1.03 -> 1);
    // then samples arrive every millisecond and the 2x cap cuts at 240. The next chunk
    // predicts from the new rate: n = 5399790 / (30 * 4) -> 44998 chunks of ~120.0004 ms,
    // so 120 samples each.
    const ts = [...regular(0, 60000, 30), ...regular(1800000, 1, 500)];
    const { chunks } = drive(ts, () => 1);
    expect(chunks.map((c) => c.timestamps.length)).toEqual([240, 120, 120, 50]);
  });

  it('cuts before a chunk can exceed the 1024-byte cap', () => {
    // Worst-case samples: jittered timestamps (dod +-2000: '10' + 14 bits) and values
    // alternating between bit patterns 0x5555.. and 0xaaaa.. (XOR all ones: '10' + 64 bits),
    // 82 bits each, so the byte cap comes at ~98 samples, long before 120.
    const view = new BigUint64Array(1);
    const asFloat = new Float64Array(view.buffer);
    const alternating = (i: number): number => {
      view[0] = i % 2 === 0 ? 0x5555555555555555n : 0xaaaaaaaaaaaaaaaan;
      return asFloat[0] as number;
    };
    const ts = Array.from({ length: 1000 }, (_, i) => i * 15000 + (i % 2) * 1000);
    const { chunks } = drive(ts, alternating);
    const full = chunks.slice(0, -1);
    expect(full.length).toBeGreaterThan(5);
    for (const c of full) {
      expect(c.chunk.bytes().length).toBeLessThanOrEqual(MAX_BYTES_PER_XOR_CHUNK);
      expect(c.timestamps.length).toBeLessThan(DEFAULT_SAMPLES_PER_CHUNK);
    }
    // The cut happened because the chunk passed 1024 - 19 bytes, not earlier.
    const first = full[0] as DrivenChunk;
    expect(first.chunk.bytes().length).toBeGreaterThan(MAX_BYTES_PER_XOR_CHUNK - 19);
  });

  it('reports samples at or before the newest one as out of order', () => {
    const { chunks, rejected } = drive([10, 20, 20, 15, 30], () => 1);
    expect(rejected).toEqual([20, 15]);
    expect(chunks[0]?.timestamps).toEqual([10, 20, 30]);

    const afterCompleted = decideFloatAppend(
      { openChunk: null, lastCompletedMaxTime: 100, nextAt: 0 },
      100,
      Encoding.XOR,
      OPTIONS,
    );
    expect(afterCompleted.inOrder).toBe(false);
    expect(afterCompleted.cutNewChunk).toBe(false);
  });

  it('opens a chunk for the first sample and when the encoding changes', () => {
    const first = decideFloatAppend(
      { openChunk: null, lastCompletedMaxTime: 50, nextAt: 0 },
      60,
      Encoding.XOR,
      OPTIONS,
    );
    expect(first).toEqual({
      inOrder: true,
      cutNewChunk: true,
      nextAt: TWO_HOURS,
      chunkMinTime: 60,
    });

    const histogramChunk: OpenChunkState = {
      encoding: Encoding.Histogram,
      minTime: 0,
      maxTime: 10,
      numSamples: 2,
      numBytes: 30,
    };
    const switched = decideFloatAppend(
      { openChunk: histogramChunk, lastCompletedMaxTime: null, nextAt: TWO_HOURS },
      20,
      Encoding.XOR,
      OPTIONS,
    );
    expect(switched).toEqual({
      inOrder: true,
      cutNewChunk: true,
      nextAt: TWO_HOURS,
      chunkMinTime: 20,
    });
  });

  it('never lets a chunk cross a range boundary or exceed the caps', () => {
    const timestamps = fc
      .tuple(
        fc.integer({ min: -1e10, max: 1e10 }),
        fc.array(fc.integer({ min: 1, max: 400000 }), { maxLength: 800 }),
      )
      .map(([start, steps]) => {
        const ts = [start];
        for (const s of steps) ts.push((ts[ts.length - 1] as number) + s);
        return ts;
      });
    fc.assert(
      fc.property(timestamps, fc.boolean(), (ts, randomValues) => {
        const { chunks, rejected } = drive(ts, (i) => (randomValues ? Math.sin(i) * 1e6 : i));
        expect(rejected).toEqual([]);
        expect(chunks.flatMap((c) => c.timestamps)).toEqual(ts);
        for (const c of chunks) {
          expect(c.maxTime).toBeLessThan(rangeForTimestamp(c.minTime, TWO_HOURS));
          expect(c.timestamps.length).toBeLessThanOrEqual(2 * DEFAULT_SAMPLES_PER_CHUNK);
          expect(c.chunk.bytes().length).toBeLessThanOrEqual(MAX_BYTES_PER_XOR_CHUNK);
        }
      }),
      { numRuns: 100 },
    );
  });
});
