import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../model/index.js';
import { RpcError } from '../runtime/index.js';
import type { StoreSeriesResponse } from './wire.js';
import { decodeStoreSeriesResponse, encodeStoreSeriesResponse } from './wire_codec.js';

const labelSet = fc
  .dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.string({ maxLength: 20 }), {
    maxKeys: 6,
  })
  .map((obj) => Labels.fromObject(obj));

const time = fc.integer({ min: -(2 ** 52), max: 2 ** 52 });

const chunk = fc.record({
  minTime: time,
  maxTime: time,
  encoding: fc.integer({ min: 0, max: 255 }),
  data: fc.uint8Array({ maxLength: 64 }),
});

const response: fc.Arbitrary<StoreSeriesResponse> = fc.record({
  series: fc.array(fc.record({ labels: labelSet, chunks: fc.array(chunk, { maxLength: 4 }) }), {
    maxLength: 8,
  }),
  queriedBlocks: fc.array(fc.string({ maxLength: 26 }), { maxLength: 5 }),
  stats: fc.record({
    bucketRequests: fc.nat(),
    bucketBytes: fc.nat(),
    seriesFetched: fc.nat(),
    chunksFetched: fc.nat(),
  }),
});

/** Plain data for comparison (Labels as pair lists, chunk bytes as arrays). */
function plain(res: StoreSeriesResponse) {
  return {
    ...res,
    series: res.series.map((s) => ({
      labels: [...s.labels].map((l) => [l.name, l.value]),
      chunks: s.chunks.map((c) => ({ ...c, data: [...c.data] })),
    })),
  };
}

describe('store-gateway series codec', () => {
  it('round-trips any response', () => {
    fc.assert(
      fc.property(response, (res) => {
        expect(plain(decodeStoreSeriesResponse(encodeStoreSeriesResponse(res)))).toEqual(
          plain(res),
        );
      }),
    );
  });

  it('decodes from a body at a non-zero offset of a larger buffer', () => {
    fc.assert(
      fc.property(response, fc.nat({ max: 7 }), (res, pad) => {
        const body = encodeStoreSeriesResponse(res);
        const outer = new Uint8Array(body.length + pad);
        outer.set(body, pad);
        expect(plain(decodeStoreSeriesResponse(outer.subarray(pad)))).toEqual(plain(res));
      }),
    );
  });

  it('rejects every truncation with an internal RpcError naming the offset', () => {
    fc.assert(
      fc.property(response, fc.nat(), (res, cut) => {
        const body = encodeStoreSeriesResponse(res);
        const n = cut % body.length;
        let err: unknown;
        try {
          decodeStoreSeriesResponse(body.subarray(0, n));
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(RpcError);
        expect((err as RpcError).code).toBe('internal');
        expect((err as Error).message).toMatch(/at byte \d+/);
      }),
    );
  });

  it('rejects a body that is not a series answer', () => {
    expect(() => decodeStoreSeriesResponse(new TextEncoder().encode('{"values":[]}'))).toThrow(
      /bad magic/,
    );
  });
});
