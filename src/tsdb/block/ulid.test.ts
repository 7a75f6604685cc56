import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import {
  compareUlids,
  formatUlid,
  isCanonicalUlid,
  parseUlid,
  ULID_MAX_TIME,
  ulidFromParts,
  UlidGenerator,
  ulidTime,
} from './index.js';

describe('ULID encoding', () => {
  it('matches the ULID spec example for time 1469918176385', () => {
    const id = ulidFromParts(1469918176385, new Uint8Array(10));
    expect(id.slice(0, 10)).toBe('01ARYZ6S41');
    expect(ulidTime(id)).toBe(1469918176385);
  });

  it('encodes the extremes', () => {
    expect(formatUlid(new Uint8Array(16))).toBe('00000000000000000000000000');
    expect(formatUlid(new Uint8Array(16).fill(255))).toBe('7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
    expect(ulidTime('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe(ULID_MAX_TIME);
  });

  it('rejects bad strings with messages naming the value', () => {
    expect(() => parseUlid('01ARYZ6S41')).toThrow(/"01ARYZ6S41": length 10/);
    expect(() => parseUlid('01ARYZ6S41TSV4RRFFQ69G5FAU')).toThrow(/character "U" at position 25/);
    expect(() => parseUlid('8ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toThrow(/overflows 128 bits/);
    expect(() => ulidFromParts(ULID_MAX_TIME + 1, new Uint8Array(10))).toThrow(/281474976710656/);
  });

  it('accepts lower case but only upper case is canonical', () => {
    expect(isCanonicalUlid('01arz3ndektsv4rrffq69g5fav')).toBe(false);
    expect(isCanonicalUlid('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(true);
    expect(compareUlids('01arz3ndektsv4rrffq69g5fav', '01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe(0);
  });

  it('round-trips any 16 bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), (b) => {
        expect(parseUlid(formatUlid(b))).toEqual(b);
      }),
    );
  });

  it('orders by time first, whatever the entropy', () => {
    const entropy = fc.uint8Array({ minLength: 10, maxLength: 10 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: ULID_MAX_TIME }),
        fc.integer({ min: 0, max: ULID_MAX_TIME }),
        entropy,
        entropy,
        (t1, t2, e1, e2) => {
          const a = ulidFromParts(t1, e1);
          const b = ulidFromParts(t2, e2);
          if (t1 < t2) expect(compareUlids(a, b)).toBe(-1);
          if (t1 > t2) expect(compareUlids(a, b)).toBe(1);
          expect(a < b).toBe(compareUlids(a, b) < 0);
          expect(ulidTime(a)).toBe(t1);
        },
      ),
    );
  });
});

describe('UlidGenerator', () => {
  it('takes time from the Clock and entropy from the stream, reproducibly', () => {
    const make = () =>
      new UlidGenerator(
        {},
        { clock: new ManualClock(1700000000123), random: createSeededRandom('s').stream('ulid') },
      );
    const a = make();
    const b = make();
    const ids = [a.next(), a.next()];
    expect([b.next(), b.next()]).toEqual(ids);
    expect(ulidTime(ids[0] as string)).toBe(1700000000123);
    expect(ids[0]).not.toBe(ids[1]);
  });

  it('is strictly increasing within a millisecond when monotonic', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 50 }),
        async (seed, steps) => {
          const clock = new ManualClock(1000);
          const gen = new UlidGenerator(
            { monotonic: true },
            { clock, random: createSeededRandom(seed).stream('ulid') },
          );
          let prev = gen.next();
          for (const step of steps) {
            await clock.advance(step);
            const id = gen.next();
            expect(compareUlids(prev, id)).toBe(-1);
            prev = id;
          }
        },
      ),
    );
  });

  it('fails when the entropy of one millisecond is exhausted', () => {
    const random = createSeededRandom('x').stream('u');
    const ones = { ...random, bytes: (n: number) => new Uint8Array(n).fill(255) };
    const gen = new UlidGenerator({ monotonic: true }, { clock: new ManualClock(5), random: ones });
    gen.next();
    expect(() => gen.next()).toThrow(/entropy exhausted within millisecond 5/);
  });
});
