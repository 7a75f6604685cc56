import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels, Matcher, compareGoStrings } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { ValueType, chunkFromData } from '../chunkenc/index.js';
import { uvarintSize } from '../encoding/index.js';
import { IndexReader, bytesSource, seriesEntryLength } from '../index/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import {
  BlockReader,
  BlockWriteError,
  Tombstones,
  readBlockMeta,
  walkSegment,
  TENANT_EXTERNAL_LABEL,
  TMP_FOR_CREATION_SUFFIX,
  UlidGenerator,
  ulidTime,
  writeBlock,
  writeTombstones,
  type BlockSeriesInput,
  type WriteBlockOptions,
} from './index.js';

const NOW = 1_700_000_000_000;
const bitsView = new DataView(new ArrayBuffer(8));
const bitsOf = (v: number): bigint => {
  bitsView.setFloat64(0, v);
  return bitsView.getBigUint64(0);
};

function env(fs = new DiskFileSystem()) {
  return {
    fs,
    clock: new ManualClock(NOW),
    random: createSeededRandom('block-rw').stream('ulid'),
  };
}

function series(labels: Record<string, string>, samples: Array<[number, number]>) {
  return {
    labels: Labels.fromObject(labels),
    timestamps: Float64Array.from(samples.map(([t]) => t)),
    values: Float64Array.from(samples.map(([, v]) => v)),
  };
}

/** Every sample the reader yields for the matchers and range, as `labels t bits` keys. */
async function read(
  reader: BlockReader,
  matchers: readonly Matcher[],
  mint = Number.MIN_SAFE_INTEGER,
  maxt = Number.MAX_SAFE_INTEGER,
): Promise<string[]> {
  const out: string[] = [];
  for await (const s of reader.select(matchers, mint, maxt)) {
    const it = s.iterator();
    while (it.next() === ValueType.Float) {
      out.push(`${s.labels.toString()} ${it.atT()} ${bitsOf(it.atF())}`);
    }
    expect(it.err()).toBeNull();
  }
  return out;
}

function keys(
  input: readonly BlockSeriesInput[],
  keep: (s: BlockSeriesInput, t: number) => boolean = () => true,
): string[] {
  const out: string[] = [];
  for (const s of [...input].sort((a, b) => Labels.compare(a.labels, b.labels))) {
    for (let i = 0; i < s.timestamps.length; i++) {
      const t = s.timestamps[i] as number;
      if (keep(s, t)) out.push(`${s.labels.toString()} ${t} ${bitsOf(s.values[i] as number)}`);
    }
  }
  return out;
}

const ALL = [Matcher.regex('__name__', '.+')];

