import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { EncBuf } from '../encoding/index.js';
import {
  MetricType,
  RecordDecodeError,
  RecordType,
  SampleBatch,
  decodeExemplars,
  decodeMetadata,
  decodeMmapMarkers,
  decodeSamples,
  decodeSeries,
  decodeTombstones,
  encodeExemplars,
  encodeMetadata,
  encodeMmapMarkers,
  encodeSamples,
  encodeSeries,
  encodeTombstones,
  recordType,
  recordTypeName,
  type RefSeries,
} from './index.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
const fromHex = (s: string): Uint8Array =>
  Uint8Array.from(Buffer.from(s.replace(/\s+/g, ''), 'hex'));

const ref = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
// Timestamps within ±2^51 so every delta to the first one is a safe integer.
const timestamp = fc.integer({ min: -(2 ** 51), max: 2 ** 51 });
const labelsArb = fc
  .dictionary(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    {
      maxKeys: 6,
    },
  )
  .map((obj) => Labels.fromObject(obj));

function batchOf(samples: ReadonlyArray<[number, number, number, number]>): SampleBatch {
  const batch = new SampleBatch(1);
  for (const [r, t, hi, lo] of samples) batch.pushBits(r, t, hi, lo);
  return batch;
}

function rows(batch: SampleBatch): Array<[number, number, bigint]> {
  const out: Array<[number, number, bigint]> = [];
  for (let i = 0; i < batch.length; i++)
    out.push([batch.refs[i] as number, batch.timestamps[i] as number, batch.valueBits(i)]);
  return out;
}

describe('record types', () => {
  it('uses Prometheus numbering', () => {
    expect(RecordType).toMatchObject({
      Series: 1,
      Samples: 2,
      Tombstones: 3,
      Exemplars: 4,
      MmapMarkers: 5,
      Metadata: 6,
      HistogramSamples: 7,
      FloatHistogramSamples: 8,
      Unknown: 255,
    });
    expect(MetricType.Counter).toBe(1);
    expect(MetricType.Stateset).toBe(7);
  });

  it('reads the type from the first byte; empty or unrecognised is Unknown', () => {
    expect(recordType(Uint8Array.of(2, 0, 0))).toBe(RecordType.Samples);
    expect(recordType(Uint8Array.of(7))).toBe(RecordType.HistogramSamples);
    expect(recordType(new Uint8Array(0))).toBe(RecordType.Unknown);
    expect(recordType(Uint8Array.of(0))).toBe(RecordType.Unknown);
    expect(recordType(Uint8Array.of(99))).toBe(RecordType.Unknown);
    expect(recordTypeName(RecordType.Tombstones)).toBe('tombstones');
    expect(recordTypeName(99)).toBe('unknown');
  });
});

describe('golden bytes (derived by hand from the format)', () => {
  it('series record', () => {
    const rec = encodeSeries([
      { ref: 1, labels: Labels.fromStrings('job', 'a', '__name__', 'up') },
    ]);
    expect(hex(rec)).toBe(
      [
        '01', // type
        '0000000000000001', // ref BE64
        '02', // two labels, sorted: __name__ then job
        '08' + '5f5f6e616d655f5f', // "__name__"
        '02' + '7570', // "up"
        '03' + '6a6f62', // "job"
        '01' + '61', // "a"
      ].join(''),
    );
  });

  it('samples record: deltas to the first sample, value bits verbatim', () => {
    const batch = new SampleBatch();
    batch.push(5, 1000, 1.5);
    batch.push(7, 990, -2);
    batch.pushBits(3, 1_000_000, 0x7ff00000, 0x00000002); // stale marker
    expect(hex(encodeSamples(batch))).toBe(
      [
        '02',
        '0000000000000005', // first ref
        '00000000000003e8', // first timestamp 1000
        '00' + '00' + '3ff8000000000000', // +0, +0, 1.5
        '04' + '13' + 'c000000000000000', // +2 (zig-zag 4), -10 (zig-zag 19), -2
        '03' + 'b0f979' + '7ff0000000000002', // -2 (zig-zag 3), +999000 (zig-zag 1998000), stale NaN
      ].join(''),
    );
    expect(hex(encodeSamples(new SampleBatch()))).toBe('02');
  });

  it('tombstones record: BE64 ref, varint mint and maxt per interval', () => {
    const rec = encodeTombstones([{ ref: 3, mint: -1, maxt: 300 }]);
    expect(hex(rec)).toBe('03' + '0000000000000003' + '01' + 'd804');
  });

  it('metadata record: uvarint ref, type byte, UNIT and HELP fields', () => {
    const rec = encodeMetadata([{ ref: 1, type: MetricType.Counter, unit: 's', help: 'h' }]);
    expect(hex(rec)).toBe(
      '06' + '01' + '01' + '02' + '04554e4954' + '0173' + '0448454c50' + '0168',
    );
  });

  it('decodes a hand-written samples record', () => {
    const batch = decodeSamples(
      fromHex('02 0000000000000002 0000000000000064 00 00 4059000000000000 02 01 fff8000000000001'),
    );
    expect(rows(batch)).toEqual([
      [2, 100, 0x4059000000000000n], // 100.0
      [3, 99, 0xfff8000000000001n], // a NaN with a payload, kept bit for bit
    ]);
  });
});

