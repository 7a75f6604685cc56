import { describe, expect, it } from 'vitest';
import type { SeriesSampleIterator } from './series_set.js';
import { ValueType } from '../chunkenc/index.js';
import { MergedSampleIterator } from './merge_iterator.js';

/** An iterator over fixed samples. */
class ArrayIterator implements SeriesSampleIterator {
  private i = -1;
  constructor(
    private readonly samples: readonly (readonly [number, number])[],
    private readonly failAtEnd: Error | null = null,
  ) {}
  next(): ValueType {
    this.i++;
    return this.i < this.samples.length ? ValueType.Float : ValueType.None;
  }
  seek(t: number): ValueType {
    if (this.i < 0) this.i = 0;
    while (this.i < this.samples.length && this.atT() < t) this.i++;
    return this.i < this.samples.length ? ValueType.Float : ValueType.None;
  }
  atT(): number {
    return (this.samples[this.i] as readonly [number, number])[0];
  }
  atF(): number {
    return (this.samples[this.i] as readonly [number, number])[1];
  }
  err(): Error | null {
    return this.i >= this.samples.length ? this.failAtEnd : null;
  }
}

function drain(it: SeriesSampleIterator): [number, number][] {
  const out: [number, number][] = [];
  while (it.next() === ValueType.Float) out.push([it.atT(), it.atF()]);
  return out;
}

describe('MergedSampleIterator', () => {
  it('merges in time order and keeps the first source’s sample at equal timestamps', () => {
    const it = new MergedSampleIterator([
      new ArrayIterator([
        [1, 10],
        [3, 30],
        [5, 50],
      ]),
      new ArrayIterator([
        [2, 20],
        [3, 99],
        [6, 60],
      ]),
      new ArrayIterator([]),
    ]);
    expect(drain(it)).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
      [5, 50],
      [6, 60],
    ]);
    expect(it.next()).toBe(ValueType.None);
    expect(it.err()).toBeNull();
  });

  it('seeks forward and never backwards', () => {
    const it = new MergedSampleIterator([
      new ArrayIterator([
        [1, 1],
        [4, 4],
      ]),
      new ArrayIterator([
        [2, 2],
        [5, 5],
      ]),
    ]);
    expect(it.seek(3)).toBe(ValueType.Float);
    expect(it.atT()).toBe(4);
    expect(it.seek(1)).toBe(ValueType.Float);
    expect(it.atT()).toBe(4);
    expect(drain(it)).toEqual([[5, 5]]);
    expect(it.seek(9)).toBe(ValueType.None);
  });

  it('stops with the error of a failing source', () => {
    const boom = new Error('chunk 7 corrupt');
    const it = new MergedSampleIterator([
      new ArrayIterator([[1, 1]], boom),
      new ArrayIterator([[2, 2]]),
    ]);
    expect(it.next()).toBe(ValueType.Float);
    expect(it.next()).toBe(ValueType.None);
    expect(it.err()).toBe(boom);
  });
});
