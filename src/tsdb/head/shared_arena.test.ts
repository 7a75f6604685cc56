import { describe, expect, it } from 'vitest';
import { SharedArena } from './shared_arena.js';

describe('SharedArena', () => {
  it('copies bytes into shared blocks that grow from 1 KiB to the block size', () => {
    const arena = new SharedArena(4096);
    const seen = new Set<ArrayBufferLike>();
    const sizes: number[] = [];
    for (let i = 0; i < 40; i++) {
      const src = Uint8Array.from({ length: 300 }, (_, k) => (i + k) & 0xff);
      const copy = arena.copy(src);
      expect(copy.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect(copy).toEqual(src);
      if (!seen.has(copy.buffer)) {
        seen.add(copy.buffer);
        sizes.push(copy.buffer.byteLength);
      }
    }
    expect(sizes.slice(0, 4)).toEqual([1024, 2048, 4096, 4096]);
  });

  it('gives bytes larger than a block a block of their own', () => {
    const arena = new SharedArena(1024);
    const big = new Uint8Array(5000).fill(7);
    const copy = arena.copy(big);
    expect(copy.buffer.byteLength).toBe(5000);
    expect(copy).toEqual(big);
    // Earlier copies are never overwritten by later ones.
    const small = arena.copy(new Uint8Array([1, 2, 3]));
    expect(copy.every((b) => b === 7)).toBe(true);
    expect(small).toEqual(new Uint8Array([1, 2, 3]));
  });
});
