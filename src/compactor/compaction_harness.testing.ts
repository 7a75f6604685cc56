/**
 * Test support for the compaction tests: a world with a recording in-memory bucket, a manual
 * clock, the compactor's own simulated disk and a second one the "ingesters" write their
 * blocks on; blocks shipped exactly as an ingester ships them (writeBlock, then uploadBlock
 * with `__org_id__` and `__ingester_id__`); readers for what ended up in the bucket. Only
 * tests import this file.
 */
import { DiskFileSystem } from '../../sim/testing/index.js';
import { blockMetaPath, deletionMarkPath, getIfExists, uploadBlock } from '../bucket/index.js';
import { RecordingBucket } from '../bucket/testing.js';
import { Labels, Matcher } from '../model/index.js';
import {
  createSeededRandom,
  MemoryBucket,
  newMetricsRegistry,
  type MetricsRegistry,
  type Random,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  BlockReader,
  DecBuf,
  IndexReader,
  bytesSource,
  crc32c,
  parseBlockMeta,
  ValueType,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
} from '../tsdb/index.js';
import { downloadBlocks } from './block_download.js';
import {
  CompactionLoop,
  type CompactionConfig,
  type CompactionLoopDeps,
} from './compaction_loop.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** A day boundary: the blocks' data starts here. */
export const DAY0 = 19_676 * DAY;

export interface CompactionWorld {
  clock: ManualClock;
  inner: MemoryBucket;
  bucket: RecordingBucket;
  /** The compactor's local disk. */
  fs: DiskFileSystem;
  /** The ingesters' disk. */
  src: DiskFileSystem;
  logger: CapturingLogger;
  metrics: MetricsRegistry;
  random: Random;
}

export function compactionWorld(seed = 'compaction'): CompactionWorld {
  const clock = new ManualClock(DAY0 + 3 * DAY);
  const inner = new MemoryBucket({ clock });
  return {
    clock,
    inner,
    bucket: new RecordingBucket(inner),
    fs: new DiskFileSystem(),
    src: new DiskFileSystem(),
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
    random: createSeededRandom(seed),
  };
}

export const DEFAULT_COMPACTION: CompactionConfig = {
  blockRangesMs: [2 * HOUR, 12 * HOUR, 24 * HOUR],
  blockSyncConcurrency: 4,
  metaSyncConcurrency: 4,
  consistencyDelayMs: 0,
  compactionIntervalMs: HOUR,
  compactionRetries: 3,
  compactionConcurrency: 1,
  skipBlocksWithOutOfOrderChunksEnabled: false,
};

export function loopFor(
  w: CompactionWorld,
  config: Partial<CompactionConfig> = {},
  deps: Partial<CompactionLoopDeps> = {},
): CompactionLoop {
  return new CompactionLoop(
    { ...DEFAULT_COMPACTION, ...config, dataDir: '/data' },
    {
      bucket: w.bucket,
      fs: w.fs,
      clock: w.clock,
      random: w.random,
      logger: w.logger,
      metrics: w.metrics,
      ownsTenant: () => true,
      ...deps,
    },
  );
}

/** `count` series `up{i=…}` sampled every `stepMs` over [from, to). */
export function testSeries(
  count: number,
  from: number,
  to: number,
  stepMs = 15_000,
): BlockSeriesInput[] {
  const out: BlockSeriesInput[] = [];
  for (let i = 0; i < count; i++) {
    const ts: number[] = [];
    for (let t = from; t < to; t += stepMs) ts.push(t);
    out.push({
      labels: Labels.fromObject({ __name__: 'up', i: String(i).padStart(3, '0') }),
      timestamps: Float64Array.from(ts),
      values: Float64Array.from(ts, (t) => ((t / stepMs) % 97) + i),
    });
  }
  return out;
}

/** Writes a block on the ingesters' disk and uploads it as the shipper does. */
export async function shipBlock(
  w: CompactionWorld,
  tenant: string,
  ingester: string,
  input: BlockSeriesInput[],
  range: { minTime: number; maxTime: number },
  /** More external labels (blocks with different ones fall in different groups). */
  extraLabels: Record<string, string> = {},
): Promise<BlockMeta> {
  const labels = { __org_id__: tenant, __ingester_id__: ingester, ...extraLabels };
  const meta = await writeBlock(
    `/${ingester}`,
    input,
    { thanos: { labels, source: 'receive' }, meta: range },
    { fs: w.src, clock: w.clock, random: w.random.stream('ingester-block-ulids') },
  );
  return uploadBlock(
    w.bucket,
    tenant,
    `/${ingester}/${meta.ulid}`,
    { labels, source: 'receive' },
    {
      fs: w.src,
    },
  );
}

