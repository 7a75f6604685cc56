import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Labels, Matcher, compareGoStrings, type MatchType } from '../../model/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { crc32c } from '../encoding/index.js';
import {
  IndexFormatError,
  IndexReader,
  IndexWriter,
  bytesSource,
  openFileSource,
  postingsForMatchers,
  type ChunkMeta,
} from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'strata-index-'));
const fs = new NodeFileSystem(dir);
let fileCounter = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface SeriesInput {
  labels: Labels;
  chunks: ChunkMeta[];
}

async function writeIndex(series: readonly SeriesInput[]): Promise<Uint8Array> {
  const path = `index-${fileCounter++}`;
  const writer = new IndexWriter({ path }, { fs });
  const symbols = new Set<string>();
  for (const s of series) s.labels.forEach((n, v) => symbols.add(n).add(v));
  await writer.addSymbols(symbols);
  let ref = 0;
  for (const s of series) await writer.addSeries(ref++, s.labels, s.chunks);
  await writer.close();
  return new Uint8Array(readFileSync(join(dir, path)));
}

function flipBit(bytes: Uint8Array, at: number): void {
  bytes[at] = (bytes[at] as number) ^ 1;
}

function be32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

function be64(n: number): number[] {
  return [0, 0, 0, 0, ...be32(n)];
}

/** A section body followed by its CRC32C. */
function withCrc(body: number[]): number[] {
  return [...body, ...be32(crc32c(Uint8Array.from(body)))];
}

describe('IndexWriter golden bytes', () => {
  it('writes the layout derived by hand from the format description', async () => {
    const bytes = await writeIndex([
      { labels: Labels.fromStrings('a', 'b'), chunks: [{ minTime: 1, maxTime: 3, ref: 8 }] },
    ]);
    const expected: number[] = [
      ...[0xba, 0xaa, 0xd7, 0x00, 0x02], // magic, version 2
      // 5: symbol table: len 8, count 2, "a", "b"
      ...be32(8),
      ...withCrc([...be32(2), 0x01, 0x61, 0x01, 0x62]),
      ...new Array<number>(11).fill(0), // pad 21 → 32
      // 32 (series 2): len 7 | 1 label (a=b as symbol refs 0, 1) | 1 chunk (mint 1, +2, ref 8)
      0x07,
      ...withCrc([0x01, 0x00, 0x01, 0x01, 0x02, 0x02, 0x08]),
      // 44: label index for "a": len 12, 1 name, 1 entry, value ref 1
      ...be32(12),
      ...withCrc([...be32(1), ...be32(1), ...be32(1)]),
      // 64: postings: all series [2], then a=b [2]
      ...be32(8),
      ...withCrc([...be32(1), ...be32(2)]),
      ...be32(8),
      ...withCrc([...be32(1), ...be32(2)]),
      // 96: label offset table: 1 entry (n=1, "a", offset 44)
      ...be32(8),
      ...withCrc([...be32(1), 0x01, 0x01, 0x61, 44]),
      // 112: postings offset table: ("", "") → 64, ("a", "b") → 80
      ...be32(14),
      ...withCrc([...be32(2), 0x02, 0x00, 0x00, 64, 0x02, 0x01, 0x61, 0x01, 0x62, 80]),
      // 134: TOC. Like Prometheus, the series and postings offsets are taken before the
      // alignment padding, so the series section starts at 21, not 32.
      ...withCrc([...be64(5), ...be64(21), ...be64(44), ...be64(96), ...be64(64), ...be64(112)]),
    ];
    expect([...bytes]).toEqual(expected);

    const reader = await IndexReader.open(bytesSource(bytes));
    expect(reader.toc).toEqual({
      symbols: 5,
      series: 21,
      labelIndices: 44,
      labelIndicesTable: 96,
      postings: 64,
      postingsTable: 112,
    });
    expect(await reader.series(2)).toEqual({
      labels: Labels.fromStrings('a', 'b'),
      chunks: [{ minTime: 1, maxTime: 3, ref: 8 }],
    });
  });

  it('encodes later chunks as deltas, with negative times and large refs', async () => {
    const chunks: ChunkMeta[] = [
      { minTime: -5000, maxTime: -4000, ref: 2 ** 40 + 8 },
      { minTime: -3999, maxTime: 10, ref: 2 ** 40 + 300 },
      { minTime: 2 ** 45, maxTime: 2 ** 45, ref: 2 ** 41 + 8 },
    ];
    const bytes = await writeIndex([{ labels: Labels.fromStrings('x', 'y'), chunks }]);
    const reader = await IndexReader.open(bytesSource(bytes));
    const [ref] = await reader.postings('x', 'y');
    expect((await reader.series(ref as number)).chunks).toEqual(chunks);
  });
});

