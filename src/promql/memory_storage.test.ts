import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../model/index.js';
import { MemoryStorage } from './memory_storage.js';
import { SAMPLE_FLOAT, SAMPLE_NONE } from './storage.js';

const STALE_BITS = 0x7ff0000000000002n;

function bitsOf(v: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0);
}

function staleNaN(): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, STALE_BITS);
  return view.getFloat64(0);
}

async function samples(s: MemoryStorage, mint: number, maxt: number): Promise<[number, number][]> {
  const q = await s.querier(mint, maxt);
  const out: [number, number][] = [];
  for (const series of await q.select([Matcher.equal('__name__', 'm')])) {
    const it = series.iterator();
    while (it.next() === SAMPLE_FLOAT) out.push([it.atT(), it.atF()]);
    expect(it.next()).toBe(SAMPLE_NONE);
  }
  return out;
}

describe('MemoryStorage', () => {
  const m = Labels.fromStrings('__name__', 'm');

  it('keeps samples sorted, replaces equal timestamps and clips to the querier range', async () => {
    const s = new MemoryStorage();
    for (const t of [50, 10, 30, 20, 40, 60, 70, 80, 90, 0]) s.add(m, t, t / 10);
    s.add(m, 30, -1);
    expect(await samples(s, 0, 1000)).toEqual([
      [0, 0],
      [10, 1],
      [20, 2],
      [30, -1],
      [40, 4],
      [50, 5],
      [60, 6],
      [70, 7],
      [80, 8],
      [90, 9],
    ]);
    expect(await samples(s, 15, 45)).toEqual([
      [20, 2],
      [30, -1],
      [40, 4],
    ]);
  });

  it('preserves the stale marker bit pattern', async () => {
    const s = new MemoryStorage();
    s.add(m, 1, 1);
    s.add(m, 3, staleNaN());
    s.add(m, 2, staleNaN()); // inserted in the middle too
    // Read the bits straight off the iterator: plain JS arrays (like the pairs `samples()`
    // builds) set the NaN's quiet bit when they store it.
    const [series] = await (await s.querier(0, 10)).select([Matcher.equal('__name__', 'm')]);
    const it = series!.iterator();
    const bits: bigint[] = [];
    while (it.next() === SAMPLE_FLOAT) bits.push(bitsOf(it.atF()));
    expect(bits.slice(1)).toEqual([STALE_BITS, STALE_BITS]);
  });

  it('answers label names and values for matching series in range only', async () => {
    const s = new MemoryStorage();
    s.add(Labels.fromStrings('__name__', 'm', 'a', 'x'), 10, 1);
    s.add(Labels.fromStrings('__name__', 'n', 'b', 'y'), 100, 1);
    const q = await s.querier(0, 50);
    expect(await q.labelNames([])).toEqual(['__name__', 'a']);
    expect(await q.labelValues('__name__', [])).toEqual(['m']);
    const all = await s.querier(0, 200);
    expect(await all.labelValues('__name__', [Matcher.regex('__name__', 'n|m')])).toEqual([
      'm',
      'n',
    ]);
  });
});
