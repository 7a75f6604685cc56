// The head: the in-memory, writable part of the TSDB (Prometheus tsdb/head.go). Series live
// in `stripeSize` shards keyed by label hash and by ref; refs come from a counter and are
// never reused. Samples enter only through an Appender (head_append.ts) whose commit logs
// them to the WAL before they become visible; reads are in head_read.ts, WAL replay in
// head_wal.ts. With an out-of-order window, samples older than a series' newest go to its
// out-of-order buffer and chunks (mem_series.ts), are logged to the write-behind log (WBL)
// and leave the head through out-of-order compaction (db.ts).
import type { Labels, Matcher } from '../../model/index.js';
import { newMetricsRegistry, type Logger, type MetricsRegistry } from '../../runtime/index.js';
import type { ChunkCutOptions, ChunkCutRules } from '../chunkenc/index.js';
import { DEFAULT_SAMPLES_PER_CHUNK } from '../chunkenc/index.js';
import { postingsForMatchers, type PostingsSource } from '../index/index.js';
import type { WAL } from '../wal/index.js';
import type { SeriesChunks } from '../block/index.js';
import { HeadAppender } from './head_append.js';
import {
  selectOOOChunks,
  selectSeries,
  selectSeriesChunks,
  type HeadSeries,
  type SelectOptions,
} from './head_read.js';
import {
  openHead,
  type HeadReplayStats,
  type OpenHeadConfig,
  type OpenHeadDeps,
} from './head_wal.js';
import { MemPostings } from './mem_postings.js';
import { DEFAULT_OOO_CAP_MAX } from './ooo_chunk.js';
import { AppendScratch, MemSeries } from './mem_series.js';
import type { AppendBuffer } from './head_append.js';
import { HeadMetrics } from './metrics.js';

/** Prometheus's default smallest block range: 2h in milliseconds. */
export const DEFAULT_CHUNK_RANGE = 2 * 60 * 60 * 1000;
/** Prometheus's DefaultStripeSize. */
export const DEFAULT_STRIPE_SIZE = 16384;

/** Head min time while it holds no samples (Prometheus: math.MaxInt64). */
export const EMPTY_HEAD_MIN_TIME = Number.MAX_SAFE_INTEGER;
/** Head max time while it holds no samples (Prometheus: math.MinInt64). */
export const EMPTY_HEAD_MAX_TIME = Number.MIN_SAFE_INTEGER;

export interface HeadConfig {
  /** The smallest block range in ms (chunk range and ingestion window); default 2h. */
  chunkRange?: number;
  /** Number of series shards, a power of two (`stripe_size`); default 16384. */
  stripeSize?: number;
  /** Target samples per chunk; default 120. */
  samplesPerChunk?: number;
  /** Which Prometheus release's chunk-cutting rules to follow; default 'current'. */
  chunkCutRules?: ChunkCutRules;
  /**
   * The oldest timestamp the head accepts at all (Prometheus's minValidTime: the newest
   * block's max time on open); default no limit. `truncate(mint)` raises it to mint.
   */
  minValidTime?: number;
  /**
   * How far (ms) behind the head's max time a sample may be and still be accepted out of
   * order (`out_of_order_time_window`); default 0, which disables out-of-order ingestion.
   */
  outOfOrderTimeWindow?: number;
  /** Out-of-order samples per series buffered before they are cut into a chunk; default 32. */
  outOfOrderCapMax?: number;
}

export interface HeadDeps {
  logger: Logger;
  /** Where the head's metrics go; a private registry when absent. */
  metrics?: MetricsRegistry;
  /** The WAL commits are logged to; none means an in-memory head (tests, tools). */
  wal?: WAL;
  /** The write-behind log out-of-order samples are logged to (set with `wal`). */
  wbl?: WAL;
  /** Opens the WBL on the first out-of-order commit when `wbl` is not given. */
  openWBL?: () => Promise<WAL>;
}

