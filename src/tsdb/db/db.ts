// A tenant's database (Prometheus tsdb/db.go): the head with its WAL in `dir/wal` (and WBL in
// `dir/wbl` once out-of-order ingestion is enabled), the blocks in `dir/<ulid>/`, and head
// compaction that cuts the head's oldest block range into a block once the head spans more
// than 1.5 block ranges (reference §11), or everything at once when forced (`/ingester/flush`),
// followed by out-of-order compaction (ooo_compact.ts).
// Queries read blocks and head merged (querier.ts). Merging blocks with each other is
// another module's job.
import { Matcher } from '../../model/index.js';
import {
  mkdirAllDurable,
  type Clock,
  type FileSystem,
  type Logger,
  type MetricsRegistry,
  type RandomStream,
  type Timer,
} from '../../runtime/index.js';
import {
  BlockReader,
  isCanonicalUlid,
  isFromOutOfOrder,
  META_FILENAME,
  TMP_FOR_CREATION_SUFFIX,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
  type SeriesChunks,
} from '../block/index.js';
import { compactOOO, toBlockInput } from './ooo_compact.js';
import { rangeForTimestamp } from '../chunkenc/index.js';
import {
  DEFAULT_CHUNK_RANGE,
  openHead,
  truncateHead,
  type Head,
  type HeadAppender,
} from '../head/index.js';
import { checkpoint, deleteCheckpoints } from '../wal/index.js';
import { headCompactable } from './block_range.js';
import { DBQuerier, type ChunkSelectOptions, type DBSeries } from './querier.js';

/** Suffix of a block directory being deleted (Prometheus's tmpForDeletionBlockDirSuffix). */
export const TMP_FOR_DELETION_SUFFIX = '.tmp-for-deletion';
/** Cortex's default `head_compaction_interval`: 1m. */
export const DEFAULT_HEAD_COMPACTION_INTERVAL = 60_000;

export interface TSDBConfig {
  /** Block ranges in ms (`block_ranges_period`); the smallest is the head's chunk range. Default [2h]. */
  blockRanges?: readonly number[];
  /** Head series shards (`stripe_size`), a power of two. */
  stripeSize?: number;
  /** Snappy-compress WAL records (`wal_compression_enabled`). */
  walCompression?: boolean;
  /** WAL segment size in bytes (default 128 MiB). */
  walSegmentSize?: number;
  /**
   * Which loaded blocks retention may delete, asked about every block after each head
   * compaction (and by `applyRetention`). Absent: no block is ever deleted. The database
   * cannot know whether a block is safe anywhere else (shipped to the bucket), so the owner
   * decides: the ingester's rule is "shipped, and older than retention_period".
   */
  blockDeletable?: BlockDeletable;
  /** How often the service loop tries to compact the head (`head_compaction_interval`), ms. */
  headCompactionInterval?: number;
  /** External labels written into cut blocks' Thanos meta section (e.g. the tenant). */
  blockLabels?: Record<string, string>;
  /**
   * Out-of-order window in ms (`out_of_order_time_window`, default 0: disabled); see
   * `setOutOfOrderTimeWindow` for changing it at run time.
   */
  outOfOrderTimeWindow?: number;
  /** Out-of-order samples per series buffered before they become a chunk (default 32). */
  outOfOrderCapMax?: number;
}

/** What retention knows besides the block itself when it asks whether the block may go. */
export interface RetentionView {
  /** The largest max time among the loaded blocks (Prometheus's BeyondTimeRetention anchor). */
  readonly newestMaxTime: number;
}

/** Whether retention may delete a block now (see TSDBConfig.blockDeletable). */
export type BlockDeletable = (meta: BlockMeta, view: RetentionView) => boolean;

export interface TSDBDeps {
  fs: FileSystem;
  clock: Clock;
  /** Entropy for block ULIDs. */
  random: RandomStream;
  logger: Logger;
  metrics?: MetricsRegistry;
}

/** Options of compactHead. */
export interface CompactHeadOptions {
  /**
   * Cut everything in the head now, not only the ranges the 1.5-range rule says are due
   * (Cortex's and Mimir's forced compaction, used by `/ingester/flush`). See compactHead.
   */
  readonly force?: boolean;
}

