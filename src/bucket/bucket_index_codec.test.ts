import fc from 'fast-check';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  BucketIndexCorruptedError,
  GZIP_FLAG_FNAME,
  decodeBucketIndex,
  encodeBucketIndex,
  gzipWithName,
  parseBucketIndexJson,
  serializeBucketIndexJson,
} from './bucket_index_codec.js';
import { testUlid } from './testing.js';
import type { BucketIndex, BucketIndexBlock } from './types.js';

const A = testUlid(1_600_000_000_000, 1);
const B = testUlid(1_600_000_000_000, 2);
const enc = new TextEncoder();

const sample: BucketIndex = {
  version: 1,
  blocks: [
    {
      block_id: A,
      min_time: 0,
      max_time: 7_200_000,
      segments_format: '1b6d',
      segments_num: 2,
      series_max_size: 512,
      uploaded_at: 1_600_000_100,
    },
    { block_id: B, min_time: 7_200_000, max_time: 14_400_000, uploaded_at: 1_600_000_200 },
  ],
  block_deletion_marks: [{ block_id: A, deletion_time: 1_600_000_300 }],
  updated_at: 1_600_000_400,
};

describe('bucket index JSON', () => {
  it('is json.Marshal of Cortex bucketindex.Index', () => {
    expect(serializeBucketIndexJson(sample)).toBe(
      '{"version":1,"blocks":[' +
        `{"block_id":"${A}","min_time":0,"max_time":7200000,"segments_format":"1b6d","segments_num":2,"series_max_size":512,"uploaded_at":1600000100},` +
        `{"block_id":"${B}","min_time":7200000,"max_time":14400000,"uploaded_at":1600000200}],` +
        `"block_deletion_marks":[{"block_id":"${A}","deletion_time":1600000300}],"updated_at":1600000400}`,
    );
  });

  it('writes no blocks as null (a nil slice) and no marks as []', () => {
    const empty: BucketIndex = { version: 1, blocks: [], block_deletion_marks: [], updated_at: 9 };
    const json = serializeBucketIndexJson(empty);
    expect(json).toBe('{"version":1,"blocks":null,"block_deletion_marks":[],"updated_at":9}');
    expect(parseBucketIndexJson(json, 'f')).toEqual(empty);
    expect(
      parseBucketIndexJson('{"version":1,"blocks":[],"block_deletion_marks":null}', 'f'),
    ).toEqual({ ...empty, updated_at: 0 });
  });

  it('round-trips any index', () => {
    const ulid = fc.integer({ min: 1, max: 1_000_000 }).map((n) => testUlid(1_600_000_000_000, n));
    const optNat = fc.option(fc.integer({ min: 1, max: 2 ** 40 }), { nil: undefined });
    const block = fc
      .record({
        block_id: ulid,
        min_time: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        max_time: fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
        segments_num: optNat,
        series_max_size: optNat,
        chunk_max_size: optNat,
        uploaded_at: fc.nat(),
      })
      .map((b) => {
        const out: BucketIndexBlock = {
          block_id: b.block_id,
          min_time: b.min_time,
          max_time: b.max_time,
          uploaded_at: b.uploaded_at,
        };
        if (b.segments_num !== undefined) {
          out.segments_format = '1b6d';
          out.segments_num = b.segments_num;
        }
        if (b.series_max_size !== undefined) out.series_max_size = b.series_max_size;
        if (b.chunk_max_size !== undefined) out.chunk_max_size = b.chunk_max_size;
        return out;
      });
    const index = fc.record({
      version: fc.constant(1),
      blocks: fc.array(block, { maxLength: 5 }),
      block_deletion_marks: fc.array(fc.record({ block_id: ulid, deletion_time: fc.nat() }), {
        maxLength: 5,
      }),
      updated_at: fc.nat(),
    });
    fc.assert(
      fc.property(index, (idx) => {
        expect(decodeBucketIndex(encodeBucketIndex(idx), 'f')).toEqual(idx);
      }),
    );
  });
});

describe('bucket-index.json.gz', () => {
  it('has the gzip header Go writes: FNAME set, name bucket-index.json', () => {
    const gz = encodeBucketIndex(sample);
    expect([...gz.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, GZIP_FLAG_FNAME, 0, 0, 0, 0, 0, 255]);
    const name = enc.encode('bucket-index.json');
    expect([...gz.subarray(10, 10 + name.length)]).toEqual([...name]);
    expect(gz[10 + name.length]).toBe(0);
    // Any gzip reader decodes it, and the trailer's CRC and size check out.
    expect(new TextDecoder().decode(gunzipSync(gz))).toBe(serializeBucketIndexJson(sample));
  });

  it('gzipWithName handles empty and large bodies', () => {
    for (const body of [new Uint8Array(0), new Uint8Array(300_000).fill(7)]) {
      expect(Buffer.from(gunzipSync(gzipWithName(body, 'x'))).equals(Buffer.from(body))).toBe(true);
    }
    expect(() => gzipWithName(new Uint8Array(0), 'ü€')).toThrow(/not Latin-1/);
  });

  it('reads a gzip without a name (any valid gzip)', () => {
    const gz = gzipSync(enc.encode(serializeBucketIndexJson(sample)));
    expect(decodeBucketIndex(gz, 'f')).toEqual(sample);
  });

  it('unreadable gzip, JSON or version is BucketIndexCorruptedError', () => {
    const cases: [Uint8Array, RegExp][] = [
      [enc.encode('not gzip at all'), /not valid gzip/],
      [encodeBucketIndex(sample).subarray(0, 30), /not valid gzip/],
      [gzipSync(enc.encode('{"version":1,')), /not valid JSON/],
      [gzipSync(enc.encode('{"version":2}')), /field version: unsupported version 2/],
      [
        gzipSync(enc.encode('{"version":1,"blocks":[{"block_id":"x"}]}')),
        /field blocks\[0\]\.block_id/,
      ],
    ];
    for (const [bytes, message] of cases) {
      let caught: unknown;
      try {
        decodeBucketIndex(bytes, 't/bucket-index.json.gz');
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(BucketIndexCorruptedError);
      expect((caught as Error).message).toMatch(
        /^bucket index corrupted: t\/bucket-index\.json\.gz: /,
      );
      expect((caught as Error).message).toMatch(message);
    }
  });
});