/** Blocks with a readable meta.json and without a deletion mark, by minTime. */
export async function liveBlocks(w: CompactionWorld, tenant: string): Promise<BlockMeta[]> {
  const out: BlockMeta[] = [];
  for (const e of await w.inner.list(`${tenant}/`)) {
    const id = e.slice(tenant.length + 1, -1);
    const meta = await getIfExists(w.inner, blockMetaPath(tenant, id));
    if (meta === undefined || (await w.inner.exists(deletionMarkPath(tenant, id)))) continue;
    try {
      out.push(parseBlockMeta(new TextDecoder().decode(meta)));
    } catch {
      // A garbage meta.json (bad-input tests): not a block anyone reads.
    }
  }
  return out.sort((a, b) => a.minTime - b.minTime);
}

/** Every sample of a bucket block as `labels t v`, through a fresh download. */
export async function readBucketBlock(
  w: CompactionWorld,
  tenant: string,
  meta: BlockMeta,
): Promise<string[]> {
  const fs = new DiskFileSystem();
  await downloadBlocks(tenant, [meta], '/read', 2, { bucket: w.inner, fs });
  const reader = await BlockReader.open(`/read/${meta.ulid}`, { fs });
  try {
    const out: string[] = [];
    const all = [Matcher.regex('__name__', '.*')];
    for await (const s of reader.select(all, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
      const it = s.iterator();
      while (it.next() === ValueType.Float)
        out.push(`${s.labels.toString()} ${it.atT()} ${it.atF()}`);
      const err = it.err();
      if (err !== null) throw err;
    }
    return out;
  } finally {
    await reader.close();
  }
}

/** Settles `p`, moving the clock to each pending timer while `p` waits on one (retry backoff). */
export async function settle<T>(clock: ManualClock, p: Promise<T>, stepMs = 1_000): Promise<T> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; !done; i++) {
    if (i > 1_000_000) throw new Error('settle: promise never settled');
    // Bucket and disk here are in memory: draining microtasks lets the work progress.
    await clock.advance(0);
    if (!done && clock.pendingTimers > 0) await clock.advance(stepMs);
  }
  return p;
}

/** The value of the series of `name` whose labels include `labels`; 0 when absent. */
export async function metric(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = registry.getSingleMetric(name);
  if (m === undefined) throw new Error(`no metric ${name}`);
  const { values } = await m.get();
  const found = values.filter((v) =>
    Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val),
  );
  return found.reduce((sum, v) => sum + v.value, 0);
}

export const signal = (): AbortSignal => new AbortController().signal;

/**
 * A copy of `index` in which the second chunk of the first series with two chunks starts
 * exactly where the first ends: out-of-order (overlapping) chunks as Thanos counts them. The
 * min-time delta is rewritten as a zero of the same encoded length and the entry's CRC fixed.
 */
export async function overlapFirstChunks(index: Uint8Array): Promise<Uint8Array> {
  const out = index.slice();
  const reader = await IndexReader.open(bytesSource(out));
  for (const ref of await reader.allPostings()) {
    if ((await reader.series(ref)).chunks.length < 2) continue;
    const d = new DecBuf(out.subarray(ref * 16));
    const length = d.getUvarint();
    const bodyStart = ref * 16 + d.position();
    const labels = d.getUvarint();
    for (let i = 0; i < 2 * labels; i++) d.getUvarint();
    d.getUvarint(); // chunk count
    d.getVarint(); // first min time
    d.getUvarint(); // first max time delta
    d.getUvarint(); // first ref
    const at = ref * 16 + d.position();
    const before = d.position();
    d.getUvarint(); // second min time delta
    const n = d.position() - before;
    for (let i = 0; i < n; i++) out[at + i] = i === n - 1 ? 0 : 0x80;
    const crc = crc32c(out.subarray(bodyStart, bodyStart + length));
    new DataView(out.buffer, out.byteOffset).setUint32(bodyStart + length, crc);
    return out;
  }
  throw new Error('no series with two chunks in the index');
}
