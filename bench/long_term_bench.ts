// The long-term read path (issue 10): a 24h query of ONE series over B 2h blocks of N series
// in the bucket, through a store-gateway, measured as what it costs the bucket (bytes read as
// a fraction of the blocks' bytes, range requests), the gateway (index-header build, open and
// size per block, heap per loaded block) and the querier (latency of BucketStores.series plus
// decoding, and of the querier's blocks path: finder, consistency check, merge, decoding),
// next to the same query against an ingester's TSDB holding the same data on local disk.
//
// The blocks are written once with writeBlock and uploaded with the shipper's uploadBlock to
// a FilesystemBucket in a temp dir and, when a MinIO binary is in the services cache, to a
// MinIO on loopback. The gateway runs as in production (bucket scan, no sharding) except that
// it loads one block at a time, so each index-header build is timed alone.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Matcher } from '../src/model/index.js';
import { SAMPLE_NONE } from '../src/promql/index.js';
import {
  BlocksConsistencyChecker,
  BlocksQuerierMetrics,
  BlocksStoreQueryable,
  BucketScanBlocksFinder,
  InProcessBlocksStoreSet,
  inProcessBlocksStoreClient,
  storeSeriesToStorageSeries,
} from '../src/querier/index.js';
import {
  newMetricsRegistry,
  type Bucket,
  type Clock,
  type FileSystem,
  type Logger,
} from '../src/runtime/index.js';
import {
  FilesystemBucket,
  NodeFileSystem,
  RealClock,
  createRealRandom,
} from '../src/runtime/real/index.js';
import {
  INDEX_HEADER_FILE,
  StoreGateway,
  bucketBlockLoader,
  emptyBlockQueryStats,
  type BlockLoaderFactory,
  type BlockQueryStats,
  type StoreGatewayConfig,
  type StoreSeries,
} from '../src/storegateway/index.js';
import { DBQuerier, Head, TSDB, type BlockMeta } from '../src/tsdb/index.js';
import {
  CountingBucket,
  LT_TENANT,
  TWO_HOURS_MS,
  blockSeries,
  formatMatchers,
  queryMatchers,
  setBucketIndexStats,
  uploadBlocks,
  writeLocalBlocks,
  zeroBucketCounts,
  type BucketCounts,
} from './long_term_data.js';
import { minioBinary, startBenchMinio } from './long_term_minio.js';
import { exposedGc } from './memory_bench.js';
import { BENCH_START_MS, SAMPLES_PER_2H_BLOCK } from './series_shapes.js';

export const LT_BUCKET_KINDS = ['filesystem', 'minio'] as const;
export type LongTermBucketKind = (typeof LT_BUCKET_KINDS)[number];

/** Issue 10's target: one series over 24h reads less than 1% of the blocks' bytes. */
export const LT_BYTES_TARGET_FRACTION = 0.01;
/** Untimed runs of each path before the timed ones (JIT, page cache, connection pool). */
const WARMUP_RUNS = 2;

export interface LongTermOptions {
  /** Series per block. */
  series: number;
  /** Consecutive 2h blocks (at least 2: one is loaded first, the rest measured). */
  blocks: number;
  /** Timed query runs per path. */
  runs: number;
  buckets: readonly LongTermBucketKind[];
  progress?: (line: string) => void;
}

/** filesystem, plus minio when its binary has been built into the services cache. */
export function defaultLongTermBuckets(): LongTermBucketKind[] {
  return minioBinary() === undefined ? ['filesystem'] : ['filesystem', 'minio'];
}

/** What a query returned, to check that every path answers the same. */
export interface Checksum {
  series: number;
  samples: number;
  sumT: number;
  sumV: number;
}

export interface LatencyRow {
  path: string;
  bucket: string;
  checksum: Checksum;
  /** The first (untimed) run: the path's first query after loading. */
  firstMs: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  runs: number;
}

