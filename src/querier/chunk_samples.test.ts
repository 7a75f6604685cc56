import { describe, expect, it } from 'vitest';
import { xorChunks, type Sample } from './blocks_fakes.testing.js';
import { ChunkSampleReader, SampleBlockPool } from './chunk_samples.js';

function samples(from: number, n: number, value: (t: number) => number): Sample[] {
  return Array.from({ length: n }, (_, i): Sample => [from + i * 1000, value(from + i * 1000)]);
}

function read(reader: ChunkSampleReader, list: Sample[]): Sample[] {
  const { ts, fs } = reader.read([xorChunks(list, 120)], -Infinity, Infinity);
  return Array.from(ts, (t, i): Sample => [t, fs[i] as number]);
}

describe('SampleBlockPool', () => {
  it('hands out the smallest free block that fits, else a new one', () => {
    const pool = new SampleBlockPool();
    const small = pool.take(100);
    const large = pool.take(10_000);
    pool.give([large, small]);
    expect(pool.take(50)).toBe(small);
    expect(pool.take(5_000)).toBe(large);
    const fresh = pool.take(50);
    expect([small, large]).not.toContain(fresh);
    expect(fresh.ts.length).toBe(50);
    expect(pool.take(20_000).ts.length).toBe(20_000);
  });

  it('keeps at most its byte budget of free blocks', () => {
    const pool = new SampleBlockPool(16 * 1500);
    const a = pool.take(1000);
    const b = pool.take(1000);
    pool.give([a, b]); // 16 KB each: only the first fits the budget
    expect(pool.take(1000)).toBe(a);
    expect(pool.take(1000)).not.toBe(b);
  });
});

describe('ChunkSampleReader with a pool', () => {
  it('reuses its blocks after release, each read seeing only its own samples', () => {
    const pool = new SampleBlockPool();
    const first = new ChunkSampleReader(pool);
    const a = samples(0, 3000, (t) => t / 7);
    const buffer = first.read([xorChunks(a, 120)], -Infinity, Infinity).ts.buffer;
    first.release();

    const second = new ChunkSampleReader(pool);
    const b = samples(5_000_000, 2000, (t) => -t);
    const c = samples(9_000_000, 10, () => 1.5);
    const gotB = second.read([xorChunks(b, 120)], -Infinity, Infinity);
    expect(gotB.ts.buffer).toBe(buffer); // the first reader's block, handed back
    expect(read(second, c)).toEqual(c);
    expect(Array.from(gotB.ts, (t, i): Sample => [t, gotB.fs[i] as number])).toEqual(b);
  });

  it('gives nothing back before release: a live read is never overwritten', () => {
    const pool = new SampleBlockPool();
    const reader = new ChunkSampleReader(pool);
    const a = samples(0, 100, (t) => t);
    const got = reader.read([xorChunks(a, 120)], -Infinity, Infinity);
    const other = new ChunkSampleReader(pool);
    const theirs = other.read(
      [
        xorChunks(
          samples(0, 100, () => 42),
          120,
        ),
      ],
      -Infinity,
      Infinity,
    );
    expect(theirs.ts.buffer).not.toBe(got.ts.buffer);
    expect(Array.from(got.fs)).toEqual(a.map(([, f]) => f));
  });
});
