// The stall measurement's push bodies: rewritten in place, they must be exactly the bytes
// a fresh encoding of the same samples gives.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildWriteRequest, encodeWriteRequest } from '../src/distributor/index.js';
import { seriesLabels } from './query_bench_data.js';
import { StallPushBody } from './stall_push_body.js';

const SERIES = Array.from({ length: 50 }, (_, k) => seriesLabels(k, 'bench_stall_push'));

function fresh(timestamp: number, value: number): Uint8Array {
  return encodeWriteRequest(
    buildWriteRequest({
      series: SERIES.map((labels) => ({ labels, samples: [{ value, timestamp }] })),
    }),
  );
}

describe('StallPushBody', () => {
  it('gives the bytes of a fresh encoding, push after push', () => {
    const body = new StallPushBody(SERIES);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 2 ** 35, max: 2 ** 42 - 1 }),
            fc.double({ noNaN: true }).filter((v) => !Object.is(v, 0)),
          ),
          { minLength: 1, maxLength: 5 },
        ),
        (pushes) => {
          for (const [ts, value] of pushes) {
            expect(Buffer.from(body.body(ts, value)).equals(Buffer.from(fresh(ts, value)))).toBe(
              true,
            );
          }
        },
      ),
    );
  });

  it('refuses what its fixed-width bytes cannot hold', () => {
    const body = new StallPushBody(SERIES);
    expect(() => body.body(Date.now(), 0)).toThrow(/value 0/);
    expect(() => body.body(2 ** 35 - 1, 1)).toThrow(/timestamp 34359738367 outside/);
    expect(() => body.body(2 ** 42, 1)).toThrow(/outside/);
    expect(() => body.body(1.5e12 + 0.5, 1)).toThrow(/outside/);
  });
});
