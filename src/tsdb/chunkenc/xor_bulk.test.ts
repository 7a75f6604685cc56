import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import wabt from 'wabt';
import { describe, expect, it } from 'vitest';
import { fromBits, toBits as bits } from './testing/index.js';
import { XorChunk, XorIterator } from './xor.js';
import { sampleColumns, XorBulkDecoder, xorSampleCount } from './xor_bulk.js';
import { XOR_DECODE_WASM_BASE64 } from './xor_decode_wasm.js';

/** What the general decoder reads from `bytes` within [mint, maxt], as [t, value bits]. */
function general(bytes: Uint8Array, mint: number, maxt: number): Array<[number, bigint]> {
  const it = new XorIterator(bytes);
  const out: Array<[number, bigint]> = [];
  while (it.next() !== 0) {
    const t = it.atT();
    if (t > maxt) break;
    if (t >= mint) out.push([t, bits(it.atF())]);
  }
  return out;
}

function bulk(
  decoder: XorBulkDecoder,
  bytes: Uint8Array,
  mint: number,
  maxt: number,
): Array<[number, bigint]> {
  const out = sampleColumns(xorSampleCount(bytes));
  const n = decoder.decodeInto(bytes, mint, maxt, out, 0);
  return Array.from({ length: n }, (_, i) => [out.ts[i] as number, bits(out.fs[i] as number)]);
}

