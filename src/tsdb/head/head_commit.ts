// The parts of a head commit that run only when they must (Prometheus headAppender.Commit):
// re-checking samples when another commit or a truncation changed the head after the
// appender was created, and applying out-of-order samples. The common case (nothing changed,
// no out-of-order sample) never reaches this file.
import { SampleBatch } from '../record/index.js';
import type { Head } from './head.js';
import type { PendingOOO } from './head_append.js';
import { HI, LO } from './float_words.js';
import type { MemSeries } from './mem_series.js';

/** What goes into the logs and the head at commit. */
export interface Accepted {
  /** Series created by the appender that receive samples, to insert (and log) first. */
  readonly create: MemSeries[];
  readonly inOrder: SampleBatch;
  readonly inOrderSeries: readonly MemSeries[];
  readonly ooo: SampleBatch | undefined;
  readonly oooSeries: readonly MemSeries[];
  readonly dropped: number;
}

/** What the appender hands over for a re-check. */
export interface CommitInput {
  readonly batch: SampleBatch;
  readonly seriesOf: readonly MemSeries[];
  readonly pending: readonly MemSeries[];
  readonly ooo: PendingOOO | undefined;
  /** Out-of-order samples at or after this go in; undefined when the window is 0. */
  readonly oooMinValidTime: number | undefined;
}

/**
 * Re-checks an appender's samples against the head as it is now (Prometheus re-runs
 * memSeries.appendable at commit): a series another appender created meanwhile replaces
 * the appender's own; a sample no longer after its series' newest goes out of order if the
 * window allows, else it is dropped; an out-of-order sample whose timestamp the series
 * holds by now is dropped. Drops are counted in the head's metrics and logged.
 */
export function commitSlowPath(head: Head, input: CommitInput): Accepted {
  const remap = new Map<MemSeries, MemSeries>();
  const creating = new Set<MemSeries>();
  for (const p of input.pending) {
    const existing = head.seriesByLabels(p.labels);
    if (existing !== undefined) remap.set(p, existing);
    else creating.add(p);
  }
  const live = (s: MemSeries): boolean => creating.has(s) || head.seriesByRef(s.ref) === s;
  const used = new Set<MemSeries>();
  const drops = { sample_out_of_order: 0, sample_too_old: 0, new_value_for_timestamp: 0 };

  const { batch, seriesOf } = input;
  const inOrder = new SampleBatch(Math.max(1, batch.length));
  const inOrderSeries: MemSeries[] = [];
  const candidates = new SampleBatch(Math.max(1, input.ooo?.batch.length ?? 0));
  const candidateSeries: MemSeries[] = [];
  const newest = new Map<MemSeries, number>();
  const { timestamps, valueWords } = batch;
  for (let i = 0; i < batch.length; i++) {
    const appended = seriesOf[i] as MemSeries;
    const series = remap.get(appended) ?? appended;
    if (!live(series)) {
      // Removed by garbage collection since: its samples are before the head's window.
      drops.sample_out_of_order++;
      continue;
    }
    const t = timestamps[i] as number;
    const hi = valueWords[2 * i + HI] as number;
    const lo = valueWords[2 * i + LO] as number;
    const newestT = newest.get(series) ?? series.maxTime();
    if (t >= head.minValidTime() && t > newestT) {
      newest.set(series, t);
      inOrder.pushBits(series.ref, t, hi, lo);
      inOrderSeries.push(series);
      used.add(series);
    } else if (input.oooMinValidTime !== undefined && t >= input.oooMinValidTime) {
      candidates.pushBits(series.ref, t, hi, lo);
      candidateSeries.push(series);
    } else {
      drops.sample_out_of_order++;
    }
  }
  if (input.ooo !== undefined) {
    const { batch: ob, series: os } = input.ooo;
    for (let i = 0; i < ob.length; i++) {
      const appended = os[i] as MemSeries;
      candidates.pushFrom(ob, i);
      candidateSeries.push(remap.get(appended) ?? appended);
    }
  }

  let ooo: SampleBatch | undefined;
  const oooSeries: MemSeries[] = [];
  if (candidates.length > 0 && input.oooMinValidTime !== undefined) {
    ooo = new SampleBatch(candidates.length);
    // Timestamps (with value bits) each candidate series receives in this commit.
    const taken = new Map<MemSeries, Map<number, number>>();
    for (const s of candidateSeries) taken.set(s, new Map());
    for (let i = 0; i < inOrder.length; i++) {
      const times = taken.get(inOrderSeries[i] as MemSeries);
      times?.set(inOrder.timestamps[i] as number, i);
    }
    const found = head.appendScratch.found;
    for (let i = 0; i < candidates.length; i++) {
      const series = candidateSeries[i] as MemSeries;
      const t = candidates.timestamps[i] as number;
      const hi = candidates.valueWords[2 * i + HI] as number;
      const lo = candidates.valueWords[2 * i + LO] as number;
      if (!live(series)) {
        drops.sample_out_of_order++;
        continue;
      }
      if (t < input.oooMinValidTime) {
        drops.sample_too_old++;
        continue;
      }
      const times = taken.get(series) as Map<number, number>;
      const at = times.get(t);
      let clash: boolean;
      if (at !== undefined) {
        // at >= 0: in-order sample `at`; negative: out-of-order sample -(at + 1).
        const src = at >= 0 ? inOrder : ooo;
        const j = at >= 0 ? at : -(at + 1);
        clash = true;
        found.hi = src.valueWords[2 * j + HI] as number;
        found.lo = src.valueWords[2 * j + LO] as number;
      } else {
        clash = series.findSample(t, head.appendScratch);
      }
      if (clash) {
        // Identical: already there. Otherwise the first value wins, as at append.
        if (found.hi === hi && found.lo === lo) drops.sample_out_of_order++;
        else drops.new_value_for_timestamp++;
        continue;
      }
      times.set(t, -(ooo.length + 1));
      ooo.pushBits(series.ref, t, hi, lo);
      oooSeries.push(series);
      used.add(series);
    }
  }

  let dropped = 0;
  for (const [reason, n] of Object.entries(drops)) {
    if (n === 0) continue;
    dropped += n;
    head.metrics.rejectedSamples.inc({ reason }, n);
  }
  if (dropped > 0)
    head.logger.warn('dropped samples at commit: their series moved on since append', {
      dropped,
      ...drops,
    });
  const create = [...creating].filter((s) => used.has(s));
  return { create, inOrder, inOrderSeries, ooo, oooSeries, dropped };
}

