import { describe, expect, it } from 'vitest';
import { jumpHash, naturalCompare, naturalSort, ServerSelector } from './server_selector.js';

const keys = Array.from({ length: 5000 }, (_, i) => `P:01HBLOCK${i}:postings-${i * 7}`);

describe('jumpHash', () => {
  it('matches the reference algorithm on known values', () => {
    // Values from the Lamping & Veach paper's reference implementation (Go / C++).
    expect(jumpHash(0n, 1)).toBe(0);
    expect(jumpHash(1n, 1)).toBe(0);
    expect(jumpHash(0n, 100)).toBe(0);
    expect([1n, 2n, 3n, 4n, 5n].map((k) => jumpHash(k, 100))).toEqual([55, 62, 8, 45, 59]);
  });

  it('is stable and moves about 1/n of the keys when a bucket is appended', () => {
    const sel4 = new ServerSelector(['a:1', 'b:1', 'c:1', 'd:1']);
    const sel5 = new ServerSelector(['a:1', 'b:1', 'c:1', 'd:1', 'e:1']);
    let moved = 0;
    const counts = new Map<string, number>();
    for (const k of keys) {
      const before = sel4.pick(k)!;
      const after = sel5.pick(k)!;
      expect(sel4.pick(k)).toBe(before);
      counts.set(before, (counts.get(before) ?? 0) + 1);
      if (before !== after) {
        moved++;
        expect(after).toBe('e:1'); // keys only ever move to the new server
      }
    }
    expect(moved / keys.length).toBeGreaterThan(0.15);
    expect(moved / keys.length).toBeLessThan(0.25);
    for (const n of counts.values()) expect(n / keys.length).toBeGreaterThan(0.2);
  });
});

describe('natural sort', () => {
  it('orders digit runs numerically', () => {
    expect(naturalCompare('mc-2', 'mc-10')).toBeLessThan(0);
    expect(naturalSort(['mc-10:11211', 'mc-2:11211', 'mc-1:11211'])).toEqual([
      'mc-1:11211',
      'mc-2:11211',
      'mc-10:11211',
    ]);
    expect(naturalSort(['10.0.0.10:11211', '10.0.0.9:11211', '10.0.0.9:1121'])).toEqual([
      '10.0.0.9:1121',
      '10.0.0.9:11211',
      '10.0.0.10:11211',
    ]);
    expect(naturalSort(['b', 'a2', 'a10', 'a'])).toEqual(['a', 'a2', 'a10', 'b']);
  });

  it('makes selection independent of the order servers are listed in', () => {
    const a = new ServerSelector(['mc-10:1', 'mc-2:1', 'mc-1:1']);
    const b = new ServerSelector(['mc-1:1', 'mc-2:1', 'mc-10:1', 'mc-2:1']);
    expect(a.servers).toEqual(['mc-1:1', 'mc-2:1', 'mc-10:1']);
    expect(b.servers).toEqual(a.servers);
    for (const k of keys.slice(0, 200)) expect(a.pick(k)).toBe(b.pick(k));
  });

  it('picks the only server without hashing and nothing when empty', () => {
    expect(new ServerSelector(['x:1']).pick('anything')).toBe('x:1');
    expect(new ServerSelector([]).pick('anything')).toBeUndefined();
  });
});