class Stripe {
  readonly byRef = new Map<number, MemSeries>();
  readonly byHash = new Map<number, MemSeries[]>();
}

export class Head implements PostingsSource {
  readonly chunkRange: number;
  readonly cutOptions: ChunkCutOptions;
  readonly metrics: HeadMetrics;
  readonly logger: Logger;
  /** @internal Reused by every append to this head. */
  readonly appendScratch = new AppendScratch();
  /**
   * @internal Sample buffers of finished appenders, reused by new ones (Prometheus pools
   * them too): an appender of 10k samples would otherwise regrow its arrays on every push.
   */
  readonly appendBuffers: AppendBuffer[] = [];
  readonly wal: WAL | undefined;
  private wblLog: WAL | undefined;
  private wblOpening: Promise<WAL> | undefined;
  private readonly openWBL: (() => Promise<WAL>) | undefined;
  private oooWindow: number;
  readonly oooCapMax: number;
  /** Numbers out-of-order chunks head-wide, so compaction can drop exactly what it wrote. */
  private oooChunkSeq = 0;
  private oooMinT = EMPTY_HEAD_MIN_TIME;
  private oooMaxT = EMPTY_HEAD_MAX_TIME;
  /**
   * Changes whenever a commit, replay, series creation or truncation changes the head, so an
   * appender can tell at commit that nothing happened since it was created.
   */
  private version = 0;
  /**
   * Changes whenever series leave the head or its minimum valid time moves (truncations):
   * an appender whose head changed only by other commits since can re-check cheaply.
   */
  private removals = 0;
  private lastAppenderId = 0;
  /**
   * Made on first use: a head of few series (one per tenant, opened and reopened with every
   * restart) would otherwise build 2 × stripeSize empty maps up front. Missing ones are empty.
   */
  private readonly stripes: (Stripe | undefined)[];
  private readonly stripeMask: number;
  /** Marks the series in this head (MemSeries.owner), without referring to the head. */
  private readonly ownerToken = {};
  private readonly index = new MemPostings();
  private lastRef = 0;
  private numSeries = 0;
  private minT = EMPTY_HEAD_MIN_TIME;
  private maxT = EMPTY_HEAD_MAX_TIME;
  private minValid: number;
  /** Commits run one at a time, so validation, WAL logging and applying never interleave. */
  private commitQueue: Promise<unknown> = Promise.resolve();

  constructor(config: HeadConfig, deps: HeadDeps) {
    this.chunkRange = config.chunkRange ?? DEFAULT_CHUNK_RANGE;
    if (!Number.isSafeInteger(this.chunkRange) || this.chunkRange <= 0)
      throw new RangeError(
        `head chunk range must be a positive integer of ms, got ${this.chunkRange}`,
      );
    const stripeSize = config.stripeSize ?? DEFAULT_STRIPE_SIZE;
    if (
      !Number.isInteger(stripeSize) ||
      stripeSize < 1 ||
      stripeSize > 2 ** 30 ||
      (stripeSize & (stripeSize - 1)) !== 0
    )
      throw new RangeError(`head stripe size must be a power of two, got ${stripeSize}`);
    const samplesPerChunk = config.samplesPerChunk ?? DEFAULT_SAMPLES_PER_CHUNK;
    if (!Number.isInteger(samplesPerChunk) || samplesPerChunk < 1)
      throw new RangeError(`samples per chunk must be a positive integer, got ${samplesPerChunk}`);
    this.cutOptions = {
      chunkRange: this.chunkRange,
      samplesPerChunk,
      rules: config.chunkCutRules ?? 'current',
    };
    this.minValid = config.minValidTime ?? Number.MIN_SAFE_INTEGER;
    this.oooWindow = checkWindow(config.outOfOrderTimeWindow ?? 0);
    this.oooCapMax = config.outOfOrderCapMax ?? DEFAULT_OOO_CAP_MAX;
    if (!Number.isInteger(this.oooCapMax) || this.oooCapMax < 1 || this.oooCapMax > 255)
      throw new RangeError(`out-of-order cap max must be in [1, 255], got ${this.oooCapMax}`);
    this.stripes = new Array<Stripe | undefined>(stripeSize).fill(undefined);
    this.stripeMask = stripeSize - 1;
    this.logger = deps.logger;
    this.wal = deps.wal;
    this.wblLog = deps.wbl;
    this.openWBL = deps.openWBL;
    this.metrics = new HeadMetrics(deps.metrics ?? newMetricsRegistry());
  }

