import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { crc32c } from '../encoding/index.js';
import { Encoding, ValueType, XorChunk } from '../chunkenc/index.js';
import {
  ChunkCorruptionError,
  ChunkReader,
  ChunkWriter,
  chunkRef,
  chunkRefOffset,
  chunkRefSegment,
  FileSegmentSource,
  MAX_CHUNK_LENGTH_FIELD_SIZE,
  SEGMENT_HEADER_SIZE,
  walkSegment,
  type ChunkToWrite,
  type SegmentByteSource,
} from './index.js';

const root = mkdtempSync(join(tmpdir(), 'strata-chunks-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fs = new NodeFileSystem();
let dirCounter = 0;
const freshDir = () => join(root, `b${dirCounter++}`, 'chunks');

function memorySource(segments: Uint8Array[]): SegmentByteSource {
  return {
    segmentCount: () => segments.length,
    read: (segment, offset, length) => {
      const s = segments[segment];
      if (s === undefined) return Promise.reject(new Error(`no segment ${segment}`));
      return Promise.resolve(s.subarray(offset, offset + length));
    },
  };
}

async function readSegments(dir: string): Promise<Uint8Array[]> {
  const names = await fs.readdir(dir);
  return Promise.all(names.map((n) => fs.readFile(`${dir}/${n}`)));
}

describe('chunk refs', () => {
  it('pack segment and offset like Prometheus (segment << 32 | offset)', () => {
    const ref = chunkRef(3, 0x1234);
    expect(BigInt(ref)).toBe((3n << 32n) | 0x1234n);
    expect(chunkRefSegment(ref)).toBe(3);
    expect(chunkRefOffset(ref)).toBe(0x1234);
    expect(() => chunkRef(0, 2 ** 32)).toThrow(/4294967296/);
    expect(() => chunkRef(2 ** 21, 0)).toThrow(/2097152/);
  });
});

describe('ChunkWriter', () => {
  it('writes the exact segment layout (golden bytes)', async () => {
    const dir = freshDir();
    const w = await ChunkWriter.create(dir, {}, { fs });
    const data = Uint8Array.of(0x00, 0x01, 0xaa);
    const refs = await w.writeChunks([{ encoding: Encoding.XOR, data }]);
    await w.close();
    expect(await fs.readdir(dir)).toEqual(['000001']);
    const crc = crc32c(Uint8Array.of(0x01, 0x00, 0x01, 0xaa));
    expect([...(await fs.readFile(`${dir}/000001`))]).toEqual([
      0x85,
      0xbd,
      0x40,
      0xdd,
      0x01,
      0x00,
      0x00,
      0x00, // header
      0x03,
      0x01,
      0x00,
      0x01,
      0xaa, // len, encoding, data
      crc >>> 24,
      (crc >>> 16) & 0xff,
      (crc >>> 8) & 0xff,
      crc & 0xff,
    ]);
    expect(refs).toEqual([SEGMENT_HEADER_SIZE]);
  });

  it('creates no segment file when nothing is written', async () => {
    const dir = freshDir();
    const w = await ChunkWriter.create(dir, {}, { fs });
    await w.close();
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('round-trips chunks of random sizes across a small segment limit', async () => {
    const chunkArb = fc.record({
      encoding: fc.constantFrom(1, 2, 3),
      data: fc.uint8Array({ minLength: 1, maxLength: 300 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(chunkArb, { maxLength: 12 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 64, max: 1500 }),
        async (calls, segmentSize) => {
          const dir = freshDir();
          const w = await ChunkWriter.create(dir, { segmentSize, flushBytes: 200 }, { fs });
          const written: Array<{ chunk: ChunkToWrite; ref: number }> = [];
          for (const call of calls) {
            const refs = await w.writeChunks(call);
            call.forEach((chunk, i) => written.push({ chunk, ref: refs[i] as number }));
          }
          await w.close();
          const segments = await readSegments(dir);
          // A segment only exceeds the limit when it holds a single chunk that is larger.
          // Only the first can be empty (an empty first write opens it, as in Prometheus).
          segments.forEach((s, i) => {
            const chunks = [...walkSegment(s, i)];
            if (chunks.length > 1) expect(s.length).toBeLessThanOrEqual(segmentSize);
            if (i > 0) expect(chunks.length).toBeGreaterThan(0);
          });
          // Walking the segments yields every chunk in order with its ref.
          const walked = segments.flatMap((s, i) => [...walkSegment(s, i)]);
          expect(walked.map((c) => c.ref)).toEqual(written.map((x) => x.ref));
          const source = await FileSegmentSource.open(dir, { fs });
          const reader = new ChunkReader(source);
          for (const { chunk, ref } of written) {
            const got = await reader.stored(ref);
            expect(got.encoding).toBe(chunk.encoding);
            expect(got.data).toEqual(chunk.data);
          }
          await source.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('cuts segments where Prometheus does (5 bytes reserved per length field)', async () => {
    const dir = freshDir();
    // Each 10-byte chunk takes 16 bytes but is budgeted as 5+1+10+4 = 20 bytes.
    const w = await ChunkWriter.create(dir, { segmentSize: 8 + 40 }, { fs });
    const chunk = { encoding: 1, data: new Uint8Array(10).fill(7) };
    const refs = await w.writeChunks([chunk, chunk, chunk]);
    await w.close();
    expect(refs.map((r) => [chunkRefSegment(r), chunkRefOffset(r)])).toEqual([
      [0, 8],
      [0, 24],
      [1, 8],
    ]);
    expect((await readSegments(dir)).map((s) => s.length)).toEqual([40, 24]);
    expect(MAX_CHUNK_LENGTH_FIELD_SIZE).toBe(5);
  });

  it('reads XOR chunks back as chunks', async () => {
    const dir = freshDir();
    const c = new XorChunk();
    const app = c.appender();
    for (let i = 0; i < 200; i++) app.append(1000 * i, Math.sin(i));
    const w = await ChunkWriter.create(dir, {}, { fs });
    const [ref] = await w.writeChunks([{ encoding: c.encoding(), data: c.bytes() }]);
    await w.close();
    const source = await FileSegmentSource.open(dir, { fs });
    const back = await new ChunkReader(source).chunk(ref as number);
    const it = back.iterator();
    let n = 0;
    while (it.next() === ValueType.Float) {
      expect(it.atT()).toBe(1000 * n);
      expect(it.atF()).toBe(Math.sin(n));
      n++;
    }
    expect(n).toBe(200);
    await source.close();
  });
});

describe('ChunkReader errors', () => {
  async function oneSegment(): Promise<{ bytes: Uint8Array; refs: number[] }> {
    const dir = freshDir();
    const w = await ChunkWriter.create(dir, {}, { fs });
    const refs = await w.writeChunks([
      { encoding: 1, data: new Uint8Array(20).fill(1) },
      { encoding: 1, data: new Uint8Array(600).fill(2) },
    ]);
    await w.close();
    return { bytes: await fs.readFile(`${dir}/000001`), refs };
  }

  it('names segment and offset on a CRC mismatch', async () => {
    const { bytes, refs } = await oneSegment();
    const second = refs[1] as number;
    bytes[second + 10] = (bytes[second + 10] as number) ^ 0xff;
    const reader = new ChunkReader(memorySource([bytes]));
    await expect(reader.stored(refs[0] as number)).resolves.toBeDefined();
    const err: unknown = await reader.stored(second).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChunkCorruptionError);
    expect(String(err)).toContain(
      `chunk segment 0 (file 000001) offset ${second}: checksum mismatch`,
    );
    expect(() => [...walkSegment(bytes, 0)]).toThrow(`offset ${second}: checksum mismatch`);
  });

  it('rejects refs past the segments, truncated chunks and bad headers', async () => {
    const { bytes, refs } = await oneSegment();
    const reader = new ChunkReader(memorySource([bytes.subarray(0, bytes.length - 3)]));
    await expect(reader.stored(refs[1] as number)).rejects.toThrow(
      /offset 34: segment doesn't include enough bytes/,
    );
    await expect(reader.stored(chunkRef(4, 8))).rejects.toThrow(
      /segment index 4, but the block has 1/,
    );
    const bad = bytes.slice();
    bad[0] = 0;
    await expect(new ChunkReader(memorySource([bad])).stored(refs[0] as number)).rejects.toThrow(
      /invalid magic number 0x00bd40dd/,
    );
  });
});
