import { describe, expect, it } from 'vitest';
import { forEachBounded } from './bounded.js';

describe('forEachBounded', () => {
  it('never runs more than the limit at once, runs every item, throws the first error', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    const items = [1, 2, 3, 4, 5, 6, 7];
    await expect(
      forEachBounded(items, 3, async (n) => {
        running++;
        peak = Math.max(peak, running);
        for (let i = 0; i < n; i++) await Promise.resolve();
        running--;
        done.push(n);
        if (n === 2 || n === 5) throw new Error(`boom ${n}`);
      }),
    ).rejects.toThrow('boom 2');
    expect(peak).toBe(3);
    expect([...done].sort()).toEqual(items);
  });
});
