import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JSON_RING_CODEC } from './codec.js';
import { INSTANCE_STATES, type InstanceDesc, type RingDesc } from './model.js';

const instanceArb: fc.Arbitrary<InstanceDesc> = fc.record({
  addr: fc.string(),
  timestamp: fc.integer({ min: 0, max: 2 ** 40 }),
  state: fc.constantFrom(...INSTANCE_STATES),
  tokens: fc
    .uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 8 })
    .map((t) => t.sort((a, b) => a - b)),
  zone: fc.string(),
  registeredTimestamp: fc.integer({ min: 0, max: 2 ** 40 }),
});

const descArb: fc.Arbitrary<RingDesc> = fc
  .dictionary(fc.string({ minLength: 1 }), instanceArb, { maxKeys: 6 })
  .map((ingesters) => ({ ingesters }));

describe('JSON ring codec', () => {
  it('round-trips any descriptor', () => {
    fc.assert(
      fc.property(descArb, (desc) => {
        expect(JSON_RING_CODEC.decode(JSON_RING_CODEC.encode(desc))).toEqual(desc);
      }),
    );
  });

  it('encodes deterministically (sorted instance IDs) with Cortex field names', () => {
    const a: InstanceDesc = {
      addr: 'x:1',
      timestamp: 5,
      state: 'ACTIVE',
      tokens: [1, 2],
      zone: 'z',
      registeredTimestamp: 3,
    };
    const text = new TextDecoder().decode(JSON_RING_CODEC.encode({ ingesters: { b: a, a } }));
    expect(text).toBe(
      '{"ingesters":{"a":{"addr":"x:1","timestamp":5,"state":"ACTIVE","tokens":[1,2],"zone":"z","registered_timestamp":3},' +
        '"b":{"addr":"x:1","timestamp":5,"state":"ACTIVE","tokens":[1,2],"zone":"z","registered_timestamp":3}}}',
    );
  });

  it('decodes a missing key as an empty ring and fills defaults', () => {
    expect(JSON_RING_CODEC.decode(undefined)).toEqual({ ingesters: {} });
    const d = JSON_RING_CODEC.decode(
      new TextEncoder().encode('{"ingesters":{"i":{"tokens":[9,3,9]}}}'),
    );
    expect(d.ingesters['i']).toEqual({
      addr: '',
      timestamp: 0,
      state: 'ACTIVE',
      tokens: [3, 9],
      zone: '',
      registeredTimestamp: 0,
    });
  });

  it('treats IDs such as __proto__ and constructor as ordinary instance IDs', () => {
    const d = JSON_RING_CODEC.decode(
      new TextEncoder().encode(
        '{"ingesters":{"__proto__":{"addr":"p"},"constructor":{"addr":"c"}}}',
      ),
    );
    expect(Object.keys(d.ingesters).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.hasOwn(d.ingesters, 'toString')).toBe(false);
    expect(d.ingesters['toString' as string] === undefined).toBe(true);
    const again = JSON_RING_CODEC.decode(JSON_RING_CODEC.encode(d));
    expect(again.ingesters['__proto__']?.addr).toBe('p');
    expect(again.ingesters['constructor']?.addr).toBe('c');
  });

  it.each([
    ['{oops', 'ring descriptor is not valid JSON'],
    ['[]', 'ring descriptor is not a JSON object'],
    ['{"ingesters":{"i":{"state":"SLEEPING"}}}', 'instance "i": unknown state "SLEEPING"'],
    ['{"ingesters":{"i":{"tokens":[-1]}}}', 'instance "i": tokens must be an array of uint32'],
    ['{"ingesters":{"i":{"tokens":"7"}}}', 'instance "i": tokens must be an array of uint32'],
    ['{"ingesters":{"i":{"tokens":[1,2.5]}}}', 'instance "i": tokens must be an array of uint32'],
    ['{"ingesters":{"i":{"tokens":[5,1e10]}}}', 'instance "i": tokens must be an array of uint32'],
    ['{"ingesters":{"i":{"timestamp":"now"}}}', 'instance "i": timestamp must be an integer'],
  ])('rejects %s', (text, message) => {
    expect(() => JSON_RING_CODEC.decode(new TextEncoder().encode(text))).toThrow(message);
  });
});
