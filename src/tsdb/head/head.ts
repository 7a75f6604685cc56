// The head: the in-memory, writable part of the TSDB (Prometheus tsdb/head.go). Series live
// in `stripeSize` shards keyed by label hash and by ref; refs come from a counter and are
// never reused. Samples enter only through an Appender (head_append.ts) whose commit logs
// them to the WAL before they become visible; reads are in head_read.ts, WAL replay in
// head_wal.ts.
import type { Labels, Matcher } from '../../model/index.js';
import { newMetricsRegistry, type Logger, type MetricsRegistry } from '../../runtime/index.js';
import type { ChunkCutOptions, ChunkCutRules } from '../chunkenc/index.js';
import { DEFAULT_SAMPLES_PER_CHUNK } from '../chunkenc/index.js';
import { postingsForMatchers, type PostingsSource } from '../index/index.js';
import type { WAL } from '../wal/index.js';
import { HeadAppender } from './head_append.js';
import { selectSeries, type HeadSeries } from './head_read.js';
import {
  openHead,
  type HeadReplayStats,
  type OpenHeadConfig,
  type OpenHeadDeps,
} from './head_wal.js';
import { MemPostings } from './mem_postings.js';
import { AppendScratch, MemSeries } from './mem_series.js';
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
}

export interface HeadDeps {
  logger: Logger;
  /** Where the head's metrics go; a private registry when absent. */
  metrics?: MetricsRegistry;
  /** The WAL commits are logged to; none means an in-memory head (tests, tools). */
  wal?: WAL;
}

class Stripe {
  readonly byRef = new Map<number, MemSeries>();
  readonly byHash = new Map<bigint, MemSeries[]>();
}

export class Head implements PostingsSource {
  readonly chunkRange: number;
  readonly cutOptions: ChunkCutOptions;
  readonly metrics: HeadMetrics;
  readonly logger: Logger;
  /** @internal Reused by every append to this head. */
  readonly appendScratch = new AppendScratch();
  readonly wal: WAL | undefined;
  private readonly stripes: Stripe[];
  private readonly stripeMask: number;
  private readonly stripeMaskBig: bigint;
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
    this.stripes = Array.from({ length: stripeSize }, () => new Stripe());
    this.stripeMask = stripeSize - 1;
    this.stripeMaskBig = BigInt(stripeSize - 1);
    this.logger = deps.logger;
    this.wal = deps.wal;
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
    const list = this.hashStripe(labels).byHash.get(labels.hash());
    return list?.find((s) => s.labels.equals(labels));
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
    const series = new MemSeries(ref, labels);
    const refStripe = this.stripes[ref & this.stripeMask] as Stripe;
    if (refStripe.byRef.has(ref)) throw new Error(`series ref ${ref} already exists in the head`);
    refStripe.byRef.set(ref, series);
    const hashStripe = this.hashStripe(labels);
    const hash = labels.hash();
    const list = hashStripe.byHash.get(hash);
    if (list === undefined) hashStripe.byHash.set(hash, [series]);
    else list.push(series);
    this.index.add(ref, labels);
    if (ref > this.lastRef) this.lastRef = ref;
    this.numSeries++;
    this.metrics.series.inc();
    this.metrics.seriesCreated.inc();
    return series;
  }

  /** @internal Widens the head's time range after samples were applied. */
  updateMinMaxTime(mint: number, maxt: number): void {
    if (mint < this.minT) this.minT = mint;
    if (maxt > this.maxT) this.maxT = maxt;
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
   */
  async select(matchers: readonly Matcher[], mint: number, maxt: number): Promise<HeadSeries[]> {
    const refs = await postingsForMatchers(this, matchers);
    return selectSeries(refs, (ref) => this.seriesByRef(ref), mint, maxt);
  }

  // ---- garbage collection ----

  /**
   * Drops every chunk that ends before `mint` and every series left without samples, and
   * stops accepting samples before `mint` (Prometheus truncateMemory). The WAL is left
   * alone: see `truncateWAL` in head_wal.ts.
   */
  truncateMemory(mint: number): { removedSeries: number; removedChunks: number } {
    if (mint > this.minValid) this.minValid = mint;
    const dead = new Set<number>();
    const deadLabels: Labels[] = [];
    let removedChunks = 0;
    let actualMin = EMPTY_HEAD_MIN_TIME;
    for (const stripe of this.stripes) {
      for (const series of stripe.byRef.values()) {
        removedChunks += series.truncateBefore(mint);
        const seriesMin = series.minTime();
        if (seriesMin === undefined) {
          dead.add(series.ref);
          deadLabels.push(series.labels);
        } else if (seriesMin < actualMin) actualMin = seriesMin;
      }
    }
    for (const ref of dead) this.removeSeries(ref);
    this.index.delete(dead, deadLabels);
    // Like Prometheus, the head's min time moves to mint (or to its oldest kept sample).
    if (this.maxT !== EMPTY_HEAD_MAX_TIME)
      this.minT = Math.max(mint, actualMin === EMPTY_HEAD_MIN_TIME ? mint : actualMin);
    return { removedSeries: dead.size, removedChunks };
  }

  /** Every series ref in the head, ascending. */
  allRefs(): Uint32Array {
    return this.index.postings('', ['']);
  }

  private removeSeries(ref: number): void {
    const refStripe = this.stripes[ref & this.stripeMask] as Stripe;
    const series = refStripe.byRef.get(ref);
    if (series === undefined) return;
    refStripe.byRef.delete(ref);
    const hashStripe = this.hashStripe(series.labels);
    const hash = series.labels.hash();
    const list = hashStripe.byHash.get(hash) ?? [];
    const kept = list.filter((s) => s !== series);
    if (kept.length === 0) hashStripe.byHash.delete(hash);
    else hashStripe.byHash.set(hash, kept);
    this.numSeries--;
    this.metrics.series.dec();
    this.metrics.seriesRemoved.inc();
  }

  private hashStripe(labels: Labels): Stripe {
    return this.stripes[Number(labels.hash() & this.stripeMaskBig)] as Stripe;
  }
}
