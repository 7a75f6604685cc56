import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtoDecodeError } from './proto_reader.js';
import { SeriesLabelsCache } from './series_labels_cache.js';
import { buildWriteRequest, toPlainWriteRequest, type PlainSeries } from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';
import { encodeWriteRequest } from './write_request_encode.js';

/** The bytes of `labels` as repeated TimeSeries.labels fields (what the decoder hashes). */
function labelBytes(labels: [string, string][]): Uint8Array {
  const req = encodeWriteRequest(buildWriteRequest({ series: [{ labels }] }));
  // WriteRequest { 1: TimeSeries { labels... } }: skip the outer tag and length.
  let p = 1;
  while ((req[p] as number) >= 0x80) p++;
  return req.subarray(p + 1);
}

function request(series: PlainSeries[]): Uint8Array {
  return encodeWriteRequest(buildWriteRequest({ series }));
}

const flat = (labels: [string, string][]): string[] => labels.flat();

const asciiText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 140,
});

describe('SeriesLabelsCache byte matching', () => {
  it('hits only on exactly the bytes an entry was decoded from, wherever they lie', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(asciiText, asciiText), { minLength: 1, maxLength: 5 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        fc.nat({ max: 7 }),
        (labels, at, delta, pad) => {
          const cache = new SeriesLabelsCache({ maxEntries: 8 });
          const bytes = labelBytes(labels);
          const entry = cache.insert(5, bytes, 0, bytes.length, flat(labels));
          expect(entry?.flat).toEqual(flat(labels));
          // The same bytes inside a larger buffer, at any offset.
          const inside = new Uint8Array(pad + bytes.length + 3);
          inside.set(bytes, pad);
          expect(cache.lookup(5, inside, pad, pad + bytes.length)).toBe(entry);
          const changed = bytes.slice();
          const i = at % changed.length;
          changed[i] = ((changed[i] as number) + delta) & 0xff;
          expect(cache.lookup(5, changed, 0, changed.length)).toBeUndefined();
          expect(cache.lookup(5, bytes, 0, bytes.length - 1)).toBeUndefined();
          expect(cache.lookup(5, inside, pad, pad + bytes.length + 1)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps UTF-8 label sets by their bytes; other bytes under the same hash miss', () => {
    // 'é' as the single (invalid UTF-8) byte 0xE9, and as its UTF-8 form.
    const raw = Uint8Array.of(0x0a, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0xe9);
    const utf8 = labelBytes([['a', '\u00e9']]);
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    cache.insert(1, utf8, 0, utf8.length, ['a', '\u00e9']);
    expect(cache.lookup(1, utf8, 0, utf8.length)?.flat).toEqual(['a', '\u00e9']);
    expect(cache.lookup(1, raw, 0, raw.length)).toBeUndefined();
  });
});

/** A WriteRequest holding one TimeSeries whose body is `body`. */
function wrap(body: Uint8Array): Uint8Array {
  return Uint8Array.of(0x0a, body.length, ...body);
}

describe('SeriesLabelsCache', () => {
  const a = labelBytes([
    ['__name__', 'up'],
    ['job', 'a'],
  ]);
  const b = labelBytes([
    ['__name__', 'up'],
    ['job', 'b'],
  ]);

  it('hits on the same bytes, misses on others under the same hash (collision)', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    const flatA = ['__name__', 'up', 'job', 'a'];
    expect(cache.lookup(7, a, 0, a.length)).toBeUndefined();
    cache.insert(7, a, 0, a.length, flatA);
    expect(cache.lookup(7, a, 0, a.length)?.flat).toBe(flatA);
    expect(cache.lookup(7, b, 0, b.length)).toBeUndefined();
    expect(cache.lookup(8, a, 0, a.length)).toBeUndefined();
    // A colliding insert replaces the entry.
    const flatB = ['__name__', 'up', 'job', 'b'];
    cache.insert(7, b, 0, b.length, flatB);
    expect(cache.lookup(7, b, 0, b.length)?.flat).toBe(flatB);
    expect(cache.lookup(7, a, 0, a.length)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  it('does not keep empty label sets', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    expect(cache.insert(2, a, 0, a.length, [])).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stays within its bound, dropping the oldest generation and keeping recently used entries', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 4 });
    const bytes = [0, 1, 2, 3, 4, 5].map((i) => labelBytes([['__name__', `m${i}`]]));
    const flats = [0, 1, 2, 3, 4, 5].map((i) => ['__name__', `m${i}`]);
    const put = (i: number): void => {
      const by = bytes[i] as Uint8Array;
      cache.insert(i, by, 0, by.length, flats[i] as string[]);
    };
    const get = (i: number): readonly string[] | undefined => {
      const by = bytes[i] as Uint8Array;
      return cache.lookup(i, by, 0, by.length)?.flat;
    };
    put(0);
    put(1);
    put(2); // generation {0,1} becomes the previous one
    expect(get(0)).toBe(flats[0]); // promoted into the current generation {2,0}
    put(3); // {2,0} becomes previous; 1 is dropped
    put(4);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(get(1)).toBeUndefined();
    for (let i = 0; i < 6; i++) put(i);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(get(5)).toBe(flats[5]);
    expect(() => new SeriesLabelsCache({ maxEntries: 1 })).toThrow(RangeError);
  });

  it('keeps hitting while the series cycled through fit in one generation', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    const bytes = [0, 1, 2, 3, 4].map((i) => labelBytes([['__name__', `m${i}`]]));
    const cycle = (count: number): number => {
      let hits = 0;
      for (let i = 0; i < count; i++) {
        const by = bytes[i] as Uint8Array;
        if (cache.lookup(i, by, 0, by.length) !== undefined) hits++;
        else cache.insert(i, by, 0, by.length, ['__name__', `m${i}`]);
      }
      return hits;
    };
    expect(cycle(4)).toBe(0);
    for (let round = 0; round < 5; round++) expect(cycle(4)).toBe(4);
    expect(cache.size).toBeLessThanOrEqual(8);
  });

  it('gives one rules object per distinct set of limits', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    const limits = {
      enforceMetricName: true,
      maxLabelNamesPerSeries: 30,
      maxLabelNameLength: 1024,
      maxLabelValueLength: 2048,
    };
    const rules = cache.rulesFor(limits, false);
    expect(cache.rulesFor({ ...limits }, false)).toBe(rules);
    expect(cache.rulesFor(limits, true)).not.toBe(rules);
    const other = cache.rulesFor({ ...limits, maxLabelValueLength: 1 }, false);
    expect(other).not.toBe(rules);
  });
});

describe('decodeWriteRequest with a SeriesLabelsCache', () => {
  const up: PlainSeries = {
    labels: [
      ['__name__', 'up'],
      ['instance', 'host:9100'],
      ['job', 'node'],
    ],
    samples: [{ timestamp: 1000, value: 1 }],
  };

  it('returns the label array of an earlier request for the same bytes', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const first = decodeWriteRequest(request([up]), cache);
    const second = decodeWriteRequest(
      request([{ ...up, samples: [{ timestamp: 2000, value: 0 }] }]),
      cache,
    );
    expect(second.series[0]?.labels).toBe(first.series[0]?.labels);
    expect(toPlainWriteRequest(second).series[0]).toEqual({
      ...up,
      samples: [{ timestamp: 2000, value: 0 }],
      exemplars: [],
      histograms: [],
    });
    const other = decodeWriteRequest(request([{ ...up, labels: [['__name__', 'down']] }]), cache);
    expect(other.series[0]?.labels).toEqual(['__name__', 'down']);
    expect(cache.size).toBe(2);
  });

  it('hits the same entries for a body that does not start on a word boundary', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const body = request([up]);
    const first = decodeWriteRequest(body, cache).series[0]?.labels;
    for (const pad of [1, 2, 3]) {
      const shifted = new Uint8Array(body.length + pad);
      shifted.set(body, pad);
      expect(decodeWriteRequest(shifted.subarray(pad), cache).series[0]?.labels).toBe(first);
    }
    expect(cache.size).toBe(1);
  });

  it('copies a cached array before adding labels sent after the samples', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const cached = decodeWriteRequest(request([up]), cache).series[0]?.labels;
    // The same series, then one sample, then another Label field.
    const body = request([up]);
    const extra = Uint8Array.of(0x0a, 0x08, 0x0a, 0x01, 0x7a, 0x12, 0x03, 0x61, 0x62, 0x63);
    const inner = body.subarray(2, 2 + (body[1] as number));
    const req = wrap(Uint8Array.of(...inner, ...extra));
    const decoded = decodeWriteRequest(req, cache).series[0]?.labels;
    expect(decoded).toEqual([...up.labels.flat(), 'z', 'abc']);
    expect(decoded).not.toBe(cached);
    expect(cached).toEqual(up.labels.flat());
    // That series is not cached: decoding it again gives a fresh array.
    expect(decodeWriteRequest(req, cache).series[0]?.labels).not.toBe(decoded);
  });

  it('caches non-ASCII label sets and still rejects invalid UTF-8 in their place', () => {
    const cache = new SeriesLabelsCache({ maxEntries: 16 });
    const accented: PlainSeries = { labels: [['__name__', 'caf\u00e9']] };
    const one = decodeWriteRequest(request([accented]), cache);
    expect(decodeWriteRequest(request([accented]), cache).series[0]?.labels).toBe(
      one.series[0]?.labels,
    );
    expect(cache.size).toBe(1);
    // An ASCII series cached, then the same bytes with its last byte made invalid UTF-8.
    const ascii: PlainSeries = { labels: [['__name__', 'cafe']] };
    decodeWriteRequest(request([ascii]), cache);
    const bad = request([ascii]).slice();
    bad[bad.length - 1] = 0xe9;
    expect(() => decodeWriteRequest(bad, cache)).toThrow(ProtoDecodeError);
    expect(() => decodeWriteRequest(bad, cache)).toThrow(/invalid UTF-8/);
  });

  it('decodes exactly as without a cache, on valid and mutated requests', () => {
    const text = fc.oneof(
      fc.constantFrom('__name__', 'job', 'up', 'instance', '', 'x'),
      fc.string({ maxLength: 6 }),
      fc.string({ unit: 'binary', maxLength: 4 }).map((s) => s.replace(/\p{Cs}/gu, '\uFFFD')),
    );
    const series = fc.array(
      fc.record({
        labels: fc.array(fc.tuple(text, text), { maxLength: 4 }),
        samples: fc.array(fc.record({ timestamp: fc.integer(), value: fc.double() }), {
          maxLength: 2,
        }),
      }),
      { maxLength: 4 },
    );
    const cache = new SeriesLabelsCache({ maxEntries: 64 });
    fc.assert(
      fc.property(
        series,
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 2 }),
        (s, edits) => {
          const bytes = request(s);
          const mutated = bytes.slice();
          for (const [at, v] of edits) if (mutated.length > 0) mutated[at % mutated.length] = v;
          for (const input of [bytes, mutated, bytes]) {
            const plain = outcome(() => toPlainWriteRequest(decodeWriteRequest(input)));
            const cached = outcome(() => toPlainWriteRequest(decodeWriteRequest(input, cache)));
            expect(cached).toEqual(plain);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false; error: string } {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    return { ok: false, error: String(err) };
  }
}
