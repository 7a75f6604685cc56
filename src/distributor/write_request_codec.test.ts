import fc from 'fast-check';
import type protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { ProtoDecodeError } from './proto_reader.js';
import type { Histogram } from './write_request.js';
import {
  buildWriteRequest,
  toPlainWriteRequest,
  type PlainSeries,
  type PlainWriteRequest,
} from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';
import { encodeWriteRequest } from './write_request_encode.js';
import { loadWriteRequestSchemas } from './write_request_schema.testing.js';

const schemas = loadWriteRequestSchemas();

// ---- arbitraries ---------------------------------------------------------------------------

const text = fc
  .oneof(
    fc.constantFrom('__name__', 'job', 'instance', 'up', '', 'le', 'cluster', '__replica__'),
    fc.string({ maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 8 }),
  )
  .map((s) => s.replace(/\p{Cs}/gu, '\uFFFD'));

const int64 = fc.oneof(
  fc.integer({ min: -1000, max: 1_800_000_000_000 }),
  fc
    .bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
    .map((b) => Math.min(Number(b), 2 ** 63 - 1024)),
  fc.constantFrom(0, -1, 2 ** 53, -(2 ** 63)),
);
const uint64 = fc.oneof(
  fc.integer({ min: 0, max: 1_000_000 }),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((b) => Math.min(Number(b), 2 ** 64 - 2048)),
);
const double = fc.oneof(fc.double(), fc.constantFrom(0, -0, NaN, Infinity, 1.5));
const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
const pairs = fc.array(fc.tuple(text, text), { maxLength: 4 });

const span = fc.record({ offset: int32, length: fc.integer({ min: 0, max: 2 ** 32 - 1 }) });
const histogram: fc.Arbitrary<Histogram> = fc
  .record({
    count: fc.option(
      fc.oneof(
        uint64.map((v) => ({ countInt: v })),
        double.map((v) => ({ countFloat: v })),
      ),
      { nil: undefined },
    ),
    zero: fc.option(
      fc.oneof(
        uint64.map((v) => ({ zeroCountInt: v })),
        double.map((v) => ({ zeroCountFloat: v })),
      ),
      { nil: undefined },
    ),
    sum: double,
    schema: int32,
    zeroThreshold: double,
    negativeSpans: fc.array(span, { maxLength: 2 }),
    negativeDeltas: fc.array(int64, { maxLength: 3 }),
    negativeCounts: fc.array(double, { maxLength: 3 }),
    positiveSpans: fc.array(span, { maxLength: 2 }),
    positiveDeltas: fc.array(int64, { maxLength: 3 }),
    positiveCounts: fc.array(double, { maxLength: 3 }),
    resetHint: fc.integer({ min: 0, max: 3 }),
    timestamp: int64,
    customValues: fc.array(double, { maxLength: 2 }),
  })
  .map(({ count, zero, ...rest }) => ({ ...rest, ...count, ...zero }));

const series: fc.Arbitrary<PlainSeries> = fc.record({
  labels: pairs,
  samples: fc.array(fc.record({ value: double, timestamp: int64 }), { maxLength: 4 }),
  exemplars: fc.array(fc.record({ labels: pairs, value: double, timestamp: int64 }), {
    maxLength: 2,
  }),
  histograms: fc.array(histogram, { maxLength: 2 }),
});

const plainRequest: fc.Arbitrary<PlainWriteRequest> = fc.record({
  series: fc.array(series, { maxLength: 4 }),
  metadata: fc.array(
    fc.record({
      type: fc.integer({ min: -2, max: 9 }),
      metricFamilyName: text,
      help: text,
      unit: text,
    }),
    { maxLength: 3 },
  ),
  source: fc.integer({ min: 0, max: 2 }),
  skipLabelNameValidation: fc.boolean(),
});

// ---- protobufjs <-> plain ------------------------------------------------------------------