/**
 * Inserts checked out-of-order samples into their series (given per sample). Returns how
 * many were inserted.
 */
export function applyOOO(head: Head, batch: SampleBatch, seriesOf: readonly MemSeries[]): number {
  const { timestamps, valueWords } = batch;
  const nextSeq = (): number => head.nextOOOChunkSeq();
  let mint = Infinity;
  let maxt = -Infinity;
  let cuts = 0;
  for (let i = 0; i < batch.length; i++) {
    const t = timestamps[i] as number;
    const series = seriesOf[i] as MemSeries;
    const hi = valueWords[2 * i + HI] as number;
    const lo = valueWords[2 * i + LO] as number;
    if (series.insertOOO(t, hi, lo, head.oooCapMax, nextSeq)) cuts++;
    if (t < mint) mint = t;
    if (t > maxt) maxt = t;
  }
  const n = batch.length;
  if (n > 0) {
    head.updateOOOMinMaxTime(mint, maxt);
    head.metrics.samplesAppended.inc(n);
    head.metrics.oooSamplesAppended.inc({ type: 'float' }, n);
  }
  if (cuts > 0) head.metrics.chunksCreated.inc(cuts);
  return n;
}

/**
 * Inserts replayed WBL samples (refs already mapped to head series) into the out-of-order
 * data of their series, skipping unknown refs and timestamps the series already holds.
 * Returns how many were inserted.
 */
export function replayOOO(head: Head, batch: SampleBatch): { applied: number; unknown: number } {
  const keep = new SampleBatch(Math.max(1, batch.length));
  const seriesOf: MemSeries[] = [];
  let unknown = 0;
  for (let i = 0; i < batch.length; i++) {
    const series = head.seriesByRef(batch.refs[i] as number);
    if (series === undefined) {
      unknown++;
      continue;
    }
    const t = batch.timestamps[i] as number;
    // Also catches duplicates within the batch: earlier ones are inserted already.
    if (series.findSample(t, head.appendScratch)) continue;
    series.insertOOO(
      t,
      batch.valueWords[2 * i + HI] as number,
      batch.valueWords[2 * i + LO] as number,
      head.oooCapMax,
      () => head.nextOOOChunkSeq(),
    );
    keep.pushFrom(batch, i);
    seriesOf.push(series);
  }
  if (keep.length > 0) {
    let mint = Infinity;
    let maxt = -Infinity;
    for (let i = 0; i < keep.length; i++) {
      const t = keep.timestamps[i] as number;
      if (t < mint) mint = t;
      if (t > maxt) maxt = t;
    }
    head.updateOOOMinMaxTime(mint, maxt);
  }
  return { applied: keep.length, unknown };
}
