import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import {
  ChunkReader,
  ChunkWriter,
  FileSegmentSource,
  ReadAheadSegmentSource,
  type ChunkToWrite,
  type SegmentByteSource,
} from './index.js';

function counting(inner: SegmentByteSource): { source: SegmentByteSource; reads: number[] } {
  const reads: number[] = [];
  return {
    reads,
    source: {
      segmentCount: () => inner.segmentCount(),
      read: (segment, offset, length) => {
        reads.push(length);
        return inner.read(segment, offset, length);
      },
    },
  };
}

describe('ReadAheadSegmentSource', () => {
  it('reads chunks in file order across segments with a few bounded reads', async () => {
    const fs = new DiskFileSystem();
    const w = await ChunkWriter.create('/c', { segmentSize: 4096 }, { fs });
    const chunks: ChunkToWrite[] = [];
    const refs: number[] = [];
    for (let i = 0; i < 200; i++) {
      const data = Uint8Array.from({ length: 20 + (i % 50) }, (_, j) => (i * 7 + j) % 256);
      const chunk = { encoding: 1, data };
      chunks.push(chunk);
      refs.push(...(await w.writeChunks([chunk])));
    }
    await w.close();
    const files = await FileSegmentSource.open('/c', { fs });
    try {
      expect(files.segmentCount()).toBeGreaterThan(1);
      const { source, reads } = counting(files);
      const reader = new ChunkReader(new ReadAheadSegmentSource(source, 1024));
      for (let i = 0; i < refs.length; i++) {
        const stored = await reader.stored(refs[i] as number);
        expect(stored.data).toEqual((chunks[i] as ChunkToWrite).data);
      }
      // Far fewer reads than chunks, none larger than the window.
      expect(reads.length).toBeLessThan(refs.length / 4);
      expect(Math.max(...reads)).toBeLessThanOrEqual(1024);
    } finally {
      await files.close();
    }
  });
});
