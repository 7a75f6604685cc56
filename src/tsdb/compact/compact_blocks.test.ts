import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import {
  BlockReader,
  readBlockMeta,
  Tombstones,
  TMP_FOR_CREATION_SUFFIX,
  writeBlock,
  writeTombstones,
  type BlockMeta,
  type BlockSeriesInput,
} from '../block/index.js';
import { ValueType } from '../chunkenc/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { compactBlockMetas, compactBlocks, CompactionError } from './index.js';

const NOW = 1_700_000_000_000;
const STALE_NAN_BITS = 0x7ff0000000000002n;
const bitsView = new DataView(new ArrayBuffer(8));
const bitsOf = (v: number): bigint => {
  bitsView.setFloat64(0, v);
  return bitsView.getBigUint64(0);
};

function env(fs: DiskFileSystem, seed = 'compact') {
  return { fs, clock: new ManualClock(NOW), random: createSeededRandom(seed).stream('ulid') };
}

/** A series whose values are given as bits, so NaN payloads survive construction. */
function series(
  labels: Record<string, string>,
  samples: Array<[number, bigint]>,
): BlockSeriesInput {
  const values = new Float64Array(samples.length);
  const view = new DataView(values.buffer);
  samples.forEach(([, bits], i) => view.setBigUint64(i * 8, bits, true));
  return {
    labels: Labels.fromObject(labels),
    timestamps: Float64Array.from(samples.map(([t]) => t)),
    values,
  };
}

const num = (v: number): bigint => bitsOf(v);

