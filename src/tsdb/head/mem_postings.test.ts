import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { MemPostings } from './mem_postings.js';

describe('MemPostings', () => {
  it('keeps lists ascending under any insert order and removes deleted refs', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 500 }), { maxLength: 60 }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        (refs, deleteFlags) => {
          const p = new MemPostings();
          const labelsOf = (ref: number) => Labels.fromStrings('a', String(ref % 3), 'b', 'x');
          for (const ref of refs) p.add(ref, labelsOf(ref));
          const dead = new Set(refs.filter((_, i) => deleteFlags[i] === true));
          p.delete(dead, [...dead].map(labelsOf));
          const live = refs.filter((r) => !dead.has(r)).sort((x, y) => x - y);
          expect([...p.postings('', [''])]).toEqual(live);
          expect([...p.postings('b', ['x'])]).toEqual(live);
          for (const v of ['0', '1', '2'])
            expect([...p.postings('a', [v])]).toEqual(live.filter((r) => String(r % 3) === v));
          expect([...p.postings('a', ['0', '2'])]).toEqual(live.filter((r) => r % 3 !== 1));
          expect(p.labelValues('a')).toEqual([...new Set(live.map((r) => String(r % 3)))].sort());
          expect(p.labelNames()).toEqual(live.length === 0 ? [] : ['a', 'b']);
        },
      ),
    );
  });

  it('refuses refs that do not fit a uint32 postings list', () => {
    expect(() => new MemPostings().add(2 ** 32, Labels.fromStrings('a', 'b'))).toThrow(
      /4294967296/,
    );
  });
});