describe('writeBlock', () => {
  it('writes meta.json with the time range, stats, ULID and thanos section', async () => {
    const e = env();
    const input = [
      series({ __name__: 'b', job: 'x' }, [
        [1000, 1],
        [2000, 2],
      ]),
      series({ __name__: 'a' }, [[500, NaN]]),
      series({ __name__: 'empty' }, []),
    ];
    const meta = await writeBlock(
      'data',
      input,
      { thanos: { labels: { [TENANT_EXTERNAL_LABEL]: 'team-1' } } },
      e,
    );
    expect(ulidTime(meta.ulid)).toBe(NOW);
    expect(meta).toEqual({
      ulid: meta.ulid,
      minTime: 500,
      maxTime: 2001,
      stats: { numSamples: 3, numSeries: 2, numChunks: 2, numTombstones: 0 },
      compaction: { level: 1, sources: [meta.ulid] },
      version: 1,
      thanos: {
        labels: { __org_id__: 'team-1' },
        downsample: { resolution: 0 },
        source: 'receive',
        index_stats: {
          series_max_size: meta.thanos?.index_stats?.series_max_size,
          chunk_max_size: meta.thanos?.index_stats?.chunk_max_size,
        },
      },
    });
    expect(await readBlockMeta(`data/${meta.ulid}`, e)).toEqual(meta);
    expect(await e.fs.readdir('data')).toEqual([meta.ulid]);
    expect(await e.fs.readdir(`data/${meta.ulid}`)).toEqual([
      'chunks',
      'index',
      'meta.json',
      'tombstones',
    ]);
  });

  it("records the largest series entry and chunk in the thanos section's index_stats", async () => {
    const e = env();
    const input = Array.from({ length: 40 }, (_, i) =>
      series(
        { __name__: 'm', pod: `pod-${'x'.repeat(i * 3)}-${i}` },
        Array.from({ length: 50 + i * 20 }, (_, k): [number, number] => [k * 15_000, k * (i + 1)]),
      ),
    );
    const meta = await writeBlock('data', input, { thanos: { labels: { a: 'b' } } }, e);
    const dir = `data/${meta.ulid}`;
    // Every series entry (read at each posting's offset) and every stored chunk fits the
    // recorded maxima, and the largest of each meets it exactly.
    const index = await e.fs.readFile(`${dir}/index`);
    const reader = await IndexReader.open(bytesSource(index));
    const entrySizes = [...(await reader.allPostings())].map((ref) =>
      seriesEntryLength(index.subarray(ref * 16)),
    );
    const segment = await e.fs.readFile(`${dir}/chunks/000001`);
    const chunkSizes = [...walkSegment(segment, 0)].map(
      (c) => uvarintSize(c.data.length) + 1 + c.data.length + 4,
    );
    expect(meta.thanos?.index_stats).toEqual({
      series_max_size: Math.max(...entrySizes),
      chunk_max_size: Math.max(...chunkSizes),
    });
  });

  it('makes the block durable: after a power loss it is complete, never half-written', async () => {
    const fs = new DiskFileSystem();
    const e = env(fs);
    await fs.mkdir('data');
    await fs.syncDir('.');
    const input = [series({ __name__: 'm' }, [[1, 1]])];
    const meta = await writeBlock('data', input, {}, e);
    fs.disk.powerLoss(createSeededRandom('tear').stream('disk'));
    expect(await fs.readdir('data')).toEqual([meta.ulid]);
    const reader = await BlockReader.open(`data/${meta.ulid}`, { fs });
    expect(await read(reader, ALL)).toEqual(keys(input));
    await reader.close();
  });

  it('creates the block with the final meta it is given, which survives a power loss', async () => {
    const fs = new DiskFileSystem();
    const e = env(fs);
    await fs.mkdir('data');
    await fs.syncDir('.');
    const parents = [
      { ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAV', minTime: 0, maxTime: 1000 },
      { ulid: '01BX5ZZKBKACTAV9WEVGEMMVRZ', minTime: 1000, maxTime: 7200 },
    ];
    const sources = parents.map((p) => p.ulid);
    const final = { minTime: 0, maxTime: 7200, compaction: { level: 2, sources, parents } };
    const input = [
      series({ __name__: 'm' }, [
        [10, 1],
        [5000, 2],
      ]),
    ];
    const meta = await writeBlock('data', input, { meta: final }, e);
    expect(meta).toMatchObject(final);
    // The caller's arrays are copied, not shared with the returned meta.
    expect(meta.compaction.sources).not.toBe(sources);
    fs.disk.powerLoss(createSeededRandom('tear').stream('disk'));
    const restarted = new DiskFileSystem(fs.disk);
    expect(await restarted.readdir('data')).toEqual([meta.ulid]);
    expect(await readBlockMeta(`data/${meta.ulid}`, { fs: restarted })).toEqual(meta);
    // Only the fields given are replaced: a maxTime alone keeps level 1 and the first sample.
    const aligned = await writeBlock('data', input, { meta: { maxTime: 7200 } }, env());
    expect(aligned).toMatchObject({
      minTime: 10,
      maxTime: 7200,
      compaction: { level: 1, sources: [aligned.ulid] },
    });
  });

  it('rejects a final meta that does not hold the samples, naming the values', async () => {
    const input = [
      series({ __name__: 'm' }, [
        [10, 1],
        [20, 2],
      ]),
    ];
    const bad = async (meta: NonNullable<WriteBlockOptions['meta']>): Promise<string> => {
      const fs = new DiskFileSystem();
      const err: unknown = await writeBlock('data', input, { meta }, env(fs)).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(BlockWriteError);
      // Nothing is created for rejected input.
      expect(await fs.exists('data')).toBe(false);
      return String(err);
    };
    expect(await bad({ minTime: 11 })).toContain(
      "block minTime 11 must be a safe integer at most the first sample's timestamp 10",
    );
    expect(await bad({ maxTime: 20 })).toContain(
      "block maxTime 20 must be a safe integer after the last sample's timestamp 20",
    );
    expect(await bad({ maxTime: 21.5 })).toContain('block maxTime 21.5');
    expect(
      await bad({ compaction: { level: 0, sources: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'] } }),
    ).toContain('compaction level 0 must be a positive integer');
    expect(await bad({ compaction: { level: 2, sources: [] } })).toContain(
      'compaction level 2 block needs at least one source',
    );
    expect(await bad({ compaction: { level: 2, sources: ['nope'] } })).toContain(
      'compaction source "nope" is not a ULID',
    );
    expect(
      await bad({
        compaction: {
          level: 2,
          sources: ['01ARZ3NDEKTSV4RRFFQ69G5FAV'],
          parents: [{ ulid: 'x', minTime: 0, maxTime: 1 }],
        },
      }),
    ).toContain('compaction parent "x" is not a ULID');
  });

  it('rejects bad input with a message naming the value', async () => {
    const bad = async (input: BlockSeriesInput[]): Promise<unknown> =>
      writeBlock('data', input, {}, env()).catch((err: unknown) => err);
    const unsorted = await bad([
      series({ __name__: 'm' }, [
        [5, 1],
        [5, 2],
      ]),
    ]);
    expect(unsorted).toBeInstanceOf(BlockWriteError);
    expect(String(unsorted)).toContain('timestamp 5 at index 1 is not after 5');
    expect(
      String(await bad([series({ __name__: 'm' }, [[1, 1]]), series({ __name__: 'm' }, [[2, 1]])])),
    ).toContain('duplicate series {__name__="m"}');
    expect(String(await bad([series({ __name__: 'm' }, [])]))).toContain('no samples');
    expect(String(await bad([series({ __name__: 'm' }, [[1.5, 1]])]))).toContain(
      'timestamp 1.5 at index 0 is not a safe integer',
    );
    const mismatched = await bad([
      {
        labels: Labels.fromObject({ a: 'b' }),
        timestamps: new Float64Array(2),
        values: new Float64Array(1),
      },
    ]);
    expect(String(mismatched)).toContain('2 timestamps but 1 values');
  });

  it('replaces a stale temporary directory of a crashed attempt with the same ULID', async () => {
    const fs = new DiskFileSystem();
    // Same clock and seed, so the next block gets this ULID.
    const ulid = new UlidGenerator({}, env(fs)).next();
    const stale = `data/${ulid}${TMP_FOR_CREATION_SUFFIX}`;
    await fs.mkdir(`${stale}/chunks`, { recursive: true });
    await fs.writeFile(`${stale}/chunks/000009`, 'junk');
    const meta = await writeBlock('data', [series({ a: 'b' }, [[1, 1]])], {}, env(fs));
    expect(meta.ulid).toBe(ulid);
    expect(await fs.readdir('data')).toEqual([ulid]);
    expect(await fs.readdir(`data/${ulid}/chunks`)).toEqual(['000001']);
  });

  it('cuts chunks at 120 samples per chunk range quarter prediction and 2x the target', async () => {
    const e = env();
    // 1000 samples at 1s: the prediction cuts evenly-filled chunks; no chunk exceeds 240.
    const samples: Array<[number, number]> = [];
    for (let i = 0; i < 1000; i++) samples.push([i * 1000, i]);
    const meta = await writeBlock('data', [series({ a: 'b' }, samples)], {}, e);
    const reader = await BlockReader.open(`data/${meta.ulid}`, e);
    const got = [];
    for await (const s of reader.select([Matcher.equal('a', 'b')], 0, 1e9)) {
      got.push(s.chunks);
    }
    await reader.close();
    expect(got).toHaveLength(1);
    const chunks = got[0] ?? [];
    expect(chunks.length).toBe(meta.stats.numChunks);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]?.minTime).toBe(0);
    expect(chunks.at(-1)?.maxTime).toBe(999_000);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]?.minTime).toBeGreaterThan(chunks[i - 1]?.maxTime ?? Infinity);
    }
  });
});

