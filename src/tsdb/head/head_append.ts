// Appending to the head (Prometheus headAppender, tsdb/head_append.go). Samples are checked
// when appended, against the head as it is and this appender's own earlier samples, and
// kept in typed arrays until commit. Commit checks them again (another appender may have
// committed meanwhile), logs new series then samples to the WAL, and only then applies
// them. Rollback simply forgets them: series created by the appender are not in the head
// until commit, so a rollback leaves no series, no postings and no WAL records behind.
import type { Labels } from '../../model/index.js';
import { SampleBatch, encodeSamples, encodeSeries, type RefSeries } from '../record/index.js';
import {
  DuplicateSampleForTimestampError,
  OutOfBoundsError,
  OutOfOrderSampleError,
  type SampleRejectedError,
} from './errors.js';
import { EMPTY_CHUNK_MAX_TIME } from '../chunkenc/index.js';
import type { Head } from './head.js';
import { FloatBits, HI, LO } from './float_words.js';
import type { MemSeries } from './mem_series.js';

/** What a commit did. */
export interface CommitResult {
  /** Samples now in the head. */
  readonly appended: number;
  /**
   * Samples dropped because another appender committed newer samples for their series
   * between append and commit (Prometheus counts these and drops them the same way).
   */
  readonly dropped: number;
}

/** A series this appender created; it enters the head at commit. */
interface PendingSeries {
  readonly ref: number;
  readonly labels: Labels;
}

export class HeadAppender {
  private readonly batch = new SampleBatch();
  private readonly pending = new Map<number, PendingSeries>();
  private readonly pendingByHash = new Map<bigint, PendingSeries[]>();
  /** Index in `batch` of each series' newest sample appended here. */
  private readonly lastIndex = new Map<number, number>();
  private readonly bits = new FloatBits();
  private minValidTime: number | undefined;
  private done = false;

  /** @internal Use Head.appender(). */
  constructor(private readonly head: Head) {}

  /**
   * Appends a sample to the series given by labels or by a ref from an earlier append, and
   * returns the series ref. Throws a SampleRejectedError subclass (and records nothing) if
   * the head refuses the sample; an identical duplicate of the newest sample is accepted
   * and ignored.
   */
  append(target: Labels | number, t: number, v: number): number {
    this.checkOpen('append');
    if (!Number.isSafeInteger(t))
      throw new RangeError(`sample timestamp must be a safe integer of ms, got ${t}`);
    const ref = typeof target === 'number' ? this.resolveRef(target) : this.refFor(target);
    // Prometheus fixes the window when the appender is created; for an empty head that is
    // on its first sample (initAppender).
    this.minValidTime ??= this.head.appendableMinValidTime(t);
    this.bits.split(v);
    const { hi, lo } = this.bits;

    const last = this.lastIndex.get(ref);
    let newestT: number;
    let newestHi: number;
    let newestLo: number;
    if (last !== undefined) {
      newestT = this.batch.timestamps[last] as number;
      newestHi = this.batch.valueWords[2 * last + HI] as number;
      newestLo = this.batch.valueWords[2 * last + LO] as number;
    } else {
      const series = this.head.seriesByRef(ref);
      newestT = series === undefined ? EMPTY_CHUNK_MAX_TIME : series.maxTime();
      newestHi = series?.lastValueHi ?? 0;
      newestLo = series?.lastValueLo ?? 0;
    }

    if (t >= this.minValidTime) {
      if (t > newestT) {
        this.lastIndex.set(ref, this.batch.length);
        this.batch.pushBits(ref, t, hi, lo);
        return ref;
      }
      if (t === newestT) {
        if (hi === newestHi && lo === newestLo) return ref;
        throw this.reject(
          new DuplicateSampleForTimestampError(t, this.bits.join(newestHi, newestLo), v),
        );
      }
      throw this.reject(new OutOfOrderSampleError(t, newestT));
    }
    throw this.reject(new OutOfBoundsError(t, this.minValidTime));
  }

  /** Number of samples waiting for commit. */
  pendingSamples(): number {
    return this.batch.length;
  }

  /**
   * Makes the appended samples durable-in-order (WAL: series records, then samples) and
   * visible. If the WAL write fails nothing is applied and the error is thrown; the
   * appender is finished either way.
   */
  commit(): Promise<CommitResult> {
    this.checkOpen('commit');
    this.done = true;
    return this.head.serializeCommit(() => this.commitNow());
  }

  /** Forgets everything appended; nothing reaches the head or the WAL. */
  rollback(): void {
    this.checkOpen('rollback');
    this.done = true;
    this.clear();
  }

