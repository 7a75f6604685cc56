// Appending to the head (Prometheus headAppender, tsdb/head_append.go). Samples are checked
// when appended, against the head as it is and this appender's own earlier samples, and
// kept in typed arrays until commit, each with its series object so that no sample is
// looked up by ref twice. Commit checks them again when another commit (or a truncation)
// changed the head meanwhile, logs new series then in-order samples to the WAL and
// out-of-order samples to the WBL, and only then applies them. Rollback simply forgets
// them: series created by the appender are not in the head until commit, so a rollback
// leaves no series, no postings and no log records behind.
import type { Labels } from '../../model/index.js';
import { EncBuf } from '../encoding/index.js';
import { SampleBatch, encodeSamples, encodeSeries, type RefSeries } from '../record/index.js';
import {
  DuplicateSampleForTimestampError,
  OutOfBoundsError,
  OutOfOrderSampleError,
  TooOldSampleError,
  type SampleRejectedError,
} from './errors.js';
import type { Head } from './head.js';
import { HI, LO, type FloatBits } from './float_words.js';
import { MemSeries } from './mem_series.js';
import { applyOOO, commitSlowPath, type Accepted } from './head_commit.js';

/** What a commit did. */
export interface CommitResult {
  /** Samples now in the head (in-order and out-of-order). */
  readonly appended: number;
  /**
   * Samples dropped because another appender committed samples for their series between
   * append and commit, or the head was truncated past them (Prometheus drops them the same
   * way, counting them).
   */
  readonly dropped: number;
}

/** @internal An appender's in-order samples and the series of each, pooled by the head. */
export interface AppendBuffer {
  readonly batch: SampleBatch;
  /** Entries past batch.length are undefined (cleared so that no dead series is kept). */
  readonly series: (MemSeries | undefined)[];
}

/** Finished appenders' buffers the head keeps for reuse. */
const MAX_POOLED_BUFFERS = 8;

/** @internal Out-of-order samples an appender holds, with their series. */
export interface PendingOOO {
  readonly batch: SampleBatch;
  readonly series: MemSeries[];
  /** Per series, timestamp → index in `batch` (duplicate checks within the appender). */
  readonly byTime: Map<MemSeries, Map<number, number>>;
}

export class HeadAppender {
  private readonly id: number;
  /** The head's state version when this appender was created (see Head.stateVersion). */
  private readonly createdAt: number;
  /** The head's removal version then (see Head.removalVersion). */
  private readonly removalsAt: number;
  private readonly buffer: AppendBuffer;
  private readonly batch: SampleBatch;
  /** The series of each sample in `batch`. */
  private readonly seriesOf: (MemSeries | undefined)[];
  /** Series this appender created; they enter the head at commit. */
  private readonly pendingByRef = new Map<number, MemSeries>();
  private readonly pendingByHash = new Map<number, MemSeries[]>();
  /**
   * Newest sample index per series whose `appendId` stamp another open appender holds
   * (two appenders writing one series at once): rare, so a map is fine there.
   */
  private contended: Map<MemSeries, number> | undefined;
  private ooo: PendingOOO | undefined;
  /** The head's (AppendScratch.bits): only used within one synchronous append call. */
  private readonly bits: FloatBits;
  private minValidTime: number | undefined;
  /** Out-of-order samples at or after this are accepted (head max time − window). */
  private oooMinValidTime = 0;
  private oooWindow = 0;
  private done = false;

  /** @internal Use Head.appender(). */
  constructor(private readonly head: Head) {
    this.id = head.nextAppenderId();
    this.createdAt = head.stateVersion();
    this.removalsAt = head.removalVersion();
    this.bits = head.appendScratch.bits;
    this.buffer = head.appendBuffers.pop() ?? { batch: new SampleBatch(), series: [] };
    this.batch = this.buffer.batch;
    this.seriesOf = this.buffer.series;
  }