describe('round trips', () => {
  it('series', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ref, labels: labelsArb }), { maxLength: 20 }), (series) => {
        const decoded = decodeSeries(encodeSeries(series));
        expect(decoded.map((s) => s.ref)).toEqual(series.map((s) => s.ref));
        decoded.forEach((s, i) =>
          expect(s.labels.equals((series[i] as RefSeries).labels)).toBe(true),
        );
      }),
    );
  });

  it('samples, with arbitrary value bits (every NaN payload)', () => {
    const sample = fc.tuple(ref, timestamp, fc.nat(0xffffffff), fc.nat(0xffffffff));
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 200 }), (samples) => {
        const batch = batchOf(samples);
        const decoded = decodeSamples(encodeSamples(batch, new EncBuf()));
        expect(rows(decoded)).toEqual(rows(batch));
      }),
    );
  });

  it('samples decode appends to an existing batch', () => {
    const into = batchOf([[9, 9, 0, 9]]);
    decodeSamples(encodeSamples(batchOf([[1, 2, 3, 4]])), into);
    expect(rows(into)).toEqual([
      [9, 9, 9n],
      [1, 2, (3n << 32n) | 4n],
    ]);
  });

  it('tombstones', () => {
    const safeInt = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER });
    fc.assert(
      fc.property(
        fc.array(fc.record({ ref, mint: safeInt, maxt: safeInt }), { maxLength: 30 }),
        (entries) => {
          expect(decodeTombstones(encodeTombstones(entries))).toEqual(entries);
        },
      ),
    );
  });

  it('exemplars', () => {
    const exemplar = fc.record({
      ref,
      t: timestamp,
      value: fc.double({ noNaN: true }),
      labels: labelsArb,
    });
    fc.assert(
      fc.property(fc.array(exemplar, { maxLength: 20 }), (exemplars) => {
        const decoded = decodeExemplars(encodeExemplars(exemplars));
        expect(decoded.map(({ ref: r, t, value }) => [r, t, value])).toEqual(
          exemplars.map(({ ref: r, t, value }) => [r, t, value]),
        );
        decoded.forEach((e, i) => expect(e.labels.equals(exemplars[i]!.labels)).toBe(true));
      }),
    );
  });

  it('mmap markers', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ ref, mmapRef: ref }), { maxLength: 30 }), (markers) => {
        expect(decodeMmapMarkers(encodeMmapMarkers(markers))).toEqual(markers);
      }),
    );
  });

  it('metadata', () => {
    const meta = fc.record({
      ref,
      type: fc.integer({ min: 0, max: 255 }),
      unit: fc.string({ unit: 'grapheme' }),
      help: fc.string({ unit: 'grapheme' }),
    });
    fc.assert(
      fc.property(fc.array(meta, { maxLength: 20 }), (metadata) => {
        expect(decodeMetadata(encodeMetadata(metadata))).toEqual(metadata);
      }),
    );
  });
});

