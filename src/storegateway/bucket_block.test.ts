import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { blockChunkPath, blockIndexPath } from '../bucket/layout.js';
import { Labels, Matcher, type MatchType } from '../model/index.js';
import { AbortError, MemoryBucket, createSeededRandom } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import {
  BlockReader,
  TENANT_EXTERNAL_LABEL,
  writeBlock,
  type BlockSeriesInput,
} from '../tsdb/block/index.js';
import { decodeToc } from '../tsdb/index/index.js';
import { emptyBlockQueryStats } from './block_api.js';
import { openBucketBlock, type OpenBucketBlockOptions } from './bucket_block.js';
import {
  CountingBucket,
  blockReaderSamples,
  shipBlock,
  storeSeriesSamples,
} from './bucket_block.testing.js';
import { ChunkPool } from './chunk_pool.js';

const TENANT = 'team-a';
const NOW = 1_700_000_000_000;

/** `n` samples every `step` ms from `start`, values from a small deterministic generator. */
function series(
  labels: Record<string, string>,
  n: number,
  seed: number,
  step = 15_000,
  start = 0,
): BlockSeriesInput {
  const ts = new Float64Array(n);
  const vs = new Float64Array(n);
  let x = seed;
  let v = 0;
  for (let i = 0; i < n; i++) {
    ts[i] = start + i * step;
    x = (x * 1103515245 + 12345) % 2147483648;
    v += x % 100;
    vs[i] = seed % 3 === 0 ? x / 7919 : v;
  }
  return { labels: Labels.fromObject(labels), timestamps: ts, values: vs };
}

/** A block written locally, shipped to a counting bucket and opened both ways. */
async function setup(
  input: BlockSeriesInput[],
  extra: Partial<OpenBucketBlockOptions> = {},
  segmentSize?: number,
) {
  const fs = new DiskFileSystem();
  const clock = new ManualClock(NOW);
  const random = createSeededRandom('bucket-block').stream('ulid');
  const meta = await writeBlock(
    '/local',
    input,
    {
      thanos: { labels: { [TENANT_EXTERNAL_LABEL]: TENANT } },
      ...(segmentSize === undefined ? {} : { segmentSize }),
    },
    { fs, clock, random },
  );
  const bucket = new CountingBucket(new MemoryBucket({ clock }));
  const shippedBytes = await shipBlock(fs, '/local', meta.ulid, bucket, TENANT);
  const local = await BlockReader.open(`/local/${meta.ulid}`, { fs });
  const headerPath = `/sync/${TENANT}/${meta.ulid}/index-header`;
  const options = { tenant: TENANT, meta, bucket, fs, headerPath, clock, ...extra };
  const block = await openBucketBlock(options);
  bucket.reset();
  return { fs, clock, bucket, meta, local, block, options, shippedBytes };
}

const VALUES = ['a', 'b', 'c', 'x1', 'x2', 'ü'];
const NAMES = ['__name__', 'job', 'instance', 'absent'];
// Biased towards values present in the block, so most queries select something.
const MATCH_VALUES = ['a', 'b', 'x1', 'up', 'cpu', '', '.*', '.+', 'a|b|c', 'x.*', 'c|ü', 'zz'];

const blockInput = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom('up', 'cpu', 'mem'),
      job: fc.constantFrom(...VALUES),
      instance: fc.option(fc.constantFrom(...VALUES), { nil: undefined }),
      n: fc.integer({ min: 1, max: 400 }),
      step: fc.integer({ min: 1_000, max: 90_000 }),
      start: fc.integer({ min: 0, max: 3_600_000 }),
    }),
    { minLength: 1, maxLength: 40, selector: (r) => `${r.name}|${r.job}|${r.instance}` },
  )
  .map((rows) =>
    rows.map((r, i) => {
      const labels: Record<string, string> = { __name__: r.name, job: r.job };
      if (r.instance !== undefined) labels['instance'] = r.instance;
      return series(labels, r.n, i + 1, r.step, r.start);
    }),
  );