  /**
   * Opens the head stored in `dir` (WAL in `dir/wal`), replaying checkpoint and segments and
   * repairing a torn tail; see openHead.
   */
  static open(
    dir: string,
    config: OpenHeadConfig,
    deps: OpenHeadDeps,
  ): Promise<{ head: Head; replay: HeadReplayStats }> {
    return openHead(dir, config, deps);
  }

  /** Oldest sample time in the head, EMPTY_HEAD_MIN_TIME when empty. */
  minTime(): number {
    return this.minT;
  }

  /** Newest sample time in the head, EMPTY_HEAD_MAX_TIME when empty. */
  maxTime(): number {
    return this.maxT;
  }

  /** The oldest timestamp the head accepts regardless of its max time. */
  minValidTime(): number {
    return this.minValid;
  }

  /** The out-of-order window in ms (0: disabled). */
  outOfOrderTimeWindow(): number {
    return this.oooWindow;
  }

  /**
   * Changes the out-of-order window (per-tenant overrides reload at run time); appenders
   * that already appended keep the window they started with. Out-of-order data already in
   * the head stays when the window shrinks or is disabled, and is compacted as usual.
   */
  setOutOfOrderTimeWindow(ms: number): void {
    this.oooWindow = checkWindow(ms);
  }

  /** Oldest out-of-order sample time in the head, EMPTY_HEAD_MIN_TIME without any. */
  oooMinTime(): number {
    return this.oooMinT;
  }

  /** Newest out-of-order sample time in the head, EMPTY_HEAD_MAX_TIME without any. */
  oooMaxTime(): number {
    return this.oooMaxT;
  }

  /** The write-behind log, if one is open. */
  wbl(): WAL | undefined {
    return this.wblLog;
  }

  /** @internal The WBL, opened now if needed; undefined for a head without a WAL. */
  async ensureWBL(): Promise<WAL | undefined> {
    if (this.wblLog !== undefined || this.openWBL === undefined) return this.wblLog;
    this.wblOpening ??= this.openWBL();
    this.wblLog = await this.wblOpening;
    return this.wblLog;
  }

  /** Makes everything committed so far durable: fsyncs the WAL and the WBL. */
  async sync(): Promise<void> {
    await this.wal?.sync();
    await this.wblLog?.sync();
  }

  /** Closes the WAL and the WBL. */
  async close(): Promise<void> {
    // Label sets outlive the head (distributors' and ingesters' label caches keep them): their
    // hints must not keep this head's series, and chunks, alive.
    for (const stripe of this.stripes)
      if (stripe !== undefined)
        for (const series of stripe.byRef.values())
          if (series.labels.seriesHint === series) series.labels.seriesHint = undefined;
    await this.wal?.close();
    await this.wblLog?.close();
  }

  /** @internal See `version`. */
  stateVersion(): number {
    return this.version;
  }

  /** @internal See `removals`. */
  removalVersion(): number {
    return this.removals;
  }

  /** @internal A number no other appender of this head has. */
  nextAppenderId(): number {
    return ++this.lastAppenderId;
  }

  /** @internal The next out-of-order chunk number. */
  nextOOOChunkSeq(): number {
    return ++this.oooChunkSeq;
  }

  isEmpty(): boolean {
    return this.maxT === EMPTY_HEAD_MAX_TIME;
  }