describe('BlockReader', () => {
  const input = [
    series({ __name__: 'up', job: 'api', instance: 'a' }, [
      [0, 1],
      [10, 0],
      [20, 1],
      [30, 1],
    ]),
    series({ __name__: 'up', job: 'db', instance: 'b' }, [
      [5, 1],
      [15, NaN],
    ]),
    series({ __name__: 'errors_total', job: 'api' }, [
      [0, 0],
      [100, 3],
    ]),
  ];

  async function open(tombstones?: Tombstones) {
    const e = env();
    const meta = await writeBlock('data', input, {}, e);
    const dir = `data/${meta.ulid}`;
    if (tombstones !== undefined) await writeTombstones(dir, tombstones, e);
    return BlockReader.open(dir, e);
  }

  it('selects series sorted by labels with samples inside [mint, maxt]', async () => {
    const reader = await open();
    expect(await read(reader, [Matcher.equal('__name__', 'up')], 10, 20)).toEqual(
      keys(input, (s, t) => s.labels.get('__name__') === 'up' && t >= 10 && t <= 20),
    );
    const labels: string[] = [];
    for await (const s of reader.select([Matcher.notEqual('job', 'db')], 0, 1000)) {
      labels.push(s.labels.toString());
    }
    expect(labels).toEqual([
      '{__name__="errors_total", job="api"}',
      '{__name__="up", instance="a", job="api"}',
    ]);
    // No chunk overlaps the range: no series at all.
    const none = [];
    for await (const s of reader.select(ALL, 31, 99)) none.push(s.labels.toString());
    expect(none).toEqual(['{__name__="errors_total", job="api"}']);
    await reader.close();
  });

  it('honours tombstones and drops wholly deleted chunks', async () => {
    const t = new Tombstones();
    // Series IDs are index offsets / 16; find them through a first reader.
    const probe = await open();
    const ids = new Map<string, number>();
    for await (const s of probe.select(ALL, 0, 1000)) ids.set(s.labels.get('instance'), s.ref);
    await probe.close();
    t.addInterval(ids.get('a') as number, { mint: 10, maxt: 20 });
    t.addInterval(ids.get('b') as number, { mint: 0, maxt: 100 });
    const reader = await open(t);
    expect(reader.tombstones.total()).toBe(2);
    const got = await read(reader, [Matcher.equal('__name__', 'up')]);
    expect(got).toEqual([
      `{__name__="up", instance="a", job="api"} 0 ${bitsOf(1)}`,
      `{__name__="up", instance="a", job="api"} 30 ${bitsOf(1)}`,
    ]);
    // The chunk-streaming read re-encodes the partly deleted chunk without its deleted
    // samples and leaves the wholly deleted series out.
    const streamed: string[] = [];
    for await (const s of reader.selectChunks([Matcher.equal('__name__', 'up')], 0, 1000)) {
      for (const c of s.chunks) {
        const it = chunkFromData(c.encoding, c.data).iterator();
        while (it.next() !== ValueType.None)
          streamed.push(`${s.labels.toString()} ${it.atT()} ${bitsOf(it.atF())}`);
        expect([c.minTime, c.maxTime]).toEqual([0, 30]);
      }
    }
    expect(streamed).toEqual(got);
    await reader.close();
  });

  it('reads a block from in-memory byte sources (the object-storage path)', async () => {
    const e = env();
    const meta = await writeBlock('data', input, {}, e);
    const dir = `data/${meta.ulid}`;
    const segment = await e.fs.readFile(`${dir}/chunks/000001`);
    const reader = await BlockReader.fromParts({
      meta,
      index: bytesSource(await e.fs.readFile(`${dir}/index`)),
      segments: {
        segmentCount: () => 1,
        read: (_s, offset, length) =>
          Promise.resolve(segment.subarray(offset, Math.min(offset + length, segment.length))),
      },
      tombstones: new Tombstones(),
    });
    expect(await read(reader, ALL)).toEqual(keys(input));
    await reader.close();
  });

  it('seeks forward only', async () => {
    const reader = await open();
    for await (const s of reader.select([Matcher.equal('instance', 'a')], 0, 25)) {
      const it = s.iterator();
      expect(it.seek(5)).toBe(ValueType.Float);
      expect(it.atT()).toBe(10);
      expect(it.seek(0)).toBe(ValueType.Float);
      expect(it.atT()).toBe(10);
      expect(it.next()).toBe(ValueType.Float);
      expect(it.atT()).toBe(20);
      expect(it.seek(21)).toBe(ValueType.None);
      expect(it.next()).toBe(ValueType.None);
    }
    await reader.close();
  });

  it('answers label names and values, with and without matchers', async () => {
    const reader = await open();
    expect(await reader.labelNames()).toEqual(['__name__', 'instance', 'job']);
    expect(await reader.labelNames([Matcher.equal('__name__', 'errors_total')])).toEqual([
      '__name__',
      'job',
    ]);
    expect(await reader.labelValues('job')).toEqual(['api', 'db']);
    expect(await reader.labelValues('instance', [Matcher.equal('job', 'api')])).toEqual(['a']);
    expect(await reader.labelValues('nope')).toEqual([]);
    await reader.close();
    await expect(reader.labelNames()).rejects.toThrow(/is closed/);
  });
});