  /**
   * Appends a sample to the series given by labels or by a ref from an earlier append, and
   * returns the series ref. Throws a SampleRejectedError subclass (and records nothing) if
   * the head refuses the sample; an identical duplicate of a sample the series holds is
   * accepted and ignored.
   */
  append(target: Labels | number, t: number, v: number): number {
    if (this.done) this.checkOpen('append');
    if (!Number.isSafeInteger(t))
      throw new RangeError(`sample timestamp must be a safe integer of ms, got ${t}`);
    const series = typeof target === 'number' ? this.seriesForRef(target) : this.seriesFor(target);
    // Prometheus fixes the window when the appender is created; for an empty head that is
    // on its first sample (initAppender).
    if (this.minValidTime === undefined) this.initWindow(t);
    const minValidTime = this.minValidTime as number;
    const bits = this.bits;
    bits.split(v);
    const hi = bits.hi;
    const lo = bits.lo;

    let newestT: number;
    let newestHi: number;
    let newestLo: number;
    let last = -1;
    if (series.appendId === this.id) last = series.appendIndex;
    else if (this.contended !== undefined) last = this.contended.get(series) ?? -1;
    if (last >= 0) {
      newestT = this.batch.timestamps[last] as number;
      newestHi = this.batch.valueWords[2 * last + HI] as number;
      newestLo = this.batch.valueWords[2 * last + LO] as number;
    } else {
      newestT = series.maxTime();
      newestHi = series.lastValueHi;
      newestLo = series.lastValueLo;
    }

    if (t >= minValidTime) {
      if (t > newestT) {
        const i = this.batch.length;
        this.batch.pushBits(series.ref, t, hi, lo);
        this.seriesOf[i] = series;
        if (series.appendId === this.id || series.appendId === 0) {
          series.appendId = this.id;
          series.appendIndex = i;
        } else {
          (this.contended ??= new Map()).set(series, i);
        }
        return series.ref;
      }
      if (t === newestT) {
        if (hi === newestHi && lo === newestLo) return series.ref;
        throw this.reject(
          new DuplicateSampleForTimestampError(t, bits.join(newestHi, newestLo), v),
        );
      }
    }
    return this.appendOutOfOrder(series, t, v, newestT, minValidTime);
  }

  /** Number of samples waiting for commit. */
  pendingSamples(): number {
    return this.batch.length + (this.ooo?.batch.length ?? 0);
  }

  /**
   * Makes the appended samples durable-in-order (WAL: series records, then samples; WBL:
   * out-of-order samples) and visible. If a log write fails nothing is applied and the
   * error is thrown; the appender is finished either way.
   */
  commit(): Promise<CommitResult> {
    this.checkOpen('commit');
    this.done = true;
    return this.head.serializeCommit(async () => {
      try {
        return await this.commitNow();
      } finally {
        this.clear();
      }
    });
  }

  /** Forgets everything appended; nothing reaches the head or the logs. */
  rollback(): void {
    this.checkOpen('rollback');
    this.done = true;
    this.clear();
  }

  /** A sample that cannot go in order: the out-of-order window, or the error Prometheus gives. */
  private appendOutOfOrder(
    series: MemSeries,
    t: number,
    v: number,
    newestT: number,
    minValidTime: number,
  ): number {
    if (this.oooWindow > 0 && t >= this.oooMinValidTime) {
      const bits = this.bits;
      const { hi, lo } = bits;
      const ooo: PendingOOO = (this.ooo ??= {
        batch: new SampleBatch(16),
        series: [],
        byTime: new Map(),
      });
      let times = ooo.byTime.get(series);
      const pendingAt = times?.get(t);
      let existing: { hi: number; lo: number } | undefined;
      if (pendingAt !== undefined) {
        const w = ooo.batch.valueWords;
        existing = { hi: w[2 * pendingAt + HI] as number, lo: w[2 * pendingAt + LO] as number };
      } else if (series.findSample(t, this.head.appendScratch)) {
        existing = this.head.appendScratch.found;
      }
      if (existing !== undefined) {
        if (existing.hi === hi && existing.lo === lo) return series.ref;
        throw this.reject(
          new DuplicateSampleForTimestampError(t, bits.join(existing.hi, existing.lo), v),
        );
      }
      if (times === undefined) {
        times = new Map();
        ooo.byTime.set(series, times);
      }
      times.set(t, ooo.batch.length);
      ooo.batch.pushBits(series.ref, t, hi, lo);
      ooo.series.push(series);
      return series.ref;
    }
    if (this.oooWindow > 0) throw this.reject(new TooOldSampleError(t, this.oooMinValidTime));
    if (t < minValidTime) throw this.reject(new OutOfBoundsError(t, minValidTime));
    throw this.reject(new OutOfOrderSampleError(t, newestT));
  }

