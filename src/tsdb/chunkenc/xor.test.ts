import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DecodeError } from '../encoding/index.js';
import {
  chunkFromData,
  Encoding,
  sampleColumns,
  ValueType,
  XorBulkDecoder,
  XorChunk,
  XorIterator,
  xorSampleCount,
  type Chunk,
  type ChunkIterator,
} from './index.js';
import { fromBits, toBits } from './testing/index.js';

const STALE_NAN_BITS = 0x7ff0000000000002n;

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function encode(samples: ReadonlyArray<readonly [number, number]>): XorChunk {
  const chunk = new XorChunk();
  const app = chunk.appender();
  for (const [t, v] of samples) app.append(t, v);
  return chunk;
}

/** Decodes every sample as [timestamp, value bits]. */
function decodeBits(chunk: Chunk, reuse?: ChunkIterator): Array<[number, bigint]> {
  const it = chunk.iterator(reuse);
  const out: Array<[number, bigint]> = [];
  while (it.next() === ValueType.Float) out.push([it.atT(), toBits(it.atF())]);
  expect(it.err()).toBeNull();
  return out;
}

function encodeBits(chunk: XorChunk, list: ReadonlyArray<readonly [number, bigint]>): void {
  const app = chunk.appender();
  for (const [t, bits] of list) app.append(t, fromBits(bits));
}

describe('XOR chunk golden bytes', () => {
  it('encodes one sample as header, varint timestamp and raw value bits', () => {
    // 00 01: one sample. 1000 zig-zags to 2000 = 0b1111_1010000 -> d0 0f.
    // 1.0 = 0x3ff0000000000000. Prometheus's bstream writes whole bytes with writeByte, which
    // always appends the next byte, so a chunk ending on a whole byte has a trailing 00.
    expect(hex(encode([[1000, 1]]).bytes())).toBe('0001d00f3ff0000000000000' + '00');
    // -1 zig-zags to 1; 0.0 is all zero bits.
    expect(hex(encode([[-1, 0]]).bytes())).toBe('0001010000000000000000' + '00');
  });

  it('encodes value XORs with new and reused leading/trailing windows', () => {
    const chunk = encode([
      [1000, 1],
      [1015, 1],
      [1030, 2],
      [1045, 3],
      [1060, 2],
    ]);
    // 0005 header, d00f t0=1000, 3ff0.. v0=1.0, 0f delta 15 (uvarint), then bits:
    //  s1 value unchanged                          0
    //  s2 dod 0                                    0
    //     2.0^1.0 = 0x7ff0..: leading 1, trailing 52, 11 significant bits, no window yet:
    //     '11' + 00001 + 001011 + 11111111111
    //  s3 dod 0                                    0
    //     3.0^2.0 = 0x0008..: leading 12, trailing 51 < 52, so a new window:
    //     '11' + 01100 + 000001 + 1
    //  s4 dod 0                                    0
    //     2.0^3.0 = same delta, fits the window (12 >= 12, 51 >= 51): '10' + 1
    // 0 0 11 00001 001011 11111111111 0 11 01100 000001 1 0 10 1 (+3 padding bits)
    // = 00110000 10010111 11111111 11011011 00000001 10101000 = 30 97 ff db 01 a8
    expect(hex(chunk.bytes())).toBe('0005d00f3ff00000000000000f3097ffdb01a8');
    expect(chunk.numSamples()).toBe(5);
  });

  it('encodes delta-of-delta in the 14-bit bucket, positive and negative', () => {
    const chunk = encode([
      [0, 0],
      [10, 0],
      [20, 0],
      [35, 0],
      [36, 0],
    ]);
    // 0005, 00 (t0=0), 8x00 (v0=0.0), 0a (delta 10), then bits:
    //  s1 value 0 | s2 dod 0, value 0 | s3 dod 15-10=5: '10' + 00000000000101, value 0
    //  s4 dod 1-15=-14: '10' + (-14 & 0x3fff = 11111111110010), value 0
    // 000 10 00000000000101 0 10 11111111110010 0 (+3 padding)
    // = 00010000 00000000 10101011 11111111 00100000 = 10 00 ab ff 20
    expect(hex(chunk.bytes())).toBe('00050000000000000000000a1000abff20');
  });

  it('encodes a delta-of-delta beyond 20 bits as 1111 plus 64 bits', () => {
    const chunk = encode([
      [0, 0],
      [1, 0],
      [1000002, 0],
    ]);
    // 0003, 00, 8x00, 01 (delta 1), then: s1 value '0'; s2 dod = 1000001 - 1 = 1000000
    // = 0xf4240, beyond 2^19: '1111' + 44 zero bits + 11110100001001000000, value '0'.
    // 01111000 00000000 x4 00000000 01111010 00010010 00000000 = 78 00 00 00 00 00 7a 12 00
    expect(hex(chunk.bytes())).toBe('0003000000000000000000017800000000007a1200');
  });
});