  /** Number of series in the head. */
  seriesCount(): number {
    return this.numSeries;
  }

  /**
   * Prometheus's appendableMinValidTime: samples before max(minValidTime, maxTime −
   * chunkRange/2) are out of bounds. An empty head has no max time yet; Prometheus then
   * initialises it from the first appended sample, which `firstT` stands for.
   */
  appendableMinValidTime(firstT: number): number {
    const maxT = this.isEmpty() ? firstT : this.maxT;
    return Math.max(this.minValid, maxT - Math.trunc(this.chunkRange / 2));
  }

  /** A new appender; nothing it appends is visible or logged before `commit()`. */
  appender(): HeadAppender {
    return new HeadAppender(this);
  }

  /** The series with this ref, if it is in the head. */
  seriesByRef(ref: number): MemSeries | undefined {
    return this.stripes[ref & this.stripeMask]?.byRef.get(ref);
  }

  /** The series with these labels, if it is in the head. */
  seriesByLabels(labels: Labels): MemSeries | undefined {
    // Pushed label sets come back as the same Labels object every scrape: the series found
    // last time is one field away, and valid while it is still in this head.
    const hint = labels.seriesHint;
    if (hint instanceof MemSeries && hint.owner === this.ownerToken) return hint;
    const hash = labels.lookupHash();
    const list = this.stripes[hash & this.stripeMask]?.byHash.get(hash);
    if (list === undefined) return undefined;
    for (const s of list)
      if (s.labels.equals(labels)) {
        labels.seriesHint = s;
        return s;
      }
    return undefined;
  }

  /**
   * The series with these labels, created (and indexed) if missing. Creating a series here
   * bypasses the WAL: use an appender for data that must survive a restart.
   */
  getOrCreate(labels: Labels): { series: MemSeries; created: boolean } {
    const existing = this.seriesByLabels(labels);
    if (existing !== undefined) return { series: existing, created: false };
    return { series: this.insertSeries(this.allocateRef(), labels), created: true };
  }

  /** A fresh series ref, never handed out before. */
  allocateRef(): number {
    if (this.lastRef >= 0xffffffff)
      throw new RangeError(`head series refs exhausted at ${this.lastRef} (postings are uint32)`);
    return ++this.lastRef;
  }

  /** @internal Adds a series with a known ref (from an appender or the WAL). */
  insertSeries(ref: number, labels: Labels): MemSeries {
    if (labels.isEmpty()) throw new RangeError('cannot create a series with an empty label set');
    return this.insertMemSeries(new MemSeries(ref, labels));
  }

  /** @internal Adds a series object built by an appender (ref from allocateRef). */
  insertMemSeries(series: MemSeries): MemSeries {
    const { ref, labels } = series;
    const refStripe = this.stripeAt(ref);
    if (refStripe.byRef.has(ref)) throw new Error(`series ref ${ref} already exists in the head`);
    refStripe.byRef.set(ref, series);
    series.owner = this.ownerToken;
    const hashStripe = this.hashStripe(labels);
    const hash = labels.lookupHash();
    const list = hashStripe.byHash.get(hash);
    if (list === undefined) hashStripe.byHash.set(hash, [series]);
    else list.push(series);
    this.index.add(ref, labels);
    if (ref > this.lastRef) this.lastRef = ref;
    this.numSeries++;
    this.version++;
    this.metrics.series.inc();
    this.metrics.seriesCreated.inc();
    return series;
  }

  /** @internal Widens the head's time range after samples were applied. */
  updateMinMaxTime(mint: number, maxt: number): void {
    if (mint < this.minT) this.minT = mint;
    if (maxt > this.maxT) this.maxT = maxt;
    this.version++;
  }

  /** @internal Widens the head's out-of-order time range after samples were inserted. */
  updateOOOMinMaxTime(mint: number, maxt: number): void {
    if (mint < this.oooMinT) this.oooMinT = mint;
    if (maxt > this.oooMaxT) this.oooMaxT = maxt;
    this.version++;
  }