  private initWindow(firstT: number): void {
    const head = this.head;
    this.minValidTime = head.appendableMinValidTime(firstT);
    this.oooWindow = head.outOfOrderTimeWindow();
    this.oooMinValidTime = (head.isEmpty() ? firstT : head.maxTime()) - this.oooWindow;
  }

  private async commitNow(): Promise<CommitResult> {
    const head = this.head;
    let accepted: Accepted;
    if (this.ooo === undefined && (head.stateVersion() === this.createdAt || this.stillInOrder())) {
      // Nothing changed the head since this appender was created, or only other commits
      // that left every sample in order: it all goes in as appended.
      const create: MemSeries[] = [];
      for (const s of this.pendingByRef.values()) if (s.appendId === this.id) create.push(s);
      accepted = {
        create,
        inOrder: this.batch,
        inOrderSeries: this.seriesOf as readonly MemSeries[],
        ooo: undefined,
        oooSeries: [],
        dropped: 0,
      };
    } else {
      accepted = commitSlowPath(head, {
        batch: this.batch,
        seriesOf: this.seriesOf as readonly MemSeries[],
        pending: [...this.pendingByRef.values()],
        ooo: this.ooo,
        oooMinValidTime: this.oooWindow > 0 ? this.oooMinValidTime : undefined,
      });
    }
    const { create, inOrder, inOrderSeries, ooo, oooSeries, dropped } = accepted;

    if (head.wal !== undefined) {
      const records: Uint8Array[] = [];
      if (create.length > 0) {
        const series: RefSeries[] = create.map((s) => ({ ref: s.ref, labels: s.labels }));
        records.push(encodeSeries(series));
      }
      // Sized for a typical sample (ref and time deltas of up to 3 bytes each, 8 value bytes)
      // so the record is written without the buffer doubling its way up from 64 bytes.
      if (inOrder.length > 0)
        records.push(encodeSamples(inOrder, new EncBuf(17 + 14 * inOrder.length)));
      if (records.length > 0) await head.wal.log(...records);
    }
    if (ooo !== undefined && ooo.length > 0) {
      const wbl = await head.ensureWBL();
      if (wbl !== undefined) await wbl.log(encodeSamples(ooo));
    }

    for (const s of create) head.insertMemSeries(s);
    // Series stamps are released while applying (one pass over the series, not two).
    const appendedInOrder = applyInOrder(head, inOrder, inOrderSeries, this.id);
    const appendedOOO = ooo === undefined ? 0 : applyOOO(head, ooo, oooSeries);
    return { appended: appendedInOrder + appendedOOO, dropped };
  }

  /**
   * Whether the full re-check (commitSlowPath) would take every sample as appended, when only
   * other commits changed the head since this appender was created: no series left and the
   * minimum valid time stayed (no truncation), no series this appender creates was created
   * meanwhile, and every sample is still after its series' newest. A series' samples in the
   * batch ascend, so comparing each with the newest before this commit is enough.
   */
  private stillInOrder(): boolean {
    const head = this.head;
    if (head.removalVersion() !== this.removalsAt) return false;
    for (const p of this.pendingByRef.values())
      if (head.seriesByLabels(p.labels) !== undefined) return false;
    const { timestamps } = this.batch;
    const seriesOf = this.seriesOf;
    for (let i = 0; i < this.batch.length; i++)
      if ((timestamps[i] as number) <= (seriesOf[i] as MemSeries).maxTime()) return false;
    return true;
  }

  private seriesFor(labels: Labels): MemSeries {
    const existing = this.head.seriesByLabels(labels);
    if (existing !== undefined) return existing;
    const hash = labels.lookupHash();
    const candidates = this.pendingByHash.get(hash);
    const found = candidates?.find((p) => p.labels.equals(labels));
    if (found !== undefined) return found;
    if (labels.isEmpty()) throw new RangeError('cannot append to a series with an empty label set');
    const p = new MemSeries(this.head.allocateRef(), labels);
    this.pendingByRef.set(p.ref, p);
    if (candidates === undefined) this.pendingByHash.set(hash, [p]);
    else candidates.push(p);
    return p;
  }

