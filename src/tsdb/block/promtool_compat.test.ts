// Compatibility with blocks Prometheus itself writes: Debian's promtool (2.42) builds a block
// from a generated OpenMetrics file, and we read its meta.json, chunk segments and tombstones,
// decode every chunk, and write them again with our writers, expecting the same bytes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { Encoding, ValueType, XorChunk } from '../chunkenc/index.js';
import {
  ChunkReader,
  ChunkWriter,
  decodeTombstonesFile,
  encodeTombstonesFile,
  FileSegmentSource,
  parseBlockMeta,
  readBlockMeta,
  serializeBlockMeta,
  ulidTime,
  walkSegment,
  type StoredChunk,
} from './index.js';

const PROMTOOL = '/usr/bin/promtool';
const START_MS = 1_700_000_000_000; // inside the 2h block [1699999200000, 1700006400000)
const SPAN_MS = 5_400_000;

/** Deterministic generator (no Math.random in tests either: failures must replay). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

const valueKey = (t: number, v: number): string =>
  `${t}:${Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '-0' : String(v)}`;

/** OpenMetrics text with counters, jittery gauges and special values; the expected samples. */
function generate(): { text: string; samples: string[] } {
  const rand = lcg(42);
  const lines: string[] = [];
  const samples: string[] = [];
  const families = [
    { name: 'requests_total', type: 'counter' },
    { name: 'temperature', type: 'gauge' },
  ];
  for (const fam of families) {
    lines.push(`# TYPE ${fam.name} ${fam.type}`);
    for (let s = 0; s < 12; s++) {
      const interval = [1000, 15000, 30000][s % 3] as number;
      let t = START_MS + Math.floor(rand() * 8) * 125;
      let counter = 0;
      while (t < START_MS + SPAN_MS) {
        let v: number;
        if (fam.type === 'counter') {
          counter += Math.floor(rand() * 100);
          v = counter;
        } else {
          const r = rand();
          v =
            r < 0.02
              ? NaN
              : r < 0.03
                ? Infinity
                : r < 0.04
                  ? -Infinity
                  : r < 0.1
                    ? 1e-300 * rand()
                    : r < 0.15
                      ? 1e300 * rand()
                      : (rand() - 0.5) * 100;
        }
        const name = fam.name;
        const sec = `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}`;
        lines.push(`${name}{instance="host-${s}",job="gen"} ${formatValue(v)} ${sec}`);
        samples.push(valueKey(t, v));
        // Irregular intervals, in multiples of 125 ms so the seconds are exact binary fractions.
        t += interval + (Math.floor(rand() * 9) - 4) * 125 + (rand() < 0.05 ? interval * 3 : 0);
      }
    }
  }
  lines.push('# EOF', '');
  return { text: lines.join('\n'), samples };
}

describe('blocks written by promtool tsdb create-blocks-from openmetrics', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-promtool-block-'));
  const fs = new NodeFileSystem();
  const { text, samples } = generate();
  let blockDir = '';

  beforeAll(() => {
    const input = join(work, 'input.om');
    writeFileSync(input, text);
    const out = join(work, 'out');
    execFileSync(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', input, out], {
      stdio: 'pipe',
    });
    const blocks = readdirSync(out);
    expect(blocks).toHaveLength(1);
    blockDir = join(out, blocks[0] as string);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  async function segments(): Promise<Uint8Array[]> {
    const dir = join(blockDir, 'chunks');
    return Promise.all((await fs.readdir(dir)).map((n) => fs.readFile(`${dir}/${n}`)));
  }

  it('reads meta.json and writes it back byte for byte', async () => {
    const original = readFileSync(join(blockDir, 'meta.json'), 'utf8');
    const meta = await readBlockMeta(blockDir, { fs });
    expect(meta.ulid).toBe(blockDir.split('/').at(-1));
    expect(meta.compaction).toEqual({ level: 1, sources: [meta.ulid] });
    expect(meta.stats.numSeries).toBe(24);
    expect(meta.stats.numSamples).toBe(samples.length);
    expect(meta.minTime).toBeGreaterThanOrEqual(START_MS);
    expect(meta.maxTime).toBeLessThanOrEqual(START_MS + SPAN_MS + 1);
    expect(ulidTime(meta.ulid)).toBeGreaterThan(START_MS);
    expect(serializeBlockMeta(meta)).toBe(original);
    expect(parseBlockMeta(serializeBlockMeta(meta))).toEqual(meta);
  });

  it('walks every chunk (CRCs checked), decodes it and finds exactly the samples given', async () => {
    const meta = await readBlockMeta(blockDir, { fs });
    const chunks = (await segments()).flatMap((bytes, i) => [...walkSegment(bytes, i)]);
    expect(chunks).toHaveLength(meta.stats.numChunks);
    const decoded: string[] = [];
    for (const c of chunks) {
      expect(c.encoding).toBe(Encoding.XOR);
      const it = XorChunk.fromBytes(c.data).iterator();
      while (it.next() === ValueType.Float) decoded.push(valueKey(it.atT(), it.atF()));
      expect(it.err()).toBeNull();
    }
    expect(decoded.sort()).toEqual([...samples].sort());
  });

  it('reads each chunk by ref through the byte-range reader', async () => {
    const chunks = (await segments()).flatMap((bytes, i) => [...walkSegment(bytes, i)]);
    const source = await FileSegmentSource.open(join(blockDir, 'chunks'), { fs });
    const reader = new ChunkReader(source);
    try {
      for (const c of chunks) {
        const got = await reader.stored(c.ref);
        expect(got.data).toEqual(c.data);
        expect((await reader.chunk(c.ref)).numSamples()).toBe(
          XorChunk.fromBytes(c.data).numSamples(),
        );
      }
    } finally {
      await source.close();
    }
  });

  it('rewrites the chunk segments byte for byte with the same refs', async () => {
    const original = await segments();
    const chunks: StoredChunk[] = original.flatMap((bytes, i) => [...walkSegment(bytes, i)]);
    const dir = join(work, 'rewritten', 'chunks');
    const w = await ChunkWriter.create(dir, {}, { fs });
    const refs = await w.writeChunks(chunks.map((c) => ({ encoding: c.encoding, data: c.data })));
    await w.close();
    expect(refs).toEqual(chunks.map((c) => c.ref));
    const rewritten = await Promise.all(
      (await fs.readdir(dir)).map((n) => fs.readFile(`${dir}/${n}`)),
    );
    expect(rewritten.length).toBe(original.length);
    rewritten.forEach((bytes, i) =>
      expect(Buffer.compare(bytes, original[i] as Uint8Array)).toBe(0),
    );
  });

  it('reads the tombstones file and writes it back byte for byte', () => {
    const bytes = new Uint8Array(readFileSync(join(blockDir, 'tombstones')));
    const t = decodeTombstonesFile(bytes);
    expect(t.total()).toBe(0);
    expect(encodeTombstonesFile(t)).toEqual(bytes);
  });
});