/** The protobufjs object for a plain request, proto3 defaults omitted (as gogo omits them). */
function toProtobufjsObject(p: PlainWriteRequest, unknown: boolean): Record<string, unknown> {
  const extra = unknown
    ? { xString: 'zz', xVarint: '-5', xFixed32: 7, xFixed64: 2.5, xMessage: { s: 'q', i: '9' } }
    : {};
  const nz = <T>(v: T, isDefault: boolean): T | undefined => (isDefault ? undefined : v);
  const long = (v: number): string | undefined => nz(BigInt(v).toString(), v === 0);
  const dbl = (v: number): number | undefined => nz(v, Object.is(v, 0));
  const str = (v: string): string | undefined => nz(v, v === '');
  const labels = (ls: [string, string][]): object[] =>
    ls.map(([name, value]) => ({ name: str(name), value: str(value), ...extra }));
  const clean = (o: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return clean({
    timeseries: p.series.map((s) =>
      clean({
        labels: labels(s.labels),
        samples: (s.samples ?? []).map((x) =>
          clean({ value: dbl(x.value), timestamp: long(x.timestamp), ...extra }),
        ),
        exemplars: (s.exemplars ?? []).map((e) =>
          clean({
            labels: labels(e.labels),
            value: dbl(e.value),
            timestamp: long(e.timestamp),
            ...extra,
          }),
        ),
        histograms: (s.histograms ?? []).map((h) =>
          clean({
            countInt: h.countInt === undefined ? undefined : BigInt(h.countInt).toString(),
            countFloat: h.countFloat,
            sum: dbl(h.sum),
            schema: nz(h.schema, h.schema === 0),
            zeroThreshold: dbl(h.zeroThreshold),
            zeroCountInt:
              h.zeroCountInt === undefined ? undefined : BigInt(h.zeroCountInt).toString(),
            zeroCountFloat: h.zeroCountFloat,
            negativeSpans: h.negativeSpans.map((sp) =>
              clean({
                offset: nz(sp.offset, sp.offset === 0),
                length: nz(sp.length, sp.length === 0),
                ...extra,
              }),
            ),
            negativeDeltas: h.negativeDeltas.map((v) => BigInt(v).toString()),
            negativeCounts: h.negativeCounts,
            positiveSpans: h.positiveSpans.map((sp) =>
              clean({
                offset: nz(sp.offset, sp.offset === 0),
                length: nz(sp.length, sp.length === 0),
                ...extra,
              }),
            ),
            positiveDeltas: h.positiveDeltas.map((v) => BigInt(v).toString()),
            positiveCounts: h.positiveCounts,
            resetHint: nz(h.resetHint, h.resetHint === 0),
            timestamp: long(h.timestamp),
            customValues: h.customValues,
            ...extra,
          }),
        ),
        ...extra,
      }),
    ),
    source: nz(p.source, p.source === 0),
    metadata: (p.metadata ?? []).map((m) =>
      clean({
        type: nz(m.type, m.type === 0),
        metricFamilyName: str(m.metricFamilyName),
        help: str(m.help),
        unit: str(m.unit),
        ...extra,
      }),
    ),
    skipLabelNameValidation: nz(p.skipLabelNameValidation, p.skipLabelNameValidation !== true),
    ...extra,
  });
}

function encodeWith(type: protobuf.Type, obj: Record<string, unknown>): Uint8Array {
  return type.encode(type.fromObject(obj)).finish();
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'string' ? Number(v) : (v as number));

/** protobufjs's decoded message in our plain shape. */
function fromProtobufjs(type: protobuf.Type, bytes: Uint8Array): Required<PlainWriteRequest> {
  const o = type.toObject(type.decode(bytes), {
    longs: String,
    enums: Number,
    defaults: true,
    arrays: true,
    oneofs: true,
  });
  const labels = (ls: Obj[]): [string, string][] =>
    ls.map((l) => [l.name as string, l.value as string]);
  return {
    series: (o.timeseries as Obj[]).map((s) => ({
      labels: labels(s.labels as Obj[]),
      samples: (s.samples as Obj[]).map((x) => ({
        value: x.value as number,
        timestamp: num(x.timestamp),
      })),
      exemplars: (s.exemplars as Obj[]).map((e) => ({
        labels: labels(e.labels as Obj[]),
        value: e.value as number,
        timestamp: num(e.timestamp),
      })),
      histograms: (s.histograms as Obj[]).map((h) => {
        const out: Histogram = {
          sum: h.sum as number,
          schema: h.schema as number,
          zeroThreshold: h.zeroThreshold as number,
          negativeSpans: (h.negativeSpans as Obj[]).map((sp) => ({
            offset: sp.offset as number,
            length: sp.length as number,
          })),
          negativeDeltas: (h.negativeDeltas as unknown[]).map(num),
          negativeCounts: h.negativeCounts as number[],
          positiveSpans: (h.positiveSpans as Obj[]).map((sp) => ({
            offset: sp.offset as number,
            length: sp.length as number,
          })),
          positiveDeltas: (h.positiveDeltas as unknown[]).map(num),
          positiveCounts: h.positiveCounts as number[],
          resetHint: h.resetHint as number,
          timestamp: num(h.timestamp),
          customValues: h.customValues as number[],
        };
        if (h.count === 'countInt') out.countInt = num(h.countInt);
        if (h.count === 'countFloat') out.countFloat = h.countFloat as number;
        if (h.zeroCount === 'zeroCountInt') out.zeroCountInt = num(h.zeroCountInt);
        if (h.zeroCount === 'zeroCountFloat') out.zeroCountFloat = h.zeroCountFloat as number;
        return out;
      }),
    })),
    metadata: (o.metadata as Obj[]).map((m) => ({
      type: m.type as number,
      metricFamilyName: m.metricFamilyName as string,
      help: m.help as string,
      unit: m.unit as string,
    })),
    source: o.source as number,
    skipLabelNameValidation: o.skipLabelNameValidation as boolean,
  };
}

function normalized(p: PlainWriteRequest): Required<PlainWriteRequest> {
  return toPlainWriteRequest(buildWriteRequest(p));
}

type Outcome = { ok: true; value: Required<PlainWriteRequest> } | { ok: false; error: unknown };
function attempt(f: () => Required<PlainWriteRequest>): Outcome {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** The differential property on arbitrary bytes. */
function checkAgainstProtobufjs(bytes: Uint8Array): void {
  const theirs = attempt(() => fromProtobufjs(schemas.standard, Buffer.from(bytes)));
  const ours = attempt(() => toPlainWriteRequest(decodeWriteRequest(bytes)));
  if (!theirs.ok) {
    expect(ours.ok, `protobufjs rejected (${String(theirs.error)}) but we accepted`).toBe(false);
  }
  if (!ours.ok) {
    expect(ours.error).toBeInstanceOf(ProtoDecodeError);
    expect((ours.error as Error).message).toMatch(/ at offset \d+$/);
    expect(theirs.ok, `we rejected (${String(ours.error)}) but protobufjs accepted`).toBe(false);
    return;
  }
  if (theirs.ok) expect(ours.value).toEqual(theirs.value);
}

// ---- tests ---------------------------------------------------------------------------------

describe('decodeWriteRequest against protobufjs', () => {
  it('decodes what protobufjs encodes (packed), with and without unknown fields', () => {
    fc.assert(
      fc.property(plainRequest, fc.boolean(), (p, unknown) => {
        const bytes = encodeWith(
          unknown ? schemas.extended : schemas.standard,
          toProtobufjsObject(p, unknown),
        );
        expect(toPlainWriteRequest(decodeWriteRequest(bytes))).toEqual(normalized(p));
        checkAgainstProtobufjs(bytes);
      }),
      { numRuns: 300 },
    );
  });

  it('decodes unpacked repeated scalars', () => {
    fc.assert(
      fc.property(plainRequest, (p) => {
        const bytes = encodeWith(schemas.unpacked, toProtobufjsObject(p, true));
        expect(toPlainWriteRequest(decodeWriteRequest(bytes))).toEqual(normalized(p));
        checkAgainstProtobufjs(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects exactly what protobufjs rejects on truncated and mutated inputs', () => {
    const mutated = fc
      .tuple(
        plainRequest,
        fc.boolean(),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 3 }),
        fc.option(fc.nat(), { nil: undefined }),
      )
      .map(([p, unknown, edits, cut]) => {
        const bytes = encodeWith(
          unknown ? schemas.extended : schemas.standard,
          toProtobufjsObject(p, unknown),
        ).slice();
        for (const [at, b] of edits) if (bytes.length > 0) bytes[at % bytes.length] = b;
        return cut === undefined || bytes.length === 0
          ? bytes
          : bytes.subarray(0, cut % bytes.length);
      });
    fc.assert(fc.property(mutated, checkAgainstProtobufjs), { numRuns: 800 });
  });

  it('agrees with protobufjs on random bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 64 }), checkAgainstProtobufjs), {
      numRuns: 1000,
    });
  });

  it('names the offset of a truncated field', () => {
    // timeseries (field 1, length 10) with only 2 bytes present
    const err = (() => {
      try {
        decodeWriteRequest(Uint8Array.of(0x0a, 0x0a, 0x0a, 0x00));
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ProtoDecodeError);
    expect((err as ProtoDecodeError).offset).toBe(1);
    expect((err as Error).message).toBe(
      'proto: length 10 runs past the end of its message at offset 1',
    );
  });

  it('skips groups in unknown fields and rejects a mismatched end group', () => {
    // field 7 start group, field 1 varint 5, field 7 end group, then metadata (empty)
    const ok = Uint8Array.of(0x3b, 0x08, 0x05, 0x3c, 0x1a, 0x00);
    expect(decodeWriteRequest(ok).metadata).toHaveLength(1);
    checkAgainstProtobufjs(ok);
    const bad = Uint8Array.of(0x3b, 0x08, 0x05, 0x44);
    expect(() => decodeWriteRequest(bad)).toThrow(/invalid end group tag at offset 3/);
    checkAgainstProtobufjs(bad);
  });

  it('rejects invalid UTF-8 naming the string offset, and keeps a leading BOM', () => {
    // metadata { unit: 0xff }
    expect(() => decodeWriteRequest(Uint8Array.of(0x1a, 0x03, 0x2a, 0x01, 0xff))).toThrow(
      'proto: invalid UTF-8 in string field at offset 4',
    );
    const bom = encodeWriteRequest(
      buildWriteRequest({
        series: [],
        metadata: [{ type: 0, metricFamilyName: '\uFEFFx', help: 'é', unit: '' }],
      }),
    );
    expect(decodeWriteRequest(bom).metadata[0]?.metricFamilyName).toBe('\uFEFFx');
    checkAgainstProtobufjs(bom);
  });

  it('interns repeated label strings within one request', () => {
    const p: PlainWriteRequest = {
      series: [
        {
          labels: [
            ['__name__', 'up'],
            ['job', 'a'],
          ],
          samples: [{ value: 1, timestamp: 5 }],
        },
        {
          labels: [
            ['__name__', 'up'],
            ['job', 'b'],
          ],
          samples: [{ value: 2, timestamp: 6 }],
        },
      ],
    };
    const req = decodeWriteRequest(encodeWriteRequest(buildWriteRequest(p)));
    expect(req.timestamps).toBeInstanceOf(Float64Array);
    expect(Array.from(req.values)).toEqual([1, 2]);
    expect(req.series[1]?.labels[1]).toBe('up');
    expect(req.series[0]?.sampleEnd).toBe(1);
  });
});

describe('encodeWriteRequest against protobufjs', () => {
  it('produces the same bytes as protobufjs and decodes back', () => {
    fc.assert(
      fc.property(plainRequest, (p) => {
        const ours = encodeWriteRequest(buildWriteRequest(p));
        const theirs = encodeWith(schemas.standard, toProtobufjsObject(p, false));
        expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(theirs).toString('hex'));
        expect(fromProtobufjs(schemas.standard, ours)).toEqual(normalized(p));
      }),
      { numRuns: 300 },
    );
  });

  it('encodes a subset of series without metadata', () => {
    const req = buildWriteRequest({
      series: [
        { labels: [['__name__', 'a']], samples: [{ value: 1, timestamp: 1 }] },
        { labels: [['__name__', 'b']], samples: [{ value: 2, timestamp: 2 }] },
      ],
      metadata: [{ type: 1, metricFamilyName: 'a', help: 'h', unit: '' }],
    });
    const sub = decodeWriteRequest(
      encodeWriteRequest(req, { seriesIndexes: [1], includeMetadata: false }),
    );
    expect(toPlainWriteRequest(sub).series.map((s) => s.labels)).toEqual([[['__name__', 'b']]]);
    expect(sub.metadata).toEqual([]);
    expect(() => encodeWriteRequest(req, { seriesIndexes: [2] })).toThrow(RangeError);
  });
});