const matcher = fc
  .record({
    type: fc.constantFrom<MatchType>('=~', '=', '!=', '!~', '=~'),
    name: fc.constantFrom(...NAMES, 'job', '__name__'),
    value: fc.constantFrom(...MATCH_VALUES),
  })
  .map((m) => new Matcher(m.type, m.name, m.value));

const query = fc.record({
  matchers: fc.array(matcher, { minLength: 1, maxLength: 2 }),
  mint: fc.oneof(fc.constant(-10_000), fc.integer({ min: -10_000, max: 30_000_000 })),
  span: fc.oneof(fc.constant(40_000_000), fc.integer({ min: 0, max: 40_000_000 })),
});

describe('BucketBlock against the local BlockReader', () => {
  it('answers series, label names and label values exactly like it (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        blockInput,
        fc.array(query, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 3 }),
        async (input, queries, tuning) => {
          // Tiny estimates and gaps force refetches and unmerged requests; large ones merge.
          const extra: Partial<OpenBucketBlockOptions> = [
            {},
            { estimatedMaxSeriesSize: 8, estimatedMaxChunkSize: 8, maxGapBytes: 0 },
            { samplingFactor: 2, maxGapBytes: 64, fetchConcurrency: 1 },
            { estimatedMaxSeriesSize: 40, estimatedMaxChunkSize: 100 },
          ][tuning] as Partial<OpenBucketBlockOptions>;
          const t = await setup(input, extra, tuning === 2 ? 4096 : undefined);
          const everything = { matchers: [Matcher.regex('__name__', '.+')], mint: -1, span: 1e9 };
          for (const q of [everything, ...queries]) {
            const maxt = q.mint + q.span;
            const got = await t.block.series(q.matchers, q.mint, maxt);
            const want: string[] = [];
            for await (const s of t.local.select(q.matchers, q.mint, maxt)) {
              want.push(s.labels.toString());
            }
            expect(got.map((s) => s.labels.toString())).toEqual(want);
            expect(storeSeriesSamples(got, q.mint, maxt)).toEqual(
              await blockReaderSamples(t.local, q.matchers, q.mint, maxt),
            );
            for (const s of got) {
              for (const c of s.chunks) {
                expect(c.maxTime >= q.mint && c.minTime <= maxt).toBe(true);
                expect(c.encoding).toBe(1);
              }
            }
            const labelsOnly = await t.block.series(q.matchers, q.mint, maxt, { skipChunks: true });
            expect(labelsOnly.map((s) => s.labels.toString())).toEqual(want);
            expect(labelsOnly.every((s) => s.chunks.length === 0)).toBe(true);

            expect(await t.block.labelNames(q.matchers)).toEqual(
              await t.local.labelNames(q.matchers),
            );
            for (const name of ['job', 'instance', '__name__', 'absent']) {
              expect(await t.block.labelValues(name, q.matchers)).toEqual(
                await t.local.labelValues(name, q.matchers),
              );
            }
          }
          expect(await t.block.labelNames([])).toEqual(await t.local.labelNames());
          expect(await t.block.labelValues('job', [])).toEqual(await t.local.labelValues('job'));
          await t.block.close();
          await t.local.close();
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('range requests', () => {
  it('fetches 100 adjacent series and their chunks in O(1) requests', async () => {
    const input = Array.from({ length: 1000 }, (_, i) =>
      series({ __name__: 'm', i: String(i).padStart(4, '0') }, 200, i + 1),
    );
    const t = await setup(input);
    const stats = emptyBlockQueryStats();
    const got = await t.block.series(
      [Matcher.equal('__name__', 'm'), Matcher.regex('i', '01..')],
      0,
      Number.MAX_SAFE_INTEGER,
      { stats },
    );
    expect(got).toHaveLength(100);
    const index = blockIndexPath(TENANT, t.meta.ulid);
    const indexCalls = t.bucket.callsTo(index, 'getRange');
    // One request for the name's postings, one for the 100 value lists, one for the series.
    expect(indexCalls).toHaveLength(3);
    expect(t.bucket.callsTo('/chunks/', 'getRange')).toHaveLength(1);
    expect(t.bucket.calls).toHaveLength(4);
    expect(stats).toEqual({
      bucketRequests: 4,
      bucketBytes: t.bucket.bytesRead(),
      seriesFetched: 100,
      chunksFetched: got.reduce((n, s) => n + s.chunks.length, 0),
    });
    // Labels only: the same index requests, no chunk.
    t.bucket.reset();
    await t.block.series([Matcher.regex('i', '01..')], 0, Number.MAX_SAFE_INTEGER, {
      skipChunks: true,
    });
    expect(t.bucket.callsTo('/chunks/')).toEqual([]);
    // Every other series: still one series request with the default gap, one per entry
    // without merging (and a series estimate too small to reach the next entry).
    const everyOther = [Matcher.regex('i', '01.[02468]')];
    t.bucket.reset();
    expect(await t.block.series(everyOther, 0, Number.MAX_SAFE_INTEGER)).toHaveLength(50);
    expect(t.bucket.callsTo(index, 'getRange')).toHaveLength(2);
    const apart = await openBucketBlock({
      ...t.options,
      maxGapBytes: 0,
      estimatedMaxSeriesSize: 8,
    });
    t.bucket.reset();
    expect(await apart.series(everyOther, 0, Number.MAX_SAFE_INTEGER)).toHaveLength(50);
    // 50 postings lists are not adjacent either: 50 + 50 requests, plus refetches of entries
    // longer than the estimate.
    expect(t.bucket.callsTo(index, 'getRange').length).toBeGreaterThanOrEqual(100);
  });

  it('reads under 1% of a 10k-series block for a one-series query', async () => {
    const input = Array.from({ length: 10_000 }, (_, i) =>
      series({ __name__: `metric_${i % 50}`, instance: `host-${i}`, job: 'node' }, 480, i + 1),
    );
    const t = await setup(input);
    const stats = emptyBlockQueryStats();
    const got = await t.block.series([Matcher.equal('instance', 'host-4242')], 0, 1e13, { stats });
    expect(got.map((s) => s.labels.get('instance'))).toEqual(['host-4242']);
    expect(stats.bucketRequests).toBe(3); // postings list, series entry, chunks
    expect(stats.bucketBytes).toBeLessThan(t.shippedBytes / 100);
    expect(storeSeriesSamples(got, 0, 1e13)).toEqual(
      await blockReaderSamples(t.local, [Matcher.equal('instance', 'host-4242')], 0, 1e13),
    );
  }, 60_000);
});

describe('faults', () => {
  const input = () =>
    Array.from({ length: 30 }, (_, i) => series({ __name__: 'up', i: String(i) }, 300, i + 1));
  const ALL = [Matcher.equal('__name__', 'up')];

  it('names tenant, block and object for a corrupted chunk and a missing segment', async () => {
    const t = await setup(input());
    const object = blockChunkPath(TENANT, t.meta.ulid, 1);
    const bytes = await t.bucket.get(object);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] as number) ^ 0xff;
    await t.bucket.upload(object, bytes);
    await expect(t.block.series(ALL, 0, 1e13)).rejects.toThrow(
      new RegExp(
        `^tenant "${TENANT}" block ${t.meta.ulid}: corrupted object ${object}: chunk segment 0 \\(file 000001\\) offset \\d+: checksum mismatch`,
      ),
    );
    // Labels only never touches chunks, so it still works.
    expect(await t.block.series(ALL, 0, 1e13, { skipChunks: true })).toHaveLength(30);
    await t.bucket.delete(object);
    const err: unknown = await t.block.series(ALL, 0, 1e13).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'BucketBlockError', kind: 'missing', object });
    expect((err as Error).message).toContain(`missing object ${object}`);
  });

  it('names the index for a corrupted series entry or postings list', async () => {
    const t = await setup(input());
    const object = blockIndexPath(TENANT, t.meta.ulid);
    const index = await t.bucket.get(object);
    const toc = decodeToc(index.subarray(index.length - 52), index.length - 52);
    const damaged = index.slice();
    const firstSeries = Math.ceil(toc.series / 16) * 16;
    damaged[firstSeries + 3] = (damaged[firstSeries + 3] as number) ^ 0x01;
    await t.bucket.upload(object, damaged);
    await expect(t.block.series(ALL, 0, 1e13)).rejects.toMatchObject({
      kind: 'corrupted',
      object,
      message: expect.stringMatching(/checksum mismatch|malformed|truncated/) as unknown,
    });
    await t.bucket.upload(object, index.subarray(0, 100));
    await expect(t.block.labelNames(ALL)).rejects.toMatchObject({
      name: 'BucketBlockError',
      object,
    });
  });

  it('rebuilds a damaged local index-header when it opens', async () => {
    const t = await setup(input());
    await t.block.close();
    const header = await t.fs.readFile(t.options.headerPath);
    header[0] = 0;
    await t.fs.writeFile(t.options.headerPath, header);
    const reasons: string[] = [];
    const block = await openBucketBlock({
      ...t.options,
      onHeaderBuilt: (_r, reason) => reasons.push(reason),
    });
    expect(reasons).toEqual([expect.stringMatching(/invalid magic number/) as unknown]);
    expect(await block.series(ALL, 0, 1e13)).toHaveLength(30);
  });

  it('stops at an abort between fetches', async () => {
    const t = await setup(input(), {
      maxGapBytes: 0,
      estimatedMaxSeriesSize: 8,
      estimatedMaxChunkSize: 8,
      fetchConcurrency: 1,
    });
    const some = [Matcher.equal('__name__', 'up'), Matcher.regex('i', '1|5|9|13')];
    const ac = new AbortController();
    const getRange = t.bucket.getRange.bind(t.bucket);
    let calls = 0;
    t.bucket.getRange = (...args) => {
      if (++calls === 3) ac.abort();
      return getRange(...args);
    };
    await expect(t.block.series(some, 0, 1e13, { signal: ac.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
    expect(calls).toBe(3);
    await expect(t.block.labelNames([], { signal: ac.signal })).rejects.toBeInstanceOf(AbortError);
  });

  it('fails a query past the chunk pool with resource exhausted and gives the bytes back', async () => {
    const pool = new ChunkPool({ maxBytes: 2000, tenant: TENANT });
    const t = await setup(input(), { chunkPool: pool });
    await expect(t.block.series(ALL, 0, 1e13)).rejects.toThrow(
      /^resource exhausted: chunk pool of tenant "team-a" .*max_chunk_pool_bytes=2000/,
    );
    expect(pool.inUse).toBe(0);
    // A narrow query fits, and its bytes are released when its answer is built.
    const one = await t.block.series([Matcher.equal('i', '7')], 0, 10_000);
    expect(one).toHaveLength(1);
    expect(pool.inUse).toBe(0);
  });
});

describe('lifecycle', () => {
  it('tracks last use on the store clock and closes once, after queries in flight', async () => {
    const t = await setup([series({ __name__: 'up' }, 10, 1)]);
    expect(t.block.lastUsedAt).toBe(NOW);
    await t.clock.advance(5000);
    await t.block.labelValues('__name__', []);
    expect(t.block.lastUsedAt).toBe(NOW + 5000);
    const pending = t.block.series([Matcher.equal('__name__', 'up')], 0, 1e6);
    const closed = t.block.close();
    expect(await pending).toHaveLength(1);
    await closed;
    await t.block.close();
    await expect(t.block.labelNames([])).rejects.toThrow(/block .* is closed/);
  });
});
