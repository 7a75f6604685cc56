// Grouping keys and join signatures over label sets that arrive unsplit on the evaluation
// thread (Labels.fromJoined): the same key as for the split set, and no split made.
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { Labels } from '../../model/index.js';
import { groupingKey } from './aggregation.js';
import { signatureFunction } from './binary.js';

const names = fc.constantFrom('__name__', 'a', 'instance', 'job', 'zone');
const sets = fc
  .uniqueArray(fc.tuple(names, fc.constantFrom('', 'x', 'y', 'x\xff')), {
    selector: ([n]) => n,
    maxLength: 5,
  })
  .map((pairs) => Labels.fromPairs(pairs));
const lazy = (l: Labels): Labels => Labels.fromJoined(l.joined(), l.length);

describe('keys over unsplit label sets', () => {
  it('group and join by the same key as the split set, and apart when a value differs', () => {
    fc.assert(
      fc.property(sets, sets, fc.uniqueArray(names, { maxLength: 3 }), (l, o, by) => {
        const grouping = new Set([...by].sort());
        for (const without of [false, true]) {
          expect(groupingKey(lazy(l), without, grouping)).toBe(groupingKey(l, without, grouping));
          const same = by.every((n) => l.find(n) === o.find(n));
          if (!without)
            expect(groupingKey(lazy(l), false, grouping) === groupingKey(o, false, grouping)).toBe(
              same,
            );
        }
        for (const on of [false, true]) {
          const sig = signatureFunction({
            card: 'one-to-one',
            matchingLabels: by,
            on,
            include: [],
          });
          expect(sig(lazy(l))).toBe(sig(l));
          if (on)
            expect(sig(lazy(l)) === sig(lazy(o))).toBe(by.every((n) => l.find(n) === o.find(n)));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('split nothing for a `by` grouping or an `on` signature', () => {
    const l = Labels.fromJoined('__name__\0up\0instance\0i1\0job\0node', 3);
    const split = vi.spyOn(String.prototype, 'split');
    try {
      expect(groupingKey(l, false, new Set(['job', 'zone']))).toBe('job\xffnode\xff');
      const sig = signatureFunction({
        card: 'many-to-one',
        matchingLabels: ['instance'],
        on: true,
        include: [],
      });
      expect(sig(l)).toBe('instance\xffi1\xff');
      expect(split).not.toHaveBeenCalled();
    } finally {
      split.mockRestore();
    }
  });
});
