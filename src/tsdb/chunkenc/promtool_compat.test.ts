// Compatibility with chunks Prometheus itself wrote. The fixture was produced once by running
// Debian's promtool 2.42 `tsdb create-blocks-from openmetrics` on one generated series at a
// time (a jittered counter with missed scrapes; a gauge with random, tiny, subnormal, NaN,
// ±Inf, -0 and huge values; a 1s constant) and copying the chunks out of chunks/000001.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  decideFloatAppend,
  Encoding,
  MAX_BYTES_PER_XOR_CHUNK,
  ValueType,
  XorChunk,
  type ChunkCutRules,
  type OpenChunkState,
} from './index.js';

interface FixtureSeries {
  name: string;
  /** [timestamp ms, value bits as 16 hex digits] as fed to promtool. */
  samples: Array<[number, string]>;
  /** The series' chunks in the block, hex, in order. */
  chunks: string[];
}

const fixture = JSON.parse(
  readFileSync(new URL('./testdata/promtool_xor_chunks.json', import.meta.url), 'utf8'),
) as { series: FixtureSeries[] };

// promtool's block writer uses a chunk range of twice the 2h block duration.
const PROMTOOL_CHUNK_RANGE = 4 * 3600 * 1000;

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/** Decodes a chunk to [timestamp, value bits hex] pairs. */
function decode(chunk: XorChunk): Array<[number, string]> {
  const it = chunk.iterator();
  const out: Array<[number, string]> = [];
  while (it.next() === ValueType.Float) {
    f64[0] = it.atF();
    out.push([it.atT(), (u64[0] as bigint).toString(16).padStart(16, '0')]);
  }
  expect(it.err()).toBeNull();
  return out;
}

/** How decideFloatAppend splits the timestamps into chunks (sample counts per chunk). */
function partition(samples: ReadonlyArray<[number, string]>, rules: ChunkCutRules): number[] {
  const counts: number[] = [];
  let nextAt = Number.MIN_SAFE_INTEGER;
  let open: OpenChunkState | null = null;
  let chunk = new XorChunk();
  let appender = chunk.appender();
  for (const [t, bitsHex] of samples) {
    const d = decideFloatAppend(
      { openChunk: open, lastCompletedMaxTime: null, nextAt },
      t,
      Encoding.XOR,
      {
        chunkRange: PROMTOOL_CHUNK_RANGE,
        samplesPerChunk: 120,
        rules,
      },
    );
    expect(d.inOrder).toBe(true);
    nextAt = d.nextAt;
    if (d.cutNewChunk) {
      chunk = new XorChunk();
      appender = chunk.appender();
      counts.push(0);
    }
    u64[0] = BigInt(`0x${bitsHex}`);
    appender.append(t, f64[0] as number);
    counts[counts.length - 1] = (counts.at(-1) as number) + 1;
    open = {
      encoding: Encoding.XOR,
      minTime: d.chunkMinTime,
      maxTime: t,
      numSamples: chunk.numSamples(),
      numBytes: chunk.bytes().length,
    };
  }
  return counts;
}

describe.each(fixture.series)('promtool-written series $name', (series) => {
  const chunks = series.chunks.map((hex) => XorChunk.fromBytes(fromHex(hex)));

  it('decodes to exactly the samples promtool was given', () => {
    expect(chunks.flatMap(decode)).toEqual(series.samples);
  });

  it('re-encodes every chunk to the same bytes', () => {
    for (const [i, chunk] of chunks.entries()) {
      const again = new XorChunk();
      const app = again.appender();
      for (const [t, bitsHex] of decode(chunk)) {
        u64[0] = BigInt(`0x${bitsHex}`);
        app.append(t, f64[0] as number);
      }
      expect(Buffer.from(again.bytes()).toString('hex')).toBe(series.chunks[i]);
    }
  });

  it('is cut into the same chunks by the Prometheus 2.42 rules', () => {
    expect(partition(series.samples, 'v2.42')).toEqual(chunks.map((c) => c.numSamples()));
  });
});

describe('current versus 2.42 cutting rules', () => {
  it('differ where 2.42 wrote chunks beyond the 1024-byte cap', () => {
    const gauge = fixture.series.find((s) => s.name === 'gauge') as FixtureSeries;
    expect(gauge.chunks.some((hex) => hex.length / 2 > MAX_BYTES_PER_XOR_CHUNK)).toBe(true);
    const current = partition(gauge.samples, 'current');
    expect(current).not.toEqual(partition(gauge.samples, 'v2.42'));
    expect(current.reduce((a, b) => a + b, 0)).toBe(gauge.samples.length);
  });
});