export interface BackendResult {
  bucket: LongTermBucketKind;
  /** Why the backend was not measured (e.g. MinIO not built). */
  skipped?: string;
  blockBytes: number;
  indexBytes: number;
  /** Per block, in load order. */
  headerBuildMs: number[];
  headerOpenMs: number[];
  headerBytes: number[];
  headerBuildBucketBytes: number[];
  headerBuildRequests: number[];
  /** Heap + ArrayBuffer growth of loading `blocks` blocks after the first; undefined without gc. */
  memory: { blocks: number; deltaBytes: number; loadMs: number } | undefined;
  /** Bucket traffic of one gateway query (the largest of the timed runs). */
  query: BucketCounts;
  /** The same with index_stats in every meta.json (as Strata ships blocks). */
  withIndexStats: BucketCounts;
  /** The store's own accounting of the same query. */
  storeStats: BlockQueryStats;
  latency: LatencyRow[];
}

export interface LongTermResult {
  series: number;
  blocks: number;
  query: string;
  /** Inclusive query range. */
  start: number;
  end: number;
  writeSeconds: number;
  backends: BackendResult[];
  ingester: LatencyRow[];
  /** Paths whose answer differs from the first path's; any makes the exit code 1. */
  mismatches: string[];
}

interface SampleSource {
  iterator(): { next(): number; atT(): number; atF(): number; err(): Error | null };
}

/** Walks every sample of every series (what the engine would do with the selection). */
function drain(series: readonly SampleSource[]): Checksum {
  const sum: Checksum = { series: series.length, samples: 0, sumT: 0, sumV: 0 };
  for (const s of series) {
    const it = s.iterator();
    while (it.next() !== SAMPLE_NONE) {
      sum.samples++;
      sum.sumT += it.atT();
      sum.sumV += it.atF();
    }
    const err = it.err();
    if (err !== null) throw err;
  }
  return sum;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Runs `query` WARMUP_RUNS + runs times; times the last `runs`. */
async function timeQuery(
  path: string,
  bucket: string,
  runs: number,
  query: (timed: boolean) => Promise<Checksum>,
): Promise<LatencyRow> {
  let checksum: Checksum | undefined;
  let firstMs = 0;
  for (let i = 0; i < WARMUP_RUNS; i++) {
    const t0 = performance.now();
    checksum = await query(false);
    if (i === 0) firstMs = performance.now() - t0;
  }
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    checksum = await query(true);
    times.push(performance.now() - t0);
  }
  return {
    path,
    bucket,
    checksum: checksum as Checksum,
    firstMs,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    runs,
  };
}