describe('decoding is strict', () => {
  it('skips metadata fields it does not know, like Prometheus', () => {
    const buf = new EncBuf();
    buf.putByte(RecordType.Metadata);
    buf.putUvarint(4);
    buf.putByte(MetricType.Gauge);
    buf.putUvarint(3);
    for (const [k, v] of [
      ['HELP', 'help text'],
      ['FUTURE', 'x'],
      ['UNIT', 'bytes'],
    ] as const) {
      buf.putUvarintStr(k);
      buf.putUvarintStr(v);
    }
    expect(decodeMetadata(buf.get())).toEqual([
      { ref: 4, type: MetricType.Gauge, unit: 'bytes', help: 'help text' },
    ]);
  });

  it('rejects a record of another type, naming both', () => {
    const rec = encodeSeries([]);
    expect(() => decodeSamples(rec)).toThrow(RecordDecodeError);
    expect(() => decodeSamples(rec)).toThrow(/invalid record type 1 \(series\), expected 2/);
    expect(() => decodeSeries(new Uint8Array(0))).toThrow(/empty record/);
  });

  it('rejects every truncation of a valid record', () => {
    const batch = batchOf([
      [1, 10, 1, 2],
      [2, 20, 3, 4],
    ]);
    const records: Array<[Uint8Array, (r: Uint8Array) => { length: number }]> = [
      [encodeSamples(batch), (r) => decodeSamples(r)],
      [
        encodeSeries([
          { ref: 1, labels: Labels.fromStrings('a', 'b') },
          { ref: 2, labels: Labels.fromStrings('c', 'd') },
        ]),
        (r) => decodeSeries(r),
      ],
      [
        encodeTombstones([
          { ref: 1, mint: 1, maxt: 1000 },
          { ref: 1, mint: 2000, maxt: 3000 },
        ]),
        (r) => decodeTombstones(r),
      ],
      [encodeMetadata([{ ref: 1, type: 1, unit: 'u', help: 'h' }]), (r) => decodeMetadata(r)],
      [encodeMmapMarkers([{ ref: 1, mmapRef: 2 }]), (r) => decodeMmapMarkers(r)],
      [
        encodeExemplars([{ ref: 1, t: 1, value: 1, labels: Labels.fromStrings('a', 'b') }]),
        (r) => decodeExemplars(r),
      ],
    ];
    for (const [rec, decode] of records) {
      const full = decode(rec).length;
      expect(full).toBeGreaterThan(0);
      // Records are concatenated entries: a cut between entries reads as fewer entries, a cut
      // anywhere else is an error. A truncated record never decodes as complete.
      for (let cut = 1; cut < rec.length; cut++) {
        let decoded: number | undefined;
        try {
          decoded = decode(rec.subarray(0, cut)).length;
        } catch (err) {
          expect(err, `cut at ${cut} of ${hex(rec)}`).toBeInstanceOf(RecordDecodeError);
        }
        if (decoded !== undefined) expect(decoded, `cut at ${cut}`).toBeLessThan(full);
      }
    }
  });

  it('rejects trailing bytes', () => {
    const rec = encodeTombstones([{ ref: 1, mint: 0, maxt: 1 }]);
    const longer = new Uint8Array(rec.length + 3);
    longer.set(rec);
    longer[rec.length] = 0xff;
    expect(() => decodeTombstones(longer)).toThrow(RecordDecodeError);
  });

  it('rejects unsorted or duplicate labels instead of building a broken label set', () => {
    const buf = new EncBuf();
    buf.putByte(RecordType.Series);
    buf.putBE64(7);
    buf.putUvarint(2);
    for (const s of ['job', 'x', 'instance', 'y']) buf.putUvarintStr(s);
    expect(() => decodeSeries(buf.get())).toThrow(/bad label set.*out of order/);
  });

  it('rejects a label count larger than the record', () => {
    const buf = new EncBuf();
    buf.putByte(RecordType.Series);
    buf.putBE64(7);
    buf.putUvarint(1_000_000);
    expect(() => decodeSeries(buf.get())).toThrow(/label count 1000000/);
  });

  it('refuses refs and timestamps outside the safe integer range', () => {
    expect(() => encodeSeries([{ ref: -1, labels: Labels.EMPTY }])).toThrow(/series ref .* got -1/);
    const batch = new SampleBatch();
    batch.push(1, -(2 ** 52), 0);
    batch.push(1, 2 ** 52, 0);
    expect(() => encodeSamples(batch)).toThrow(/too far from the record's first timestamp/);
    const big = new EncBuf();
    big.putByte(RecordType.Samples);
    big.putBE64(2n ** 60n);
    big.putBE64(0);
    expect(() => decodeSamples(big.get())).toThrow(/exceeds 2\^53-1/);
  });
});