describe('IndexWriter validation', () => {
  it('rejects out-of-order symbols and series, unknown symbols and bad chunks', async () => {
    const w = new IndexWriter({ path: `bad-${fileCounter++}` }, { fs });
    await w.addSymbol('b');
    await expect(w.addSymbol('a')).rejects.toThrow(/symbol "a" out of order after "b"/);
    await w.addSymbol('c');
    await w.addSeries(0, Labels.fromStrings('b', 'c'), []);
    await expect(w.addSeries(1, Labels.fromStrings('b', 'b'), [])).rejects.toThrow(
      /out-of-order series/,
    );
    await expect(w.addSeries(1, Labels.fromStrings('c', 'x'), [])).rejects.toThrow(
      /symbol entry for "x" does not exist/,
    );
    await expect(
      w.addSeries(1, Labels.fromStrings('c', 'c'), [{ minTime: 5, maxTime: 4, ref: 1 }]),
    ).rejects.toThrow(/chunk maxT 4 is less than minT 5/);
    await expect(
      w.addSeries(1, Labels.fromStrings('c', 'c'), [
        { minTime: 1, maxTime: 4, ref: 1 },
        { minTime: 4, maxTime: 6, ref: 2 },
      ]),
    ).rejects.toThrow(/chunk minT 4 is not higher than previous chunk maxT 4/);
    await expect(w.addSymbol('d')).rejects.toThrow(/cannot go back to stage symbols/);
    await w.close();
  });
});

describe('IndexReader', () => {
  it('rejects a bad magic, an unknown version and a corrupted TOC or section', async () => {
    const good = await writeIndex([{ labels: Labels.fromStrings('a', 'b'), chunks: [] }]);
    const badMagic = good.slice();
    badMagic[0] = 0;
    await expect(IndexReader.open(bytesSource(badMagic))).rejects.toThrow(
      /invalid index magic number 0x00aad700/,
    );
    const v1 = good.slice();
    v1[4] = 1;
    await expect(IndexReader.open(bytesSource(v1))).rejects.toThrow(
      /unsupported index format version 1/,
    );
    const badToc = good.slice();
    flipBit(badToc, badToc.length - 10);
    await expect(IndexReader.open(bytesSource(badToc))).rejects.toThrow(IndexFormatError);
    const badSymbols = good.slice();
    flipBit(badSymbols, 14);
    await expect(IndexReader.open(bytesSource(badSymbols))).rejects.toThrow(
      /symbol table at offset 5: checksum mismatch/,
    );
    const badSeries = good.slice();
    flipBit(badSeries, 33);
    const reader = await IndexReader.open(bytesSource(badSeries));
    await expect(reader.series(2)).rejects.toThrow(/series 2 at offset 33: checksum mismatch/);
    await expect(reader.series(1)).rejects.toThrow(
      /series reference 1 is outside the series section/,
    );
  });

  it('reads through a file source', async () => {
    const path = `file-${fileCounter++}`;
    const w = new IndexWriter({ path }, { fs });
    await w.addSymbols(['__name__', 'up', 'job', 'x']);
    await w.addSeries(0, Labels.fromStrings('__name__', 'up', 'job', 'x'), []);
    await w.close();
    const source = await openFileSource(fs, path);
    try {
      const reader = await IndexReader.open(source);
      expect(reader.labelNames()).toEqual(['__name__', 'job']);
      expect(await reader.labelValues('job')).toEqual(['x']);
      expect(await reader.labelValues('nope')).toEqual([]);
      expect([...(await reader.postings('job', 'x', 'y'))]).toHaveLength(1);
    } finally {
      await source.close();
    }
  });

  it('finds every value of a name with more values than the sampling factor', async () => {
    const values = Array.from({ length: 100 }, (_, i) => `v${String(i).padStart(3, '0')}`);
    const series = values.map((v) => ({
      labels: Labels.fromStrings('k', v, 'm', 'x'),
      chunks: [],
    }));
    const reader = await IndexReader.open(bytesSource(await writeIndex(series)));
    const refs = [...(await reader.allPostings())];
    expect(await reader.labelValues('k')).toEqual(values);
    for (let i = 0; i < values.length; i++) {
      expect([...(await reader.postings('k', values[i] as string))]).toEqual([refs[i]]);
    }
    // One lookup whose values fall into several sampled windows, unsorted and repeated.
    const picked = [99, 0, 31, 32, 33, 64, 65, 32];
    const want = [...new Set(picked)].sort((a, b) => a - b).map((i) => refs[i]);
    expect([...(await reader.postings('k', ...picked.map((i) => values[i] as string)))]).toEqual(
      want,
    );
    expect([...(await reader.postings('k', 'v0995', 'a', 'zzz'))]).toEqual([]);
    expect(reader.symbol(0)).toBe('k');
    expect(reader.symbol(reader.symbolTableSize - 1)).toBe('x');
    expect(() => reader.symbol(reader.symbolTableSize)).toThrow(/unknown symbol reference 103/);
  });

  it('writes an empty index that reads back as empty', async () => {
    const reader = await IndexReader.open(bytesSource(await writeIndex([])));
    expect(reader.labelNames()).toEqual([]);
    expect([...(await reader.allPostings())]).toEqual([]);
    expect(reader.symbols()).toEqual([]);
  });
});