/** JS heap plus ArrayBuffer stores after full collections. */
function settledHeap(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** A logger that passes warnings and errors on (a failing block must not go unnoticed). */
function benchLogger(progress: (line: string) => void): Logger {
  const log =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void =>
      progress(
        `long-term: ${level}: ${msg}${fields === undefined ? '' : ' ' + JSON.stringify(fields)}`,
      );
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}

function gatewayConfig(syncDir: string): StoreGatewayConfig {
  return {
    shardingEnabled: false,
    ring: {
      instanceId: 'bench',
      instanceAddr: '',
      zone: '',
      heartbeatPeriodMs: 15_000,
      heartbeatTimeoutMs: 60_000,
      replicationFactor: 1,
      tokensFilePath: '',
      zoneAwarenessEnabled: false,
      waitStabilityMinMs: 0,
      waitStabilityMaxMs: 0,
      ringCheckPeriodMs: 5_000,
    },
    bucketStore: {
      syncDir,
      syncIntervalMs: 0,
      tenantSyncConcurrency: 1,
      // One block at a time, so each index-header build is timed alone (default 20).
      blockSyncConcurrency: 1,
      metaSyncConcurrency: 20,
      consistencyDelayMs: 0,
      ignoreDeletionMarkDelayMs: 6 * 60 * 60 * 1000,
      bucketIndexEnabled: false,
      maxConcurrent: 20,
      maxSampleCount: 0,
      maxChunkPoolBytes: 2 * 1024 ** 3,
      lazyLoadingEnabled: false,
      lazyLoadingIdleTimeoutMs: 20 * 60 * 1000,
    },
  };
}

interface Ctx {
  opts: LongTermOptions;
  progress: (line: string) => void;
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  work: string;
  local: string;
  metas: BlockMeta[];
  matchers: Matcher[];
  start: number;
  end: number;
}

export async function runLongTermBench(opts: LongTermOptions): Promise<LongTermResult> {
  if (opts.blocks < 2) throw new Error(`--lt-blocks=${opts.blocks}: at least 2 blocks`);
  const progress = opts.progress ?? (() => undefined);
  const fs = new NodeFileSystem();
  // Timers keep the process alive: a query waiting on one must not let node exit under it.
  const clock = new RealClock();
  const random = createRealRandom();
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-lt-'));
  try {
    const local = join(work, 'local');
    const t0 = performance.now();
    const metas = await writeLocalBlocks(
      local,
      opts.blocks,
      opts.series,
      { fs, clock, random: random.stream('bench-lt') },
      progress,
    );
    const writeSeconds = (performance.now() - t0) / 1000;
    const ctx: Ctx = {
      opts,
      progress,
      fs,
      clock,
      logger: benchLogger(progress),
      work,
      local,
      metas,
      matchers: queryMatchers(opts.series),
      start: BENCH_START_MS,
      end: BENCH_START_MS + opts.blocks * TWO_HOURS_MS - 1,
    };
    const backends: BackendResult[] = [];
    for (const kind of opts.buckets) backends.push(await runBackend(ctx, kind));
    const ingester = await runIngester(ctx);
    const rows = [...backends.flatMap((b) => b.latency), ...ingester];
    const reference = rows[0]?.checksum;
    const mismatches = rows
      .filter((r) => JSON.stringify(r.checksum) !== JSON.stringify(reference))
      .map((r) => `${r.path} (${r.bucket}): ${JSON.stringify(r.checksum)}`);
    return {
      series: opts.series,
      blocks: opts.blocks,
      query: formatMatchers(ctx.matchers),
      start: ctx.start,
      end: ctx.end,
      writeSeconds,
      backends,
      ingester,
      mismatches,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function emptyBackend(bucket: LongTermBucketKind, skipped?: string): BackendResult {
  return {
    bucket,
    ...(skipped === undefined ? {} : { skipped }),
    blockBytes: 0,
    indexBytes: 0,
    headerBuildMs: [],
    headerOpenMs: [],
    headerBytes: [],
    headerBuildBucketBytes: [],
    headerBuildRequests: [],
    memory: undefined,
    query: zeroBucketCounts(),
    withIndexStats: zeroBucketCounts(),
    storeStats: emptyBlockQueryStats(),
    latency: [],
  };
}

async function runBackend(ctx: Ctx, kind: LongTermBucketKind): Promise<BackendResult> {
  const { progress } = ctx;
  let inner: Bucket;
  let stopMinio: (() => Promise<void>) | undefined;
  if (kind === 'minio') {
    const bin = minioBinary();
    if (bin === undefined) return emptyBackend(kind, 'no MinIO binary in the services cache');
    const dataDir = join(ctx.work, 'minio');
    mkdirSync(dataDir);
    const minio = await startBenchMinio(bin, dataDir);
    progress(`long-term: MinIO at ${minio.endpoint}`);
    inner = minio.bucket;
    stopMinio = () => minio.stop();
  } else {
    inner = new FilesystemBucket(join(ctx.work, 'bucket'), ctx.clock);
  }
  try {
    return await measureBackend(ctx, kind, new CountingBucket(inner));
  } finally {
    if (stopMinio !== undefined) await stopMinio();
    else await inner.close();
  }
}

async function measureBackend(
  ctx: Ctx,
  kind: LongTermBucketKind,
  bucket: CountingBucket,
): Promise<BackendResult> {
  const { opts, progress, fs, clock, logger, metas } = ctx;
  progress(`long-term: uploading ${metas.length} blocks to ${kind}`);
  const { blockBytes, indexBytes } = await uploadBlocks(bucket, ctx.local, metas, fs);
  // First as Cortex's ingesters ship blocks: meta.json without index_stats, so the gateway
  // sizes its reads by Thanos's 64 KiB / 16000 B estimates.
  for (const m of metas) await setBucketIndexStats(bucket, m.ulid, undefined);
  const result = emptyBackend(kind);
  result.blockBytes = blockBytes;
  result.indexBytes = indexBytes;

  // The production loader, with each index-header build and block open timed.
  const base = bucketBlockLoader({ bucket, fs, clock, logger });
  const timedLoader: BlockLoaderFactory = (tenant, options) => {
    const loader = base(tenant, options);
    return {
      async prepare(meta, dir, signal) {
        const before = { ...bucket.counts };
        const t0 = performance.now();
        await loader.prepare(meta, dir, signal);
        result.headerBuildMs.push(performance.now() - t0);
        result.headerBuildBucketBytes.push(bucket.counts.rangeBytes - before.rangeBytes);
        result.headerBuildRequests.push(
          bucket.counts.rangeRequests +
            bucket.counts.otherRequests -
            before.rangeRequests -
            before.otherRequests,
        );
        result.headerBytes.push((await fs.stat(`${dir}/${INDEX_HEADER_FILE}`))?.size ?? 0);
      },
      async open(meta, dir, signal) {
        const t0 = performance.now();
        const block = await loader.open(meta, dir, signal);
        result.headerOpenMs.push(performance.now() - t0);
        return block;
      },
      close: () => loader.close?.() ?? Promise.resolve(),
    };
  };
  const syncDir = join(ctx.work, `sync-${kind}`);
  const registry = newMetricsRegistry();
  const newGateway = (blockLoader?: BlockLoaderFactory): StoreGateway =>
    new StoreGateway(gatewayConfig(syncDir), {
      bucket,
      fs,
      clock,
      random: createRealRandom(),
      logger,
      metrics: newMetricsRegistry(),
      ...(blockLoader === undefined ? {} : { blockLoader }),
    });

  const gc = exposedGc();
  const gateway = newGateway(timedLoader);
  const controller = new AbortController();
  // The gateway starts with the first block only; the others are the measured load.
  for (const m of metas.slice(1)) bucket.hidden.add(m.ulid);
  progress(`long-term: store-gateway loading ${metas.length} blocks from ${kind}`);
  await gateway.start(controller.signal);
  const finder = new BucketScanBlocksFinder(
    {
      scanIntervalMs: 60 * 60 * 1000,
      retryIntervalMs: 1_000,
      ignoreDeletionMarksDelayMs: 6 * 60 * 60 * 1000,
      tenantsConcurrency: 1,
    },
    { bucket, clock, logger },
  );
  try {
    const heapBefore = gc === undefined ? 0 : settledHeap(gc);
    bucket.hidden.clear();
    const t0 = performance.now();
    await gateway.stores.syncBlocks();
    const loadMs = performance.now() - t0;
    if (gc !== undefined) {
      result.memory = {
        blocks: metas.length - 1,
        deltaBytes: settledHeap(gc) - heapBefore,
        loadMs,
      };
    }
    checkHeld(gateway, metas.length);

    progress(`long-term: querying through the store-gateway (${kind})`);
    const direct = await gatewayQuery(
      ctx,
      gateway,
      bucket,
      'store-gateway: BucketStores.series + decode',
      kind,
    );
    result.latency.push(direct.latency);
    result.query = direct.counts;
    result.storeStats = direct.stats;

    await finder.start(controller.signal);
    while (finder.isReady() !== undefined) await clock.sleep(10);
    const metrics = new BlocksQuerierMetrics(registry);
    const queryable = new BlocksStoreQueryable(
      { queryStoreAfterMs: 0, maxConsistencyAttempts: 3, timeoutMs: 0 },
      {
        clock,
        logger,
        finder,
        stores: new InProcessBlocksStoreSet(),
        client: inProcessBlocksStoreClient(gateway.stores),
        consistency: new BlocksConsistencyChecker(
          { uploadGracePeriodMs: 0, deletionGracePeriodMs: 0 },
          { clock, logger, metrics },
        ),
        metrics,
      },
    );
    const { start, end, matchers } = ctx;
    progress(`long-term: querying through the querier's blocks path (${kind})`);
    result.latency.push(
      await timeQuery('querier: BlocksStoreQueryable.series + decode', kind, opts.runs, async () =>
        decode(ctx, await queryable.series(LT_TENANT, matchers, start, end)),
      ),
    );
  } finally {
    await finder.stop().catch(() => undefined);
    await gateway.stop();
  }

  // The same blocks as Strata ships them: meta.json with the exact index_stats the block
  // writer records, so the gateway's size estimates are the block's own. A restarted gateway
  // (same sync dir: the index-headers are reused) reads the new meta.json files.
  progress(`long-term: meta.json with index_stats, store-gateway restarted (${kind})`);
  for (const m of metas) await setBucketIndexStats(bucket, m.ulid, m.thanos?.index_stats);
  const restarted = newGateway();
  await restarted.start(controller.signal);
  try {
    checkHeld(restarted, metas.length);
    const withStats = await gatewayQuery(
      ctx,
      restarted,
      bucket,
      'store-gateway, index_stats as Strata ships',
      kind,
    );
    result.withIndexStats = withStats.counts;
    result.latency.push(withStats.latency);
  } finally {
    await restarted.stop();
  }
  return result;
}

function checkHeld(gateway: StoreGateway, blocks: number): void {
  const held = gateway.stores.blocks(LT_TENANT).length;
  if (held !== blocks) {
    throw new Error(`store-gateway holds ${held} of ${blocks} blocks (see the log above)`);
  }
}

function decode(ctx: Ctx, series: readonly StoreSeries[]): Checksum {
  return drain(series.map((s) => storeSeriesToStorageSeries(s, ctx.start, ctx.end)));
}

/** Times the query through `gateway`'s bucket stores; bucket traffic of the largest run. */
async function gatewayQuery(
  ctx: Ctx,
  gateway: StoreGateway,
  bucket: CountingBucket,
  path: string,
  kind: LongTermBucketKind,
): Promise<{ latency: LatencyRow; counts: BucketCounts; stats: BlockQueryStats }> {
  const { start, end, matchers } = ctx;
  const blockIds = ctx.metas.map((m) => m.ulid);
  let counts = zeroBucketCounts();
  let stats = emptyBlockQueryStats();
  const latency = await timeQuery(path, kind, ctx.opts.runs, async (timed) => {
    bucket.reset();
    const res = await gateway.stores.series(LT_TENANT, { start, end, matchers, blockIds });
    const sum = decode(ctx, res.series);
    if (timed && bucket.counts.rangeBytes >= counts.rangeBytes) {
      counts = { ...bucket.counts };
      stats = res.stats;
    }
    return sum;
  });
  return { latency, counts, stats };
}

/** The same query against an ingester's TSDB over the same blocks on local disk. */
async function runIngester(ctx: Ctx): Promise<LatencyRow[]> {
  const { opts, progress, fs, clock, logger, local, matchers, start, end } = ctx;
  const rows: LatencyRow[] = [];
  const tsdb = await TSDB.open(
    local,
    {},
    {
      fs,
      clock,
      random: createRealRandom().stream('bench-lt-tsdb'),
      logger,
    },
  );
  try {
    const n = opts.blocks;
    progress(`long-term: querying the ingester TSDB (${n} local blocks)`);
    rows.push(
      await timeQuery(`ingester TSDB: ${n} local blocks`, 'local disk', opts.runs, async () =>
        drain(await tsdb.select(matchers, start, end)),
      ),
    );

    // An ingester that has not cut its last 2h yet: the newest block's samples in the head.
    progress('long-term: appending the newest 2h to an in-memory head');
    const head = new Head({}, { logger });
    const input = blockSeries(n - 1, opts.series);
    const refs = new Float64Array(input.length);
    for (let i = 0; i < SAMPLES_PER_2H_BLOCK; i++) {
      const app = head.appender();
      input.forEach((s, k) => {
        const t = s.timestamps[i] as number;
        const v = s.values[i] as number;
        refs[k] = i === 0 ? app.append(s.labels, t, v) : app.append(refs[k] as number, t, v);
      });
      await app.commit();
    }
    const older = tsdb.blocks().slice(0, n - 1);
    progress(`long-term: querying the ingester TSDB (${n - 1} local blocks + head)`);
    rows.push(
      await timeQuery(
        `ingester TSDB: ${n - 1} local blocks + head (last 2h)`,
        'local disk + memory',
        opts.runs,
        async () => drain(await new DBQuerier(older, head, start, end).select(matchers)),
      ),
    );
  } finally {
    await tsdb.close();
  }
  return rows;
}