describe('XOR chunk decoding', () => {
  it('preserves the stale-marker NaN and other special values bit for bit', () => {
    const specials = [
      STALE_NAN_BITS,
      0x7ff8000000000001n, // quiet NaN with a payload
      0xfff0000000000001n, // negative signalling NaN
      toBits(Infinity),
      toBits(-Infinity),
      0x8000000000000000n, // -0
      1n, // smallest subnormal
      0x000fffffffffffffn, // largest subnormal
      toBits(Number.MAX_VALUE),
      STALE_NAN_BITS,
    ];
    // Values travel as bits up to the appender: V8 quiets a signalling NaN (such as the stale
    // marker) stored in a plain JS array of doubles, so such arrays must never hold values.
    const list = specials.map((bits, i) => [i * 15000, bits] as [number, bigint]);
    const chunk = new XorChunk();
    encodeBits(chunk, list);
    expect(decodeBits(chunk)).toEqual(list);
  });

  it('iterates an empty chunk without samples or errors', () => {
    const chunk = new XorChunk();
    expect(hex(chunk.bytes())).toBe('0000');
    expect(chunk.numSamples()).toBe(0);
    const it = chunk.iterator();
    expect(it.next()).toBe(ValueType.None);
    expect(it.seek(0)).toBe(ValueType.None);
    expect(it.err()).toBeNull();
  });

  it('seeks forward only, to the first sample at or after t', () => {
    const chunk = encode([
      [10, 1],
      [20, 2],
      [30, 3],
    ]);
    const it = chunk.iterator();
    expect(it.seek(15)).toBe(ValueType.Float);
    expect(it.at()).toEqual({ t: 20, v: 2 });
    expect(it.seek(5)).toBe(ValueType.Float); // never moves backwards
    expect(it.atT()).toBe(20);
    expect(it.seek(30)).toBe(ValueType.Float);
    expect(it.at()).toEqual({ t: 30, v: 3 });
    expect(it.seek(31)).toBe(ValueType.None);
    expect(it.err()).toBeNull();

    const fresh = chunk.iterator();
    expect(fresh.seek(-100)).toBe(ValueType.Float); // a fresh iterator moves to the first sample
    expect(fresh.at()).toEqual({ t: 10, v: 1 });
    expect(fresh.next()).toBe(ValueType.Float);
    expect(fresh.atT()).toBe(20);
  });

  it('reports truncated data through err() with a DecodeError', () => {
    const bytes = encode([
      [0, 1],
      [15, 2.5],
      [30, 7.25],
    ]).bytes();
    const truncated = bytes.slice(0, bytes.length - 2);
    const it = chunkFromData(Encoding.XOR, truncated).iterator();
    let read = 0;
    while (it.next() === ValueType.Float) read++;
    expect(read).toBeLessThan(3);
    expect(it.err()).toBeInstanceOf(DecodeError);
    expect(it.err()?.message).toMatch(/at offset \d+/);
  });

  it('rejects chunk bytes shorter than the header and unsupported encodings', () => {
    expect(() => chunkFromData(Encoding.XOR, new Uint8Array(1))).toThrow(/too short: 1 bytes/);
    expect(() => chunkFromData(Encoding.Histogram, new Uint8Array(3))).toThrow(/histogram/);
    expect(() => chunkFromData(9, new Uint8Array(3))).toThrow(/invalid chunk encoding 9/);
  });

  it('reuses an iterator across chunks', () => {
    const a = encode([
      [1, 1],
      [2, 2],
    ]);
    const b = encode([[5, 5]]);
    const it = a.iterator();
    expect(decodeBits(a, it)).toHaveLength(2);
    expect(decodeBits(b, it)).toEqual([[5, toBits(5)]]);
  });

  it('refuses non-integer timestamps and a 65536th sample', () => {
    const app = new XorChunk().appender();
    expect(() => app.append(1.5, 0)).toThrow(/safe integer, got 1.5/);
    expect(() => app.append(2 ** 53, 0)).toThrow(/safe integer/);
    for (let i = 0; i < 0xffff; i++) app.append(i, 0);
    expect(() => app.append(0xffff, 0)).toThrow(/already holds 65535 samples/);
  });
});