// ---- property: arbitrary series sets round-trip, postings and matchers agree with a model ----

const NAMES = ['__name__', 'a', 'job', 'z', 'é'];
const VALUES = ['', 'x', 'y', 'xy', 'é', '\u{10000}', '\ue000', 'long-value-1', 'long-value-2'];

const labelSetArb = fc
  .dictionary(fc.constantFrom(...NAMES), fc.constantFrom(...VALUES.filter((v) => v !== '')), {
    minKeys: 1,
    maxKeys: NAMES.length,
  })
  .map((o) => Labels.fromObject(o));

const chunksArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 0, max: 1000 }),
      fc.integer({ min: 0, max: 5000 }),
    ),
    {
      maxLength: 4,
    },
  )
  .chain((steps) =>
    fc.integer({ min: -1e12, max: 1e12 }).map((start) => {
      const out: ChunkMeta[] = [];
      let t = start;
      let ref = 8;
      for (const [gap, width, refStep] of steps) {
        const minTime = out.length === 0 ? t : t + gap;
        out.push({ minTime, maxTime: minTime + width, ref: ref + refStep });
        t = minTime + width;
        ref += refStep;
      }
      return out;
    }),
  );

// Chunk references must ascend across the whole index (Prometheus checks it), so each series'
// references are shifted past the previous series' last one.
const seriesSetArb = fc.array(fc.tuple(labelSetArb, chunksArb), { maxLength: 40 }).map((pairs) => {
  const byKey = new Map<string, SeriesInput>();
  for (const [labels, chunks] of pairs) byKey.set(labels.toString(), { labels, chunks });
  const sorted = [...byKey.values()].sort((a, b) => Labels.compare(a.labels, b.labels));
  let base = 0;
  return sorted.map((s) => {
    const chunks = s.chunks.map((c) => ({ ...c, ref: c.ref + base }));
    base = chunks.at(-1)?.ref ?? base;
    return { labels: s.labels, chunks };
  });
});

const matcherArb = fc
  .tuple(
    fc.constantFrom<MatchType>('=', '!=', '=~', '!~'),
    fc.constantFrom(...NAMES, 'missing'),
    fc.constantFrom('', 'x', 'y', 'é', 'x.*', '.+', '.*', 'x|y', 'long-.*', '\u{10000}'),
  )
  .map(([type, name, value]) => new Matcher(type, name, value));

describe('index properties', () => {
  it('round-trips series, label names/values, postings and matcher selection', async () => {
    await fc.assert(
      fc.asyncProperty(
        seriesSetArb,
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.array(matcherArb, { minLength: 1, maxLength: 3 }), { maxLength: 5 }),
        async (series, samplingFactor, matcherSets) => {
          const bytes = await writeIndex(series);
          const reader = await IndexReader.open(bytesSource(bytes), { samplingFactor });
          const refs = [...(await reader.allPostings())];
          expect(refs).toHaveLength(series.length);
          for (let i = 0; i < refs.length; i++) {
            const s = await reader.series(refs[i] as number);
            expect(s.labels.toString()).toBe((series[i] as SeriesInput).labels.toString());
            expect(s.chunks).toEqual((series[i] as SeriesInput).chunks);
          }
          const values = new Map<string, Set<string>>();
          for (const s of series)
            s.labels.forEach((n, v) => values.set(n, (values.get(n) ?? new Set()).add(v)));
          expect(reader.labelNames()).toEqual([...values.keys()].sort(compareGoStrings));
          for (const [name, set] of values) {
            const sorted = [...set].sort(compareGoStrings);
            expect(await reader.labelValues(name)).toEqual(sorted);
            expect(await reader.sortedLabelValues(name)).toEqual(sorted);
            for (const v of sorted) {
              const want = refs.filter((_, i) => (series[i] as SeriesInput).labels.get(name) === v);
              expect([...(await reader.postings(name, v))]).toEqual(want);
            }
            const want = refs.filter(
              (_, i) =>
                set.has((series[i] as SeriesInput).labels.get(name)) &&
                (series[i] as SeriesInput).labels.has(name),
            );
            expect([...(await reader.postings(name, ...sorted, 'absent'))]).toEqual(want);
          }
          for (const matchers of matcherSets) {
            const want = refs.filter((_, i) =>
              matchers.every((m) => m.matches((series[i] as SeriesInput).labels.get(m.name))),
            );
            expect([...(await postingsForMatchers(reader, matchers))]).toEqual(want);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