/** Every sample of a block as `labels t bits`, in the reader's order. */
async function readAll(fs: DiskFileSystem, dir: string): Promise<string[]> {
  const reader = await BlockReader.open(dir, { fs });
  try {
    const out: string[] = [];
    const all = [Matcher.regex('__name__', '.*')];
    for await (const s of reader.select(all, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
      const it = s.iterator();
      while (it.next() === ValueType.Float) {
        out.push(`${s.labels.toString()} ${it.atT()} ${bitsOf(it.atF())}`);
      }
      expect(it.err()).toBeNull();
    }
    return out;
  } finally {
    await reader.close();
  }
}

/** The block's series IDs by label string (v2 index IDs are offsets, not 0, 1, …). */
async function seriesRefs(fs: DiskFileSystem, dir: string): Promise<Map<string, number>> {
  const reader = await BlockReader.open(dir, { fs });
  try {
    const refs = new Map<string, number>();
    const all = [Matcher.regex('__name__', '.*')];
    for await (const s of reader.select(all, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
      refs.set(s.labels.toString(), s.ref);
    }
    return refs;
  } finally {
    await reader.close();
  }
}

async function write(fs: DiskFileSystem, input: BlockSeriesInput[], seed: string): Promise<string> {
  const meta = await writeBlock('/src', input, {}, env(fs, seed));
  return `/src/${meta.ulid}`;
}

describe('compactBlocks', () => {
  it('merges overlapping blocks, collapsing replicated samples and keeping the union', async () => {
    const fs = new DiskFileSystem();
    const a = await write(
      fs,
      [
        series({ __name__: 'up', job: 'a' }, [
          [1000, num(1)],
          [2000, num(2)],
          [3000, num(3)],
        ]),
        series({ __name__: 'only_a' }, [[1500, num(7)]]),
      ],
      'a',
    );
    const b = await write(
      fs,
      [
        series({ __name__: 'up', job: 'a' }, [
          [2000, num(2)],
          [3000, num(3)],
          [4000, STALE_NAN_BITS],
        ]),
        series({ job: 'nameless' }, [[2500, num(-0)]]),
      ],
      'b',
    );
    const { meta, sourcesMarkedDeletable } = await compactBlocks([a, b], '/out', {}, env(fs));
    expect(sourcesMarkedDeletable).toBe(false);
    expect(meta).not.toBeNull();
    const m = meta as BlockMeta;
    expect(await readAll(fs, `/out/${m.ulid}`)).toEqual([
      `{__name__="only_a"} 1500 ${num(7)}`,
      `{__name__="up", job="a"} 1000 ${num(1)}`,
      `{__name__="up", job="a"} 2000 ${num(2)}`,
      `{__name__="up", job="a"} 3000 ${num(3)}`,
      `{__name__="up", job="a"} 4000 ${STALE_NAN_BITS}`,
      `{job="nameless"} 2500 ${num(-0)}`,
    ]);
    expect(m.stats).toMatchObject({ numSamples: 6, numSeries: 3 });
  });

  it('keeps the first source’s value for one timestamp with different values', async () => {
    const fs = new DiskFileSystem();
    const a = await write(fs, [series({ __name__: 'x' }, [[10, num(1)]])], 'a');
    const b = await write(fs, [series({ __name__: 'x' }, [[10, num(2)]])], 'b');
    const ab = await compactBlocks([a, b], '/out1', {}, env(fs));
    const ba = await compactBlocks([b, a], '/out2', {}, env(fs));
    expect(await readAll(fs, `/out1/${ab.meta?.ulid}`)).toEqual([`{__name__="x"} 10 ${num(1)}`]);
    expect(await readAll(fs, `/out2/${ba.meta?.ulid}`)).toEqual([`{__name__="x"} 10 ${num(2)}`]);
  });

  it('records level, sources and parents, and spans the sources’ ranges', async () => {
    const fs = new DiskFileSystem();
    const a = await write(fs, [series({ __name__: 'x' }, [[100, num(1)]])], 'a');
    const b = await write(fs, [series({ __name__: 'x' }, [[200, num(2)]])], 'b');
    const c = await write(fs, [series({ __name__: 'y' }, [[50, num(3)]])], 'c');
    const [ma, mb, mc] = await Promise.all([a, b, c].map((d) => readBlockMeta(d, { fs })));
    const first = (await compactBlocks([a, b], '/out', {}, env(fs, 'first'))).meta as BlockMeta;
    expect(first.compaction).toEqual({
      level: 2,
      sources: [ma?.ulid, mb?.ulid].sort(),
      parents: [
        { ulid: ma?.ulid, minTime: 100, maxTime: 101 },
        { ulid: mb?.ulid, minTime: 200, maxTime: 201 },
      ],
    });
    expect([first.minTime, first.maxTime]).toEqual([100, 201]);

    const second = (await compactBlocks([`/out/${first.ulid}`, c], '/out2', {}, env(fs, 'second')))
      .meta as BlockMeta;
    expect(second.compaction.level).toBe(3);
    expect(second.compaction.sources).toEqual([ma?.ulid, mb?.ulid, mc?.ulid].sort());
    expect(second.compaction.parents).toEqual([
      { ulid: first.ulid, minTime: 100, maxTime: 201 },
      { ulid: mc?.ulid, minTime: 50, maxTime: 51 },
    ]);
    expect([second.minTime, second.maxTime]).toEqual([50, 201]);
    // What is on disk is what was returned.
    expect(await readBlockMeta(`/out2/${second.ulid}`, { fs })).toEqual(second);
  });

  it('leaves the final lineage and range on disk after a power loss right after the write', async () => {
    const fs = new DiskFileSystem();
    const a = await write(fs, [series({ __name__: 'x' }, [[100, num(1)]])], 'a');
    const b = await write(fs, [series({ __name__: 'x' }, [[200, num(2)]])], 'b');
    await fs.mkdir('/out');
    await fs.syncDir('/');
    // Right after writeBlock's last step: the parent's sync that makes the renamed block durable.
    fs.powerLossAfter([
      (op) => op.kind === 'rename' && op.path.endsWith(TMP_FOR_CREATION_SUFFIX),
      (op) => op.kind === 'syncDir' && op.path === '/out',
    ]);
    // Closing the sources afterwards fails: the process died with the machine.
    await expect(compactBlocks([a, b], '/out', {}, env(fs, 'crash'))).rejects.toThrow(
      /power was lost after syncDir \/out/,
    );
    const restarted = new DiskFileSystem(fs.disk);
    const [ulid, ...others] = await restarted.readdir('/out');
    expect(others).toEqual([]);
    const onDisk = await readBlockMeta(`/out/${ulid}`, { fs: restarted });
    expect([onDisk.minTime, onDisk.maxTime, onDisk.compaction.level]).toEqual([100, 201, 2]);
    expect(onDisk.compaction.parents?.map((p) => p.ulid)).toEqual(
      [a, b].map((d) => d.slice('/src/'.length)),
    );
    expect(await readAll(restarted, `/out/${ulid}`)).toEqual([
      `{__name__="x"} 100 ${num(1)}`,
      `{__name__="x"} 200 ${num(2)}`,
    ]);
  });

  it('carries the tenant external labels of Thanos-style sources', async () => {
    const fs = new DiskFileSystem();
    const meta = await writeBlock(
      '/src',
      [series({ __name__: 'x' }, [[1, num(1)]])],
      { thanos: { labels: { __org_id__: 'team-a' } } },
      env(fs, 't'),
    );
    const out = (await compactBlocks([`/src/${meta.ulid}`], '/out', {}, env(fs))).meta;
    expect(out?.thanos).toMatchObject({ labels: { __org_id__: 'team-a' }, source: 'compactor' });
  });

  it('drops tombstoned samples', async () => {
    const fs = new DiskFileSystem();
    const a = await write(
      fs,
      [
        series({ __name__: 'x' }, [
          [10, num(1)],
          [20, num(2)],
          [30, num(3)],
          [40, num(4)],
        ]),
        series({ __name__: 'y' }, [[10, num(5)]]),
      ],
      'a',
    );
    const refs = await seriesRefs(fs, a);
    const tombstones = new Tombstones();
    tombstones.addInterval(refs.get('{__name__="x"}') as number, { mint: 15, maxt: 30 });
    tombstones.addInterval(refs.get('{__name__="y"}') as number, { mint: 0, maxt: 100 });
    await writeTombstones(a, tombstones, { fs });
    const { meta } = await compactBlocks([a], '/out', {}, env(fs));
    expect(await readAll(fs, `/out/${meta?.ulid}`)).toEqual([
      `{__name__="x"} 10 ${num(1)}`,
      `{__name__="x"} 40 ${num(4)}`,
    ]);
    expect(meta?.stats).toMatchObject({ numSeries: 1, numSamples: 2, numTombstones: 0 });
  });

  it('writes nothing and marks the sources deletable when everything is deleted', async () => {
    const fs = new DiskFileSystem();
    const a = await write(fs, [series({ __name__: 'x' }, [[10, num(1)]])], 'a');
    const refs = await seriesRefs(fs, a);
    const tombstones = new Tombstones();
    tombstones.addInterval(refs.get('{__name__="x"}') as number, { mint: 0, maxt: 10 });
    await writeTombstones(a, tombstones, { fs });
    const result = await compactBlocks([a], '/out', {}, env(fs));
    expect(result).toEqual({ meta: null, sourcesMarkedDeletable: true });
    expect((await readBlockMeta(a, { fs })).compaction.deletable).toBe(true);
    expect(await fs.exists('/out')).toBe(false);
  });

  it('rejects no blocks and a block given twice, naming it', async () => {
    const fs = new DiskFileSystem();
    await expect(compactBlocks([], '/out', {}, env(fs))).rejects.toThrow(CompactionError);
    const a = await write(fs, [series({ __name__: 'x' }, [[10, num(1)]])], 'a');
    await expect(compactBlocks([a, a], '/out', {}, env(fs))).rejects.toThrow(/given twice/);
  });
});

describe('compactBlockMetas', () => {
  it('follows Prometheus CompactBlockMetas', () => {
    const meta = (
      ulid: string,
      minTime: number,
      maxTime: number,
      level: number,
      sources: string[],
    ) => ({
      ulid,
      minTime,
      maxTime,
      stats: { numSamples: 0, numSeries: 0, numChunks: 0, numTombstones: 0 },
      compaction: { level, sources },
      version: 1,
    });
    const s = [
      '01H00000000000000000000003',
      '01H00000000000000000000001',
      '01H00000000000000000000002',
    ];
    expect(
      compactBlockMetas([
        meta('01H0000000000000000000000A', 0, 40, 2, [s[0] as string, s[1] as string]),
        meta('01H0000000000000000000000B', 20, 30, 1, [s[2] as string, s[1] as string]),
      ]),
    ).toEqual({
      minTime: 0,
      maxTime: 40,
      level: 3,
      sources: [s[1], s[2], s[0]],
      parents: [
        { ulid: '01H0000000000000000000000A', minTime: 0, maxTime: 40 },
        { ulid: '01H0000000000000000000000B', minTime: 20, maxTime: 30 },
      ],
    });
  });
});

// Values drawn as bits: ordinary doubles, ±0, ±Inf, the stale marker and other NaN payloads.
const valueBits = fc.oneof(
  fc.double().map((v) => bitsOf(v)),
  fc.constantFrom(STALE_NAN_BITS, 0x7ff8000000000001n, 0xfff8000000000000n, num(-0), num(Infinity)),
  fc.bigInt({ min: 0x7ff0000000000001n, max: 0x7fffffffffffffffn }),
);

describe('compactBlocks property', () => {
  it('yields exactly the sorted union of the blocks’ samples, without duplicates', async () => {
    // A "truth" of series → timestamp → value; each block holds a random subset of it, so
    // blocks overlap in time and replicate samples, as several ingesters' blocks do.
    const truth = fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('a', 'b', 'c', 'd'),
        job: fc.constantFrom('x', 'y', 'é'),
        samples: fc.uniqueArray(fc.tuple(fc.integer({ min: -5000, max: 50_000 }), valueBits), {
          minLength: 1,
          maxLength: 40,
          selector: ([t]) => t,
        }),
      }),
      { minLength: 1, maxLength: 5, selector: (s) => `${s.name}/${s.job}` },
    );
    await fc.assert(
      fc.asyncProperty(
        truth,
        fc.array(fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (all, picks) => {
          const fs = new DiskFileSystem();
          const dirs: string[] = [];
          const expected = new Set<string>();
          for (const [b, pick] of picks.entries()) {
            const input: BlockSeriesInput[] = [];
            let k = 0;
            for (const s of all) {
              const kept = s.samples
                .filter(() => pick[k++ % pick.length] === true)
                .sort(([x], [y]) => x - y);
              if (kept.length === 0) continue;
              const bs = series({ __name__: s.name, job: s.job }, kept);
              input.push(bs);
              for (const [t, bits] of kept) expected.add(`${bs.labels.toString()} ${t} ${bits}`);
            }
            if (input.length > 0) dirs.push(await write(fs, input, `b${b}`));
          }
          if (dirs.length === 0) return;
          const { meta } = await compactBlocks(dirs, '/out', {}, env(fs));
          const got = await readAll(fs, `/out/${(meta as BlockMeta).ulid}`);
          expect(new Set(got).size).toBe(got.length);
          expect([...got].sort()).toEqual([...expected].sort());
          // Order: series sorted by labels, then strictly increasing time within a series.
          for (let i = 1; i < got.length; i++) {
            const [pl, pt] = splitKey(got[i - 1] as string);
            const [cl, ct] = splitKey(got[i] as string);
            if (pl === cl) expect(ct).toBeGreaterThan(pt);
          }
          expect(meta?.stats.numSamples).toBe(expected.size);
        },
      ),
      { numRuns: 60 },
    );
  });
});

function splitKey(line: string): [string, number] {
  const parts = line.split(' ');
  return [parts.slice(0, -2).join(' '), Number(parts.at(-2))];
}