// Timestamps: strictly increasing safe integers, either arbitrary (huge jumps, negatives)
// or scrape-like (regular steps with jitter).
const arbitraryTimestamps = fc
  .uniqueArray(fc.maxSafeInteger(), { minLength: 0, maxLength: 200 })
  .map((ts) => ts.sort((a, b) => a - b));
const scrapeTimestamps = fc
  .tuple(
    fc.integer({ min: -1e12, max: 1e13 }),
    fc.array(fc.oneof(fc.constant(15000), fc.integer({ min: 1, max: 20000 })), {
      maxLength: 300,
    }),
  )
  .map(([start, steps]) => {
    const ts = [start];
    for (const step of steps) ts.push((ts[ts.length - 1] as number) + step);
    return ts;
  });
const valueBits = fc.oneof(
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  fc.double().map(toBits),
  fc.integer({ min: -1000, max: 1000 }).map((n) => toBits(n)),
  fc.constantFrom(
    STALE_NAN_BITS,
    toBits(NaN),
    toBits(Infinity),
    toBits(-Infinity),
    toBits(-0),
    1n,
    0n,
  ),
);
const samples = fc
  .oneof(arbitraryTimestamps, scrapeTimestamps)
  .chain((ts) =>
    fc
      .array(valueBits, { minLength: ts.length, maxLength: ts.length })
      .map((vs) => ts.map((t, i) => [t, vs[i] as bigint] as [number, bigint])),
  );

