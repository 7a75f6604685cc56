// Samples a vertical compaction drops although they differ from the one it keeps. Replicas of
// a range hold identical samples, and the merge keeps one sample per series and timestamp:
// for identical replicas nothing is lost. When overlapping blocks hold different values at the
// same timestamp (a replica that diverged, a backfill over existing data), the merge still
// keeps one — Prometheus whichever its heap reaches first, Strata the earliest source's in
// the order given — and drops the rest. The merge counts those drops as it goes (the
// MergedSampleIterator's dropped-sample observer), so the caller can report the loss without
// reading the sources a second time.
import type { Labels } from '../../model/index.js';

/** One dropped sample, for a log line. */
export interface SampleConflict {
  labels: string;
  timestamp: number;
  /** The value kept (from `keptBlock`). */
  kept: number;
  keptBlock: string;
  /** The differing value dropped (from `droppedBlock`). */
  dropped: number;
  droppedBlock: string;
}

export interface SampleConflicts {
  /** Samples dropped by the merge whose value differs bit-for-bit from the kept one. */
  samples: number;
  /** Series with at least one such sample. */
  series: number;
  /** The first conflict met (series in label order, then time). */
  first?: SampleConflict;
}

/** Collects the conflicts of one merge; sources are indexes into `blockIds`. */
export class SampleConflictCounter {
  readonly result: SampleConflicts = { samples: 0, series: 0 };
  private lastSeries: Labels | undefined;

  constructor(private readonly blockIds: readonly string[]) {}

  /** One dropped differing sample of `labels` (series arrive in label order). */
  add(
    labels: Labels,
    t: number,
    keptSource: number,
    kept: number,
    droppedSource: number,
    dropped: number,
  ): void {
    const r = this.result;
    r.samples++;
    if (labels !== this.lastSeries) {
      this.lastSeries = labels;
      r.series++;
    }
    r.first ??= {
      labels: labels.toString(),
      timestamp: t,
      kept,
      keptBlock: this.blockIds[keptSource] ?? '',
      dropped,
      droppedBlock: this.blockIds[droppedSource] ?? '',
    };
  }
}