  /** @internal Runs `fn` after every earlier commit finished (commits never interleave). */
  serializeCommit<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.commitQueue.then(fn, fn);
    this.commitQueue = run.catch(() => undefined);
    return run;
  }

  // ---- PostingsSource ----

  postings(name: string, ...values: string[]): Promise<Uint32Array> {
    return Promise.resolve(this.index.postings(name, values));
  }

  labelValues(name: string): Promise<string[]> {
    return Promise.resolve(this.index.labelValues(name));
  }

  labelNames(): Promise<string[]> {
    return Promise.resolve(this.index.labelNames());
  }

  // ---- reads ----

  /**
   * Series matching every matcher that have samples in [mint, maxt], sorted by labels,
   * each with an iterator over those samples (a snapshot: later appends are not seen).
   * In-order and out-of-order samples are merged; `opts` narrows either part.
   */
  async select(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts: SelectOptions = {},
  ): Promise<HeadSeries[]> {
    const refs = await postingsForMatchers(this, matchers);
    return selectSeries(refs, (ref) => this.seriesByRef(ref), mint, maxt, opts);
  }

  /** The chunks of the matching series overlapping [mint, maxt] (see selectSeriesChunks). */
  async selectChunks(
    matchers: readonly Matcher[],
    mint: number,
    maxt: number,
    opts: SelectOptions = {},
  ): Promise<SeriesChunks[]> {
    const refs = await postingsForMatchers(this, matchers);
    return await selectSeriesChunks(refs, (ref) => this.seriesByRef(ref), mint, maxt, opts);
  }

  /**
   * Out-of-order samples in [mint, maxt] from chunks numbered `maxSeq` or lower (see
   * cutOOOForCompaction), per series sorted by labels.
   */
  selectOOOForCompaction(mint: number, maxt: number, maxSeq: number): HeadSeries[] {
    return selectOOOChunks(this.allRefs(), (ref) => this.seriesByRef(ref), mint, maxt, maxSeq);
  }

  // ---- garbage collection ----

  /**
   * Drops every chunk that ends before `mint` and every series left without samples, and
   * stops accepting samples before `mint` (Prometheus truncateMemory). The WAL is left
   * alone: see `truncateWAL` in head_wal.ts.
   */
  truncateMemory(mint: number): { removedSeries: number; removedChunks: number } {
    if (mint > this.minValid) this.minValid = mint;
    this.version++;
    this.removals++;
    const dead = new Set<number>();
    const deadLabels: Labels[] = [];
    let removedChunks = 0;
    let actualMin = EMPTY_HEAD_MIN_TIME;
    for (const stripe of this.stripes) {
      if (stripe === undefined) continue;
      for (const series of stripe.byRef.values()) {
        removedChunks += series.truncateBefore(mint);
        const seriesMin = series.minTime();
        // Out-of-order data keeps a series alive until out-of-order compaction took it.
        if (seriesMin === undefined && !series.hasOOOSamples()) {
          dead.add(series.ref);
          deadLabels.push(series.labels);
        } else if (seriesMin !== undefined && seriesMin < actualMin) actualMin = seriesMin;
      }
    }
    for (const ref of dead) this.removeSeries(ref);
    this.index.delete(dead, deadLabels);
    // Like Prometheus, the head's min time moves to mint (or to its oldest kept sample).
    if (this.maxT !== EMPTY_HEAD_MAX_TIME)
      this.minT = Math.max(mint, actualMin === EMPTY_HEAD_MIN_TIME ? mint : actualMin);
    return { removedSeries: dead.size, removedChunks };
  }

  /**
   * Cuts every series' out-of-order buffer into a chunk (Prometheus NewOOOCompactionHead)
   * and returns the newest chunk number and the time range of all out-of-order chunks, or
   * undefined without out-of-order data. Chunks numbered up to `seq` can then be written
   * to blocks and dropped with `truncateOOO(seq)`.
   */
  cutOOOForCompaction(): { seq: number; mint: number; maxt: number } | undefined {
    let mint = EMPTY_HEAD_MIN_TIME;
    let maxt = EMPTY_HEAD_MAX_TIME;
    for (const stripe of this.stripes) {
      if (stripe === undefined) continue;
      for (const series of stripe.byRef.values()) {
        if (series.ooo === null) continue;
        if ((series.ooo.buffer?.length ?? 0) > 0) series.cutOOOBuffer(this.nextOOOChunkSeq());
        for (const c of series.ooo.chunks) {
          if (c.minTime < mint) mint = c.minTime;
          if (c.maxTime > maxt) maxt = c.maxTime;
        }
      }
    }
    if (maxt === EMPTY_HEAD_MAX_TIME) return undefined;
    this.version++;
    return { seq: this.oooChunkSeq, mint, maxt };
  }

  /**
   * Drops out-of-order chunks numbered `seq` or lower (written to blocks), series left
   * without any sample, and recomputes the head's out-of-order time range.
   */
  truncateOOO(seq: number): { removedSeries: number; removedChunks: number } {
    this.version++;
    this.removals++;
    let removedChunks = 0;
    let mint = EMPTY_HEAD_MIN_TIME;
    let maxt = EMPTY_HEAD_MAX_TIME;
    const dead = new Set<number>();
    const deadLabels: Labels[] = [];
    for (const stripe of this.stripes) {
      if (stripe === undefined) continue;
      for (const series of stripe.byRef.values()) {
        if (series.ooo === null) continue;
        removedChunks += series.truncateOOO(seq);
        if (series.ooo !== null) {
          for (const c of series.ooo.chunks) {
            if (c.minTime < mint) mint = c.minTime;
            if (c.maxTime > maxt) maxt = c.maxTime;
          }
          const buf = series.ooo.buffer;
          if (buf !== null && buf.length > 0) {
            if (buf.minTime() < mint) mint = buf.minTime();
            if (buf.maxTime() > maxt) maxt = buf.maxTime();
          }
        } else if (!series.hasSamples()) {
          dead.add(series.ref);
          deadLabels.push(series.labels);
        }
      }
    }
    for (const ref of dead) this.removeSeries(ref);
    this.index.delete(dead, deadLabels);
    this.oooMinT = mint;
    this.oooMaxT = maxt;
    return { removedSeries: dead.size, removedChunks };
  }

  /** Every series ref in the head, ascending. */
  allRefs(): Uint32Array {
    return this.index.postings('', ['']);
  }

  private removeSeries(ref: number): void {
    const refStripe = this.stripes[ref & this.stripeMask];
    const series = refStripe?.byRef.get(ref);
    if (refStripe === undefined || series === undefined) return;
    refStripe.byRef.delete(ref);
    series.owner = undefined;
    if (series.labels.seriesHint === series) series.labels.seriesHint = undefined;
    const hashStripe = this.hashStripe(series.labels);
    const hash = series.labels.lookupHash();
    const list = hashStripe.byHash.get(hash) ?? [];
    const kept = list.filter((s) => s !== series);
    if (kept.length === 0) hashStripe.byHash.delete(hash);
    else hashStripe.byHash.set(hash, kept);
    this.numSeries--;
    this.metrics.series.dec();
    this.metrics.seriesRemoved.inc();
  }

  private hashStripe(labels: Labels): Stripe {
    return this.stripeAt(labels.lookupHash());
  }

  /** The stripe of a ref or label hash, made if missing. */
  private stripeAt(key: number): Stripe {
    const i = key & this.stripeMask;
    return (this.stripes[i] ??= new Stripe());
  }
}

function checkWindow(ms: number): number {
  if (!Number.isSafeInteger(ms) || ms < 0)
    throw new RangeError(
      `out-of-order time window must be a non-negative integer of ms, got ${ms}`,
    );
  return ms;
}