  private async commitNow(): Promise<CommitResult> {
    const head = this.head;
    // Series another appender created with the same labels since: use theirs.
    const remap = new Map<number, MemSeries>();
    const create: PendingSeries[] = [];
    for (const p of this.pending.values()) {
      const existing = head.seriesByLabels(p.labels);
      if (existing !== undefined) remap.set(p.ref, existing);
      else create.push(p);
    }
    const creating = new Set(create.map((p) => p.ref));

    // Re-check order against the head as it is now; keep only what still goes in.
    const accepted = new SampleBatch(Math.max(1, this.batch.length));
    const newest = new Map<number, number>();
    let dropped = 0;
    const { refs, timestamps, valueWords } = this.batch;
    for (let i = 0; i < this.batch.length; i++) {
      const appendedRef = refs[i] as number;
      const series = remap.get(appendedRef) ?? head.seriesByRef(appendedRef);
      const ref = series?.ref ?? appendedRef;
      if (series === undefined && !creating.has(ref)) {
        // Removed by garbage collection since: its samples are before the head's window.
        dropped++;
        continue;
      }
      const t = timestamps[i] as number;
      if (t < head.minValidTime()) {
        // The head was truncated past it since append.
        dropped++;
        continue;
      }
      const newestT = newest.get(ref) ?? series?.maxTime() ?? EMPTY_CHUNK_MAX_TIME;
      if (t <= newestT) {
        dropped++;
        continue;
      }
      newest.set(ref, t);
      accepted.pushBits(ref, t, valueWords[2 * i + HI] as number, valueWords[2 * i + LO] as number);
    }
    if (dropped > 0) {
      head.metrics.rejectedSamples.inc({ reason: 'sample_out_of_order' }, dropped);
      head.logger.warn('dropped samples at commit: their series moved on since append', {
        dropped,
      });
    }
    const used = create.filter((p) => newest.has(p.ref));

    if (head.wal !== undefined) {
      const records: Uint8Array[] = [];
      if (used.length > 0) {
        const series: RefSeries[] = used.map((p) => ({ ref: p.ref, labels: p.labels }));
        records.push(encodeSeries(series));
      }
      if (accepted.length > 0) records.push(encodeSamples(accepted));
      if (records.length > 0) await head.wal.log(...records);
    }

    for (const p of used) head.insertSeries(p.ref, p.labels);
    applyBatch(head, accepted, this.bits);
    this.clear();
    return { appended: accepted.length, dropped };
  }

  private refFor(labels: Labels): number {
    const existing = this.head.seriesByLabels(labels);
    if (existing !== undefined) return existing.ref;
    const hash = labels.hash();
    const candidates = this.pendingByHash.get(hash);
    const found = candidates?.find((p) => p.labels.equals(labels));
    if (found !== undefined) return found.ref;
    if (labels.isEmpty()) throw new RangeError('cannot append to a series with an empty label set');
    const p: PendingSeries = { ref: this.head.allocateRef(), labels };
    this.pending.set(p.ref, p);
    if (candidates === undefined) this.pendingByHash.set(hash, [p]);
    else candidates.push(p);
    return p.ref;
  }

  private resolveRef(ref: number): number {
    if (this.head.seriesByRef(ref) === undefined && !this.pending.has(ref))
      throw new RangeError(`unknown series ref ${ref}: append by labels first`);
    return ref;
  }

  private reject(err: SampleRejectedError): SampleRejectedError {
    this.head.metrics.rejectedSamples.inc({ reason: err.code });
    return err;
  }

  private checkOpen(op: string): void {
    if (this.done)
      throw new Error(`cannot ${op}: the appender was already committed or rolled back`);
  }

  private clear(): void {
    this.batch.clear();
    this.pending.clear();
    this.pendingByHash.clear();
    this.lastIndex.clear();
  }
}

/**
 * Applies committed (or replayed) samples to their series, in order; samples not after
 * their series' newest are skipped. Returns how many were applied.
 */
export function applyBatch(
  head: Head,
  batch: SampleBatch,
  bits: FloatBits,
  minT = -Infinity,
): number {
  const { refs, timestamps, valueWords } = batch;
  let mint = Infinity;
  let maxt = -Infinity;
  let applied = 0;
  let cuts = 0;
  for (let i = 0; i < batch.length; i++) {
    const t = timestamps[i] as number;
    if (t < minT) continue;
    const series = head.seriesByRef(refs[i] as number);
    if (series === undefined) continue;
    const hi = valueWords[2 * i + HI] as number;
    const lo = valueWords[2 * i + LO] as number;
    const outcome = series.append(
      t,
      bits.join(hi, lo),
      hi,
      lo,
      head.cutOptions,
      head.appendScratch,
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