// ---- properties ----

const NAMES = ['__name__', 'job', 'zone', 'é'];
const VALUES = ['', 'a', 'b', 'ab', 'c'];

const labelsArb = fc
  .record({
    __name__: fc.constantFrom('m1', 'm2'),
    job: fc.constantFrom(...VALUES),
    zone: fc.constantFrom(...VALUES),
    é: fc.constantFrom(...VALUES),
  })
  .map((o) => Labels.fromObject(Object.fromEntries(Object.entries(o).filter(([, v]) => v !== ''))));

const samplesArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: 1, max: 40_000 }),
      fc.oneof(
        fc.double(),
        fc.constantFrom(NaN, Infinity, -Infinity, -0, 5e-324, 1.7976931348623157e308),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((b) => {
          bitsView.setBigUint64(0, b);
          return bitsView.getFloat64(0);
        }),
      ),
    ),
    { minLength: 0, maxLength: 400 },
  )
  .chain((steps) =>
    fc.integer({ min: -5_000_000, max: 5_000_000 }).map((start) => {
      const timestamps = new Float64Array(steps.length);
      const values = new Float64Array(steps.length);
      const view = new DataView(values.buffer);
      let t = start;
      steps.forEach(([d, v], i) => {
        t += d;
        timestamps[i] = t;
        bitsView.setFloat64(0, v);
        view.setBigUint64(i * 8, bitsView.getBigUint64(0), true);
      });
      return { timestamps, values };
    }),
  );