  private seriesForRef(ref: number): MemSeries {
    const series = this.head.seriesByRef(ref) ?? this.pendingByRef.get(ref);
    if (series === undefined)
      throw new RangeError(`unknown series ref ${ref}: append by labels first`);
    return series;
  }

  private reject(err: SampleRejectedError): SampleRejectedError {
    const metrics = this.head.metrics;
    metrics.rejectedSamples.inc({ reason: err.code });
    if (err instanceof TooOldSampleError) metrics.tooOldSamples.inc({ type: 'float' });
    else if (err instanceof OutOfOrderSampleError) metrics.outOfOrderSamples.inc({ type: 'float' });
    else if (err instanceof OutOfBoundsError) metrics.outOfBoundSamples.inc({ type: 'float' });
    return err;
  }

  private checkOpen(op: string): void {
    if (this.done)
      throw new Error(`cannot ${op}: the appender was already committed or rolled back`);
  }

  private clear(): void {
    const id = this.id;
    const seriesOf = this.seriesOf;
    for (let i = 0; i < this.batch.length; i++) {
      const s = seriesOf[i] as MemSeries;
      // Already 0 after a fast-path commit; then this loop only forgets the series.
      if (s.appendId === id) s.appendId = 0;
      seriesOf[i] = undefined;
    }
    this.batch.clear();
    const pool = this.head.appendBuffers;
    if (pool.length < MAX_POOLED_BUFFERS && !pool.includes(this.buffer)) pool.push(this.buffer);
    this.pendingByRef.clear();
    this.pendingByHash.clear();
    this.contended = undefined;
    this.ooo = undefined;
  }
}

/**
 * Applies committed in-order samples to their series (given per sample), in order; samples
 * not after their series' newest are skipped. Releases the series stamps of appender
 * `releaseId` on the way. Returns how many were applied.
 */
function applyInOrder(
  head: Head,
  batch: SampleBatch,
  seriesOf: readonly MemSeries[],
  releaseId = -1,
): number {
  const { timestamps, valueWords } = batch;
  const opts = head.cutOptions;
  const scratch = head.appendScratch;
  let mint = Infinity;
  let maxt = -Infinity;
  let applied = 0;
  let cuts = 0;
  const n = batch.length;
  for (let i = 0; i < n; i++) {
    const t = timestamps[i] as number;
    const series = seriesOf[i] as MemSeries;
    if (series.appendId === releaseId) series.appendId = 0;
    const outcome = series.append(
      t,
      valueWords[2 * i + HI] as number,
      valueWords[2 * i + LO] as number,
      opts,
      scratch,
    );
    if (outcome === false) continue;
    if (outcome === 'cut') cuts++;
    applied++;
    if (t < mint) mint = t;
    if (t > maxt) maxt = t;
  }
  if (applied > 0) {
    head.updateMinMaxTime(mint, maxt);
    head.metrics.samplesAppended.inc(applied);
  }
  if (cuts > 0) head.metrics.chunksCreated.inc(cuts);
  return applied;
}

/**
 * Applies replayed WAL samples to their series (looked up by ref), in order; samples
 * before `minT` or not after their series' newest are skipped. Returns how many were applied.
 */
export function applyBatch(head: Head, batch: SampleBatch, minT = -Infinity): number {
  const { refs, timestamps } = batch;
  const n = batch.length;
  const seriesOf: MemSeries[] = [];
  // Replayed records nearly always keep every sample: then the batch is applied as it is,
  // and only a record with samples to leave out is copied (one copy per WAL record, at
  // every restart, was most of the replay's allocation).
  let kept: SampleBatch | undefined;
  for (let i = 0; i < n; i++) {
    const series =
      (timestamps[i] as number) < minT ? undefined : head.seriesByRef(refs[i] as number);
    if (series === undefined) {
      if (kept === undefined) {
        kept = new SampleBatch(Math.max(1, n));
        for (let j = 0; j < i; j++) kept.pushFrom(batch, j);
      }
      continue;
    }
    kept?.pushFrom(batch, i);
    seriesOf.push(series);
  }
  return applyInOrder(head, kept ?? batch, seriesOf);
}