describe('XOR chunk properties', () => {
  it('decodes exactly the timestamps and value bits that were appended', () => {
    fc.assert(
      fc.property(samples, (list) => {
        const chunk = new XorChunk();
        encodeBits(chunk, list);
        expect(chunk.numSamples()).toBe(list.length);
        expect(decodeBits(chunk)).toEqual(list);
        // Decoding from the bare bytes gives the same.
        const copy = chunkFromData(Encoding.XOR, chunk.bytes().slice());
        expect(decodeBits(copy)).toEqual(list);
      }),
      { numRuns: 300 },
    );
  });

  it('continues a chunk rebuilt from bytes exactly as if never interrupted', () => {
    fc.assert(
      fc.property(samples, fc.nat(), (list, cut) => {
        const split = list.length === 0 ? 0 : cut % (list.length + 1);
        const whole = new XorChunk();
        encodeBits(whole, list);

        const first = new XorChunk();
        encodeBits(first, list.slice(0, split));
        const resumed = XorChunk.fromBytes(first.bytes().slice());
        encodeBits(resumed, list.slice(split));
        expect(decodeBits(resumed)).toEqual(list);
        // Like Prometheus (xor.go takes the window from the iterator), an appender resumed
        // before any value change starts from a zero leading/trailing window instead of
        // "none"; only then may the bytes differ from an uninterrupted encoding.
        const windowOpened = list
          .slice(1, split)
          .some(([, bits], i) => bits !== (list[i] as [number, bigint])[1]);
        if (split === 0 || windowOpened) expect(hex(resumed.bytes())).toBe(hex(whole.bytes()));
      }),
      { numRuns: 200 },
    );
  });

  it('seek lands on the first sample at or after t', () => {
    fc.assert(
      fc.property(samples, fc.maxSafeInteger(), (list, target) => {
        const chunk = new XorChunk();
        encodeBits(chunk, list);
        const it = chunk.iterator();
        const expected = list.find(([t]) => t >= target);
        if (expected === undefined) {
          expect(it.seek(target)).toBe(ValueType.None);
        } else {
          expect(it.seek(target)).toBe(ValueType.Float);
          expect([it.atT(), toBits(it.atF())]).toEqual(expected);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('XOR appender resumed before the first value change', () => {
  it('reuses the zero window as Prometheus does, and still decodes correctly', () => {
    const first = encode([[0, 0]]);
    const resumed = XorChunk.fromBytes(first.bytes().slice());
    resumed.appender().append(1, 1);
    // 0002, 00, 8x00, 01 (delta 1), then value 1.0 (0x3ff0..) against window (0 leading,
    // 0 trailing): '1' changed, '0' reuse window, then all 64 bits:
    // 10 0011111111110000... = 8f fc 00 00 00 00 00 00 00 (2 + 64 bits, 6 padding)
    expect(hex(resumed.bytes())).toBe('000200000000000000000001' + '8ffc' + '00'.repeat(7));
    // A fresh appender instead opens a window: '11' + 00010 + 001010 + 1111111111 (10 bits).
    expect(
      hex(
        encode([
          [0, 0],
          [1, 1],
        ]).bytes(),
      ),
    ).toBe('000200000000000000000001c457fe');
    expect(decodeBits(resumed)).toEqual([
      [0, 0n],
      [1, toBits(1)],
    ]);
  });
});

describe('XOR timestamps at the edges of the safe range', () => {
  const MIN = Number.MIN_SAFE_INTEGER;
  const MAX = Number.MAX_SAFE_INTEGER;

  it.each([
    ['a first delta beyond 2^53', [MIN, MAX - 1, MAX]],
    ['a delta-of-delta beyond 2^53', [MIN, 0, MAX]],
    ['a delta beyond 2^53 after regular ones', [MIN, MIN + 15, MIN + 30, MAX, MAX]],
    ['decreasing timestamps (wrapped uint64 delta)', [10, 5, 7, -3, 100]],
  ] as Array<[string, number[]]>)('round-trips %s', (_name, ts) => {
    const list = ts.map((t, i) => [t, BigInt(i)] as [number, bigint]);
    const chunk = new XorChunk();
    encodeBits(chunk, list);
    expect(decodeBits(chunk)).toEqual(list);
    const resumed = XorChunk.fromBytes(chunk.bytes().slice());
    resumed.appender().append(MAX, 0);
    expect(decodeBits(resumed)).toEqual([...list, [MAX, 0n]]);
  });

  it('writes a negative first delta as the 10-byte uvarint of its uint64 wrap', () => {
    // t0 = 10 (varint 14), delta -5 -> uint64 2^64-5 = fb ff ff ff ff ff ff ff ff 01.
    const bytes = encode([
      [10, 0],
      [5, 0],
    ]).bytes();
    expect(hex(bytes)).toBe('0002' + '14' + '00'.repeat(8) + 'fb' + 'ff'.repeat(8) + '01' + '00');
  });
});

describe('XorChunk sizes without views', () => {
  it('reports numBytes and numSamples equal to the encoded bytes, for built and wrapped chunks', () => {
    const c = new XorChunk();
    const app = c.appender();
    for (let i = 0; i < 300; i++) {
      app.append(1_000 * i, i % 7 === 0 ? Math.PI * i : i);
      expect(c.numBytes()).toBe(c.bytes().length);
      expect(c.numSamples()).toBe(i + 1);
    }
    const wrapped = XorChunk.fromBytes(c.bytes().slice());
    expect(wrapped.numBytes()).toBe(c.bytes().length);
    expect(wrapped.numSamples()).toBe(300);
  });
});

describe('XOR chunk written into a spare buffer', () => {
  // Timestamps with every delta-of-delta bucket and values with repeated, windowed and new
  // windows, as value bits (NaN payloads included).
  const samples = fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constant(15_000),
          fc.integer({ min: 1, max: 20_000 }),
          fc.integer({ min: 1, max: 2_000_000 }),
          fc.integer({ min: 1, max: 2 ** 40 }),
        ),
        fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })),
      ),
      { minLength: 1, maxLength: 300 },
    )
    .map((steps) => {
      let t = 1_700_000_000_000;
      return steps.map(([dt, bits]): [number, bigint] => [(t += dt), bits]);
    });

  it('writes the same bytes as a fresh chunk, whatever the buffer held', () => {
    fc.assert(
      fc.property(samples, (list) => {
        const fresh = new XorChunk();
        encodeBits(fresh, list);
        const dirty = new Uint8Array(512).fill(0xa5);
        const reused = new XorChunk(undefined, dirty);
        encodeBits(reused, list);
        expect(hex(reused.bytes())).toBe(hex(fresh.bytes()));
        expect(reused.numSamples()).toBe(list.length);
        expect(decodeBits(reused)).toEqual(list);
      }),
      { numRuns: 100 },
    );
  });

  it('compact() keeps the bytes and hands back the buffer written so far', () => {
    const c = new XorChunk();
    encodeBits(c, [
      [1, 1n],
      [2, 5n],
      [3, 5n],
    ]);
    const before = hex(c.bytes());
    const spare = c.compact();
    expect(spare).toBeInstanceOf(Uint8Array);
    expect(hex(c.bytes())).toBe(before);
    expect(c.bytes().buffer).not.toBe(spare?.buffer);
    // Writing a new chunk into it leaves the compacted chunk alone.
    const next = new XorChunk(undefined, spare);
    encodeBits(next, [[10, 7n]]);
    expect(hex(c.bytes())).toBe(before);
    expect(c.compact()).toBeUndefined(); // already exact
  });

  it('resumes from wrapped bytes after any prefix to the same bytes as one appender', () => {
    fc.assert(
      fc.property(samples, fc.nat(), (list, at) => {
        const whole = new XorChunk();
        encodeBits(whole, list);
        const k = at % (list.length + 1);
        const first = new XorChunk();
        encodeBits(first, list.slice(0, k));
        const resumed = XorChunk.fromBytes(first.bytes().slice());
        encodeBits(resumed, list.slice(k));
        // Before the first value change no window is open, and a resumed appender reuses the
        // zero window where a fresh one opens one (see above); otherwise the bytes are equal.
        const prefix = list.slice(0, k);
        if (k === 0 || prefix.some(([, bits]) => bits !== prefix[0]?.[1]))
          expect(hex(resumed.bytes())).toBe(hex(whole.bytes()));
        expect(decodeBits(resumed)).toEqual(list);
        expect(resumed.appender()).toBe(resumed.appender());
      }),
      { numRuns: 100 },
    );
  });
});

describe('XorBulkDecoder', () => {
  /** The decoder's samples with mint ≤ t ≤ maxt, as [t, value bits], written from `at`. */
  function bulk(
    decoder: XorBulkDecoder,
    bytes: Uint8Array,
    mint: number,
    maxt: number,
    at = 0,
  ): Array<[number, bigint]> {
    const out = sampleColumns(at + xorSampleCount(bytes));
    out.ts.fill(-1);
    const n = decoder.decodeInto(bytes, mint, maxt, out, at);
    // Nothing before `at` is touched.
    for (let i = 0; i < at; i++) expect(out.ts[i]).toBe(-1);
    const got: Array<[number, bigint]> = [];
    for (let i = at; i < n; i++) got.push([out.ts[i] as number, toBits(out.fs[i] as number)]);
    return got;
  }

  it('decodes exactly the samples inside the window, value bits and NaN payloads included', () => {
    const decoder = new XorBulkDecoder();
    fc.assert(
      fc.property(
        samples,
        fc.maxSafeInteger(),
        fc.maxSafeInteger(),
        fc.nat(5),
        (list, a, b, at) => {
          const chunk = new XorChunk();
          encodeBits(chunk, list);
          const [mint, maxt] = a <= b ? [a, b] : [b, a];
          const want = list.filter(([t]) => t >= mint && t <= maxt);
          expect(bulk(decoder, chunk.bytes().slice(), mint, maxt, at)).toEqual(want);
          expect(bulk(decoder, chunk.bytes(), -Infinity, Infinity)).toEqual(list);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('keeps samples exactly on the window edges and none past them', () => {
    const decoder = new XorBulkDecoder();
    const list = Array.from({ length: 100 }, (_, i): [number, number] => [i, i % 7]);
    const bytes = encode(list).bytes();
    for (const [mint, maxt] of [
      [10, 20],
      [10, 10],
      [0, 0],
      [99, 99],
      [-5, 0],
      [99, 200],
      [50, 49],
    ] as const) {
      const want = list.filter(([t]) => t >= mint && t <= maxt).map(([t, v]) => [t, toBits(v)]);
      expect(bulk(decoder, bytes, mint, maxt)).toEqual(want);
    }
  });

  it('reuses its buffer: a short chunk after a long one reads no stale bytes', () => {
    const decoder = new XorBulkDecoder();
    const long = Array.from({ length: 500 }, (_, i): [number, number] => [i * 1000, Math.PI * i]);
    expect(bulk(decoder, encode(long).bytes(), -Infinity, Infinity)).toHaveLength(500);
    const short: Array<[number, number]> = [
      [5, 1],
      [6, 1],
      [7, 1],
    ];
    expect(bulk(decoder, encode(short).bytes(), -Infinity, Infinity)).toEqual(
      short.map(([t, v]) => [t, toBits(v)]),
    );
  });

  it('fails a truncated or corrupt chunk as the iterator does', () => {
    const decoder = new XorBulkDecoder();
    const whole = encode(
      Array.from({ length: 40 }, (_, i): [number, number] => [1_000 * i + (i % 3), i * 1.5]),
    ).bytes();
    for (let len = 0; len < whole.length; len++) {
      for (const bytes of [whole.slice(0, len), flipped(whole, len)]) {
        const it = new XorIterator(bytes);
        const want: Array<[number, bigint]> = [];
        while (it.next() !== ValueType.None) want.push([it.atT(), toBits(it.atF())]);
        const error = it.err();
        if (error === null) {
          expect(bulk(decoder, bytes, -Infinity, Infinity)).toEqual(want);
        } else {
          expect(() => bulk(decoder, bytes, -Infinity, Infinity)).toThrow(error.message);
        }
      }
    }
  });

  /** `bytes` with every bit of byte `i` inverted. */
  function flipped(bytes: Uint8Array, i: number): Uint8Array {
    const copy = bytes.slice();
    copy[i] = (copy[i] as number) ^ 0xff;
    return copy;
  }
});