const inputArb = fc
  .uniqueArray(fc.tuple(labelsArb, samplesArb), {
    minLength: 1,
    maxLength: 12,
    selector: ([l]) => l.toString(),
  })
  .map((list) => list.map(([labels, s]) => ({ labels, ...s })))
  .filter((list) => list.some((s) => s.timestamps.length > 0));

const matcherArb = fc
  .tuple(
    fc.constantFrom('=', '!=', '=~', '!~'),
    fc.constantFrom(...NAMES),
    fc.constantFrom('', 'a', 'b', 'a|b', 'a.*', '.*', '.+', 'm1', 'm.'),
  )
  .map(([type, name, value]) => new Matcher(type as '=', name, value));

/** A time bound: anywhere, or exactly one of the input's sample times (or one off it). */
function boundArb(input: readonly BlockSeriesInput[]): fc.Arbitrary<number> {
  const times = input.flatMap((s) => [...s.timestamps]);
  return fc.oneof(
    fc.integer({ min: -5_000_000, max: 5_500_000 }),
    fc.tuple(fc.constantFrom(...times), fc.constantFrom(-1, 0, 0, 1)).map(([t, d]) => t + d),
  );
}

const queryArb = fc
  .tuple(inputArb, fc.array(matcherArb, { minLength: 1, maxLength: 3 }))
  .chain(([input, matchers]) =>
    fc.tuple(fc.constant(input), fc.constant(matchers), boundArb(input), boundArb(input)),
  );