describe('the WebAssembly XOR decoder', () => {
  it('is xor_decode.wat as compiled (run scripts/gen-xor-wasm.mjs after editing the .wat)', async () => {
    const source = readFileSync(new URL('xor_decode.wat', import.meta.url), 'utf8');
    const module = (await wabt()).parseWat('xor_decode.wat', source);
    module.validate();
    const compiled = Buffer.from(module.toBinary({}).buffer).toString('base64');
    module.destroy();
    expect(compiled).toBe(XOR_DECODE_WASM_BASE64);
  });

  it('decodes scrape-shaped chunks itself, exactly as the general decoder', () => {
    const decoder = new XorBulkDecoder();
    for (let s = 0; s < 50; s++) {
      const chunk = new XorChunk();
      const app = chunk.appender();
      for (let i = 0; i < 120; i++) {
        const v = Math.round((s * 977 + 50 * Math.sin(i / 17 + s)) * 1000) / 1000;
        app.append(1_795_823_970_000 + i * 15_000 + ((i * s) % 7), i === 60 ? NaN : v);
      }
      const bytes = chunk.bytes();
      expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(
        general(bytes, -Infinity, Infinity),
      );
      const mint = 1_795_823_970_000 + 15_000 * s;
      expect(bulk(decoder, bytes, mint, mint + 600_000)).toEqual(
        general(bytes, mint, mint + 600_000),
      );
    }
    expect(decoder.generalDecodes).toBe(0);
  });

  it('agrees with the general decoder on any timestamps (unordered, huge jumps) and values', () => {
    const decoder = new XorBulkDecoder();
    const sample = fc.tuple(
      fc.oneof(
        fc.maxSafeInteger(),
        fc.integer({ min: -1e6, max: 1e6 }),
        fc.integer({ min: 1.7e12, max: 1.7e12 + 1e7 }),
      ),
      fc.oneof(
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        fc.double().map(bits),
        fc.integer({ min: -1000, max: 1000 }).map((n) => bits(n)),
      ),
    );
    fc.assert(
      fc.property(
        fc.array(sample, { minLength: 1, maxLength: 150 }),
        fc.maxSafeInteger(),
        fc.maxSafeInteger(),
        (list, a, b) => {
          const chunk = new XorChunk();
          const app = chunk.appender();
          for (const [t, v] of list) app.append(t, fromBits(v));
          const bytes = chunk.bytes();
          const [mint, maxt] = a <= b ? [a, b] : [b, a];
          expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(
            general(bytes, -Infinity, Infinity),
          );
          expect(bulk(decoder, bytes, mint, maxt)).toEqual(general(bytes, mint, maxt));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads deltas of deltas at the edges of every bucket', () => {
    const decoder = new XorBulkDecoder();
    const dods = [0, 1, -1];
    // Bucket n holds -(2^(n-1)) + 1 ..= 2^(n-1); one past either end takes the next bucket
    // (past the 20-bit one, 64 bits: the general decoder's, below).
    for (const n of [14, 17, 20]) {
      const half = 2 ** (n - 1);
      dods.push(half, half - 1, -half + 1, -half + 2);
      if (n < 20) dods.push(half + 1, -half);
    }
    const chunk = new XorChunk();
    const app = chunk.appender();
    let t = 1_700_000_000_000;
    let delta = 1_000_000;
    app.append(t, 1);
    for (const [i, dod] of [0, ...dods].entries()) {
      delta += dod;
      t += delta;
      app.append(t, i);
    }
    const bytes = chunk.bytes();
    const want = general(bytes, -Infinity, Infinity);
    expect(want).toHaveLength(dods.length + 2);
    expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(want);
    expect(decoder.generalDecodes).toBe(0);
  });

  it('grows its memory for a long chunk and still reads short ones after it', () => {
    const decoder = new XorBulkDecoder();
    const long = new XorChunk();
    const app = long.appender();
    for (let i = 0; i < 20_000; i++) app.append(1_000 * i + (i % 3), Math.sqrt(i));
    const short = new XorChunk();
    short.appender().append(5, 0.5);
    for (const bytes of [short.bytes(), long.bytes(), short.bytes()]) {
      expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(
        general(bytes, -Infinity, Infinity),
      );
    }
    expect(decoder.generalDecodes).toBe(0);
  });

  it('leaves a 64-bit delta of deltas to the general decoder', () => {
    const decoder = new XorBulkDecoder();
    const chunk = new XorChunk();
    const app = chunk.appender();
    for (const t of [0, 1000, 2000, 2000 + 2 ** 40, 2001 + 2 ** 40]) app.append(t, t / 3);
    const bytes = chunk.bytes();
    expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(general(bytes, -Infinity, Infinity));
    expect(decoder.generalDecodes).toBe(1);
  });

  it('decodes several chunks in one call as it decodes each, a declined one in the middle', () => {
    const decoder = new XorBulkDecoder();
    const chunkOf = (times: readonly number[], v0: number): Uint8Array => {
      const c = new XorChunk();
      const app = c.appender();
      times.forEach((t, i) => app.append(t, v0 + Math.sin(i)));
      return c.bytes();
    };
    /** The samples of `chunks` in [mint, maxt] read in one call, as [t, value bits]. */
    const all = (chunks: readonly Uint8Array[], mint: number, maxt: number) => {
      let capacity = 3;
      for (const bytes of chunks) capacity += xorSampleCount(bytes);
      const out = sampleColumns(capacity);
      const n = decoder.decodeAllInto(chunks, mint, maxt, out, 3);
      return Array.from({ length: n - 3 }, (_, i): [number, bigint] => [
        out.ts[3 + i] as number,
        bits(out.fs[3 + i] as number),
      ]);
    };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            count: fc.integer({ min: 2, max: 150 }),
            // A 64-bit delta of deltas after `count` samples: the WebAssembly decoder
            // declines the chunk when it reads that far.
            declined: fc.boolean(),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 0, max: 1200 }),
        fc.integer({ min: 0, max: 1200 }),
        (specs, a, b) => {
          let t = 0;
          const chunks = specs.map(({ count, declined }, k) => {
            const times: number[] = [];
            for (let i = 0; i < count; i++) times.push((t += 1));
            if (declined) times.push((t += 2 ** 40));
            return chunkOf(times, k * 100);
          });
          const expected = (mint: number, maxt: number) =>
            chunks.flatMap((bytes) => general(bytes, mint, maxt));
          const before = decoder.generalDecodes;
          expect(all(chunks, -Infinity, Infinity)).toEqual(expected(-Infinity, Infinity));
          expect(decoder.generalDecodes - before).toBe(specs.filter((x) => x.declined).length);
          const [mint, maxt] = a <= b ? [a, b] : [b, a + 2 ** 41];
          expect(all(chunks, mint, maxt)).toEqual(expected(mint, maxt));
        },
      ),
      { numRuns: 300 },
    );
  });
});
