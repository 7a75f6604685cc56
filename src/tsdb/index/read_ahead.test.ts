import { describe, expect, it } from 'vitest';
import { bytesSource, type ByteSource } from './byte_source.js';
import { ReadAheadWindow, readAheadSource } from './read_ahead.js';

function counting(bytes: Uint8Array): { source: ByteSource; reads: Array<[number, number]> } {
  const inner = bytesSource(bytes);
  const reads: Array<[number, number]> = [];
  return {
    reads,
    source: {
      size: inner.size,
      read(offset, length) {
        reads.push([offset, length]);
        return inner.read(offset, length);
      },
    },
  };
}

const DATA = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

describe('readAheadSource', () => {
  it('answers an in-order walk of small reads from few bounded window reads', async () => {
    const { source, reads } = counting(DATA);
    const ra = readAheadSource(source, 100);
    for (let off = 0; off + 7 <= DATA.length; off += 7) {
      expect(await ra.read(off, 7)).toEqual(DATA.subarray(off, off + 7));
    }
    // Ten windows of 100 bytes cover the file; no read is larger than the window.
    expect(reads.length).toBeLessThanOrEqual(11);
    expect(Math.max(...reads.map(([, l]) => l))).toBeLessThanOrEqual(100);
  });

  it('still serves random and large reads exactly, and rejects reads past the end', async () => {
    const { source, reads } = counting(DATA);
    const ra = readAheadSource(source, 64);
    expect(await ra.read(990, 10)).toEqual(DATA.subarray(990, 1000));
    expect(await ra.read(5, 3)).toEqual(DATA.subarray(5, 8));
    expect(await ra.read(0, 500)).toEqual(DATA.subarray(0, 500));
    // The window at 990 was clipped to the file's end.
    expect(reads[0]).toEqual([990, 10]);
    expect(reads.at(-1)).toEqual([0, 500]);
    await expect(ra.read(995, 10)).rejects.toThrow(/past the end/);
  });

  it('keeps views of earlier windows valid after a refill', async () => {
    const ra = readAheadSource(bytesSource(DATA.slice()), 16);
    const first = await ra.read(0, 8);
    await ra.read(500, 8);
    expect(first).toEqual(DATA.subarray(0, 8));
  });
});

describe('ReadAheadWindow', () => {
  it('returns fewer bytes only where the file ends', async () => {
    const w = new ReadAheadWindow(
      (o, l) => Promise.resolve(DATA.slice(o, Math.min(DATA.length, o + l))),
      256,
    );
    expect((await w.read(900, 200)).length).toBe(100);
    expect(() => new ReadAheadWindow(() => Promise.resolve(DATA), 0)).toThrow(RangeError);
  });
});