describe('properties', () => {
  it('write then read back returns every series and sample bit for bit', async () => {
    await fc.assert(
      fc.asyncProperty(inputArb, fc.constantFrom('current', 'v2.42'), async (input, rules) => {
        const e = env();
        const meta = await writeBlock('data', input, { rules, samplesPerChunk: 30 }, e);
        const reader = await BlockReader.open(`data/${meta.ulid}`, e);
        try {
          expect(await read(reader, ALL)).toEqual(keys(input));
          const nonEmpty = input.filter((s) => s.timestamps.length > 0);
          expect(meta.stats.numSeries).toBe(nonEmpty.length);
          expect(meta.minTime).toBe(Math.min(...nonEmpty.map((s) => s.timestamps[0] as number)));
          expect(meta.maxTime).toBe(
            Math.max(...nonEmpty.map((s) => s.timestamps.at(-1) as number)) + 1,
          );
        } finally {
          await reader.close();
        }
      }),
      { numRuns: 40 },
    );
  });

  it('select with random matchers and time ranges equals a naive filter', async () => {
    await fc.assert(
      fc.asyncProperty(queryArb, async ([input, matchers, a, b]) => {
        // Bounds often sit exactly on sample times, where off-by-one mistakes show.
        const mint = Math.min(a, b);
        const maxt = Math.max(a, b);
        const e = env();
        // Small chunks, so range bounds often fall on chunk boundaries.
        const meta = await writeBlock('data', input, { samplesPerChunk: 8 }, e);
        const reader = await BlockReader.open(`data/${meta.ulid}`, e);
        try {
          const selects = (s: BlockSeriesInput): boolean =>
            matchers.every((m) => m.matches(s.labels.get(m.name)));
          expect(await read(reader, matchers, mint, maxt)).toEqual(
            keys(input, (s, t) => selects(s) && t >= mint && t <= maxt),
          );
          // Every series returned matches and has a chunk overlapping the range.
          for await (const s of reader.select(matchers, mint, maxt)) {
            expect(matchers.every((m) => m.matches(s.labels.get(m.name)))).toBe(true);
            expect(s.chunks.some((c) => c.maxTime >= mint && c.minTime <= maxt)).toBe(true);
          }
          const selected = input.filter((s) => selects(s) && s.timestamps.length > 0);
          const names = new Set<string>();
          const jobs = new Set<string>();
          for (const s of selected) {
            s.labels.forEach((n) => names.add(n));
            if (s.labels.has('job')) jobs.add(s.labels.get('job'));
          }
          expect(await reader.labelNames(matchers)).toEqual([...names].sort(compareGoStrings));
          expect(await reader.labelValues('job', matchers)).toEqual(
            [...jobs].sort(compareGoStrings),
          );
        } finally {
          await reader.close();
        }
      }),
      { numRuns: 100 },
    );
  });
});