/** What one compactHead call did. */
export interface HeadCompactionResult {
  /** Metas of the blocks cut, oldest first (a range without samples yields no block). */
  readonly blocks: readonly BlockMeta[];
  /** Metas of the blocks cut from out-of-order samples, oldest first. */
  readonly oooBlocks: readonly BlockMeta[];
  /** Block ranges [mint, maxt) the head was truncated past, with or without a block. */
  readonly ranges: readonly { readonly mint: number; readonly maxt: number }[];
}

export class TSDB {
  readonly chunkRange: number;
  private readonly blockList: BlockReader[];
  private timer: Timer | undefined;
  /** Compactions and retention run one at a time. */
  private compactionQueue: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly config: TSDBConfig,
    private readonly deps: TSDBDeps,
    readonly head: Head,
    blocks: BlockReader[],
  ) {
    this.chunkRange = head.chunkRange;
    this.blockList = blocks;
  }

  /**
   * Opens (or creates) the database in `dir`: removes leftovers of interrupted block
   * creation or deletion, loads the blocks, then replays the head's WAL accepting nothing
   * older than the newest block's max time (so a crash between cutting a block and
   * truncating the WAL never duplicates samples).
   */
  static async open(dir: string, config: TSDBConfig, deps: TSDBDeps): Promise<TSDB> {
    const ranges = config.blockRanges ?? [DEFAULT_CHUNK_RANGE];
    for (const r of ranges)
      if (!Number.isSafeInteger(r) || r <= 0)
        throw new RangeError(`block range must be a positive integer of ms, got ${r}`);
    if (ranges.length === 0) throw new RangeError('block ranges must not be empty');
    const chunkRange = Math.min(...ranges);
    const root = dir.replace(/\/+$/, '');
    // Durably: a plain mkdir would leave a fresh data directory (and the WAL and blocks
    // created in it) only in the page cache, lost with a power cut.
    await mkdirAllDurable(deps.fs, root);
    const blocks = await loadBlocks(root, deps);
    // Blocks cut from out-of-order samples do not move the in-order floor (Prometheus
    // neither): they may end after the newest in-order block, whose WAL data must replay.
    let minValidTime: number | undefined;
    for (const b of blocks)
      if (!isFromOutOfOrder(b.meta))
        minValidTime = Math.max(minValidTime ?? b.meta.maxTime, b.meta.maxTime);
    const wal = {
      ...(config.walSegmentSize === undefined ? {} : { segmentSize: config.walSegmentSize }),
      ...(config.walCompression === undefined ? {} : { compress: config.walCompression }),
    };
    let opened;
    try {
      opened = await openHead(
        root,
        {
          chunkRange,
          wal,
          ...(config.stripeSize === undefined ? {} : { stripeSize: config.stripeSize }),
          ...(minValidTime === undefined ? {} : { minValidTime }),
          ...(config.outOfOrderTimeWindow === undefined
            ? {}
            : { outOfOrderTimeWindow: config.outOfOrderTimeWindow }),
          ...(config.outOfOrderCapMax === undefined
            ? {}
            : { outOfOrderCapMax: config.outOfOrderCapMax }),
        },
        {
          fs: deps.fs,
          logger: deps.logger,
          ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
        },
      );
    } catch (err) {
      for (const b of blocks) await b.close();
      throw err;
    }
    deps.logger.info('tsdb opened', {
      dir: root,
      blocks: blocks.length,
      replayedSamples: opened.replay.samples,
      skippedSamples: opened.replay.skippedSamples,
    });
    return new TSDB(root, config, deps, opened.head, blocks);
  }

  /** The loaded blocks, oldest first. */
  blocks(): readonly BlockReader[] {
    return this.blockList;
  }

  /**
   * Changes the out-of-order window (ms; 0 disables) of the running database, as a reload
   * of the per-tenant `out_of_order_time_window` does. Appenders already appending keep
   * the window they started with; out-of-order data in the head stays and is compacted.
   */
  setOutOfOrderTimeWindow(ms: number): void {
    this.checkOpen();
    this.head.setOutOfOrderTimeWindow(ms);
  }

  /** Makes every committed sample durable (fsyncs the WAL and the WBL). */
  sync(): Promise<void> {
    this.checkOpen();
    return this.head.sync();
  }

  /** A head appender (the §11 ingestion window applies). */
  appender(): HeadAppender {
    this.checkOpen();
    return this.head.appender();
  }

  /** A read view over blocks and head for the inclusive range [mint, maxt]. */
  querier(mint: number, maxt: number): DBQuerier {
    this.checkOpen();
    return new DBQuerier(this.blockList, this.head, mint, maxt, () => this.blockList);
  }

  /** Series matching every matcher with samples in [mint, maxt], merged across blocks and head. */
  select(matchers: readonly Matcher[], mint: number, maxt: number): Promise<DBSeries[]> {
    return this.querier(mint, maxt).select(matchers);
  }

  /**
   * The encoded chunks of the matching series overlapping [mint, maxt] (chunk streaming),
   * sorted by labels unless `opts.sorted` is false; the head's part pauses where
   * `opts.pause` says (a query on a serving event loop).
   */
  selectChunks(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts: ChunkSelectOptions = {},
  ): Promise<SeriesChunks[]> {
    return this.querier(mint, maxt).selectChunks(matchers, opts);
  }

  /**
   * Cuts blocks from the head while it is compactable (Prometheus db.compactHead): each
   * time the range [head min time, end of its block range) becomes a block, then the head
   * and its WAL are truncated to the range's end. Then applies retention.
   *
   * With `force`, every range the head covers is cut however short the head is: blocks
   * end at the block-range boundaries as usual, except the last, which ends one past the
   * head's max time (Cortex/Mimir forced compaction). So the head's new floor is max time
   * + 1: later appends after the old max time still land in the head, and a restart
   * (whose replay floor is the newest block's max time) neither loses nor duplicates them.
   * The head keeps its max time, so the ingestion window stays where it was. Out-of-order
   * data is compacted as usual, and the whole WAL up to the current segment is
   * checkpointed (nothing in it is needed any more).
   */
  compactHead(opts: CompactHeadOptions = {}): Promise<HeadCompactionResult> {
    const force = opts.force === true;
    const run = this.compactionQueue.then(() =>
      force ? this.forceCompactHeadNow() : this.compactHeadNow(),
    );
    this.compactionQueue = run.catch(() => undefined);
    return run;
  }

  /** Starts the loop compacting the head every `headCompactionInterval`; stops on abort. */
  start(signal?: AbortSignal): void {
    this.checkOpen();
    if (this.timer !== undefined || signal?.aborted === true) return;
    const interval = this.config.headCompactionInterval ?? DEFAULT_HEAD_COMPACTION_INTERVAL;
    if (!Number.isSafeInteger(interval) || interval <= 0)
      throw new RangeError(
        `head compaction interval must be a positive integer of ms, got ${interval}`,
      );
    this.timer = this.deps.clock.every(interval, async () => {
      try {
        await this.compactHead();
      } catch (err) {
        this.deps.logger.error('head compaction failed', { dir: this.dir, err: String(err) });
      }
    });
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Stops the compaction loop (a compaction in progress finishes). */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Stops the loop, waits for a running compaction, closes the WAL and the blocks. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.stop();
    await this.compactionQueue;
    this.closed = true;
    await this.head.close();
    for (const b of this.blockList) await b.close();
  }

  private async compactHeadNow(): Promise<HeadCompactionResult> {
    this.checkOpen();
    const blocks: BlockMeta[] = [];
    const ranges: { mint: number; maxt: number }[] = [];
    while (
      !this.head.isEmpty() &&
      headCompactable(this.head.minTime(), this.head.maxTime(), this.chunkRange)
    ) {
      const mint = this.head.minTime();
      await this.cutRange(mint, rangeForTimestamp(mint, this.chunkRange), blocks, ranges);
    }
    // Like Prometheus, out-of-order data is compacted after the head was (it may then
    // overlap the new in-order blocks; queries and vertical compaction merge them).
    const oooBlocks = ranges.length > 0 ? await this.compactOOONow() : [];
    await this.applyRetentionNow();
    return { blocks, oooBlocks, ranges };
  }

  private async forceCompactHeadNow(): Promise<HeadCompactionResult> {
    this.checkOpen();
    const blocks: BlockMeta[] = [];
    const ranges: { mint: number; maxt: number }[] = [];
    // Samples appended while this runs may raise the max time: only what was there when
    // the flush began is cut, later data stays in the head for the next compaction.
    const last = this.head.maxTime();
    // After a previous forced cut the head keeps its max time but its min time moved past
    // it: then there is nothing in order left to cut.
    while (!this.head.isEmpty() && this.head.minTime() <= last) {
      const mint = this.head.minTime();
      const maxt = Math.min(rangeForTimestamp(mint, this.chunkRange), last + 1);
      await this.cutRange(mint, maxt, blocks, ranges);
    }
    const oooBlocks = await this.compactOOONow();
    if (ranges.length > 0) await this.checkpointWholeWAL(last + 1);
    await this.applyRetentionNow();
    return { blocks, oooBlocks, ranges };
  }

  /** Cuts [mint, maxt) into a block (if it has samples) and truncates head and WAL to maxt. */
  private async cutRange(
    mint: number,
    maxt: number,
    blocks: BlockMeta[],
    ranges: { mint: number; maxt: number }[],
  ): Promise<void> {
    const meta = await this.cutBlock(mint, maxt);
    if (meta !== undefined) blocks.push(meta);
    ranges.push({ mint, maxt });
    await truncateHead(this.head, maxt, { fs: this.deps.fs }, this.checkpointOptions());
    this.deps.logger.info('head compacted', {
      dir: this.dir,
      mint,
      maxt,
      block: meta?.ulid ?? null,
    });
  }

  /**
   * Checkpoints every WAL segment before the one being written (truncateHead keeps the
   * newest third, which a forced flush has just put into blocks): only series still in
   * the head and samples at or after `mint` survive into the checkpoint.
   */
  private async checkpointWholeWAL(mint: number): Promise<void> {
    const wal = this.head.wal;
    if (wal === undefined) return;
    const { first } = await wal.segments();
    // Writing continues in a fresh segment, so every older one can go.
    const last = (await wal.nextSegment()) - 1;
    if (first < 0 || last < first) return;
    await checkpoint(
      wal.dir,
      first,
      last,
      (ref) => this.head.seriesByRef(ref) !== undefined,
      mint,
      { fs: this.deps.fs, logger: this.deps.logger },
      this.checkpointOptions(),
    );
    await wal.truncate(last + 1);
    await deleteCheckpoints(wal.dir, last, { fs: this.deps.fs });
  }

  private checkpointOptions(): { compress?: boolean } {
    return this.config.walCompression === undefined ? {} : { compress: this.config.walCompression };
  }

  /**
   * Writes the head's out-of-order samples into blocks, one per block range they touch,
   * marked `from-out-of-order` (Prometheus compactOOOHead), then drops them from the head
   * and truncates the WBL. Runs after every head compaction that cut a block; tests and
   * tools may call it directly.
   */
  compactOOOHead(): Promise<BlockMeta[]> {
    const run = this.compactionQueue.then(() => this.compactOOONow());
    this.compactionQueue = run.catch(() => undefined);
    return run;
  }

  private async compactOOONow(): Promise<BlockMeta[]> {
    this.checkOpen();
    const metas = await compactOOO(this.head, {
      dir: this.dir,
      chunkRange: this.chunkRange,
      ...(this.config.blockLabels === undefined ? {} : { blockLabels: this.config.blockLabels }),
      deps: this.deps,
      load: async (written) => {
        const readers: BlockReader[] = [];
        for (const meta of written)
          readers.push(await BlockReader.open(`${this.dir}/${meta.ulid}`, { fs: this.deps.fs }));
        // All at once, so a read never sees some of the new blocks and not the others.
        this.blockList.push(...readers);
        this.blockList.sort((a, b) => a.meta.minTime - b.meta.minTime);
      },
    });
    return metas;
  }

  /** Writes the head's samples in [mint, maxt) as a block and loads it. */
  private async cutBlock(mint: number, maxt: number): Promise<BlockMeta | undefined> {
    const input = await this.headSeries(mint, maxt - 1);
    if (input.length === 0) return undefined;
    const meta = await writeBlock(
      this.dir,
      input,
      {
        chunkRange: this.chunkRange,
        rules: 'current',
        // Like Prometheus, the block covers its whole range: it ends at the range boundary,
        // not one past its last sample, so the head's ingestion floor after reopen is that
        // boundary. Set at creation, so the block never exists with another maxTime.
        meta: { maxTime: maxt },
        ...(this.config.blockLabels === undefined
          ? {}
          : { thanos: { labels: this.config.blockLabels } }),
      },
      { fs: this.deps.fs, clock: this.deps.clock, random: this.deps.random },
    );
    const blockDir = `${this.dir}/${meta.ulid}`;
    const reader = await BlockReader.open(blockDir, { fs: this.deps.fs });
    this.blockList.push(reader);
    this.blockList.sort((a, b) => a.meta.minTime - b.meta.minTime);
    return reader.meta;
  }

  /** The head's series with samples in the inclusive range, copied into typed arrays. */
  private async headSeries(mint: number, maxt: number): Promise<BlockSeriesInput[]> {
    // In-order data only: out-of-order samples go to their own blocks (compactOOOHead).
    const selected = await this.head.select([Matcher.equal('', '')], mint, maxt, {
      outOfOrder: false,
    });
    return toBlockInput(selected);
  }

  /**
   * Deletes the blocks the `blockDeletable` policy allows (none without a policy), renaming
   * each out of sight before removing it. Runs after every head compaction; queued behind a
   * running compaction when called directly. Returns the ULIDs deleted.
   */
  applyRetention(): Promise<string[]> {
    const run = this.compactionQueue.then(() => this.applyRetentionNow());
    this.compactionQueue = run.catch(() => undefined);
    return run;
  }

  private async applyRetentionNow(): Promise<string[]> {
    this.checkOpen();
    const deletable = this.config.blockDeletable;
    if (deletable === undefined || this.blockList.length === 0) return [];
    const view: RetentionView = {
      newestMaxTime: Math.max(...this.blockList.map((b) => b.meta.maxTime)),
    };
    const doomed = this.blockList.filter((b) => deletable(b.meta, view));
    for (const b of doomed) {
      const idx = this.blockList.indexOf(b);
      this.blockList.splice(idx, 1);
      await b.close();
      const blockDir = `${this.dir}/${b.meta.ulid}`;
      const tmp = `${blockDir}${TMP_FOR_DELETION_SUFFIX}`;
      await this.deps.fs.rename(blockDir, tmp);
      await this.deps.fs.syncDir(this.dir);
      await this.deps.fs.remove(tmp, { recursive: true });
      this.deps.logger.info('block deleted by retention', { dir: this.dir, block: b.meta.ulid });
    }
    return doomed.map((b) => b.meta.ulid);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`tsdb ${this.dir} is closed`);
  }
}

/**
 * Loads every block directory of `dir` (a canonical ULID with a meta.json), oldest first,
 * and removes directories left by an interrupted block creation or deletion.
 */
async function loadBlocks(dir: string, deps: TSDBDeps): Promise<BlockReader[]> {
  const blocks: BlockReader[] = [];
  try {
    for (const name of await deps.fs.readdir(dir)) {
      const path = `${dir}/${name}`;
      if (name.endsWith(TMP_FOR_CREATION_SUFFIX) || name.endsWith(TMP_FOR_DELETION_SUFFIX)) {
        deps.logger.info('removing leftover block directory', { path });
        await deps.fs.remove(path, { recursive: true });
        continue;
      }
      if (!isCanonicalUlid(name)) continue;
      const st = await deps.fs.stat(path);
      if (st?.isDirectory !== true || !(await deps.fs.exists(`${path}/${META_FILENAME}`))) continue;
      blocks.push(await BlockReader.open(path, { fs: deps.fs }));
    }
  } catch (err) {
    for (const b of blocks) await b.close();
    throw err;
  }
  blocks.sort((a, b) => a.meta.minTime - b.meta.minTime);
  return blocks;
}
