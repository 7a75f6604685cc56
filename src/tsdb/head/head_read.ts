// Reading the head (Prometheus head_read.go): the series behind a postings list with the
// chunks overlapping a time range, and an iterator over their samples within the range.
// The open chunk is copied at select time, so a reader sees a consistent snapshot while
// appends continue; completed chunks never change and are shared.
import { Labels } from '../../model/index.js';
import { ValueType, XorIterator, type FloatSample } from '../chunkenc/index.js';
import type { MemSeries } from './mem_series.js';

/** A selected series: its ref, labels and samples in the selected range. */
export interface HeadSeries {
  readonly ref: number;
  readonly labels: Labels;
  /** A fresh iterator over the series' samples in [mint, maxt]. */
  iterator(): HeadSampleIterator;
}

/**
 * Walks samples across a series' chunks, limited to [mint, maxt]. Same protocol as a
 * ChunkIterator: `next()`/`seek()` return ValueType.None at the end or on error (`err()`).
 */
export class HeadSampleIterator {
  private readonly it = new XorIterator(new Uint8Array([0, 0]));
  private chunk = -1;
  private exhausted = false;

  constructor(
    private readonly chunks: readonly Uint8Array[],
    private readonly mint: number,
    private readonly maxt: number,
  ) {}

  next(): ValueType {
    if (this.exhausted) return ValueType.None;
    for (;;) {
      if (this.chunk >= 0 && this.it.next() !== ValueType.None) {
        const t = this.it.atT();
        if (t < this.mint) continue;
        if (t > this.maxt) return this.finish();
        return ValueType.Float;
      }
      if (this.chunk >= 0 && this.it.err() !== null) return this.finish();
      this.chunk++;
      const bytes = this.chunks[this.chunk];
      if (bytes === undefined) return this.finish();
      this.it.reset(bytes);
    }
  }

  /** Advances to the first sample at or after t (never backwards). */
  seek(t: number): ValueType {
    if (this.exhausted) return ValueType.None;
    if (this.chunk >= 0 && this.it.atT() >= t && this.it.err() === null) return ValueType.Float;
    while (this.next() !== ValueType.None) {
      if (this.it.atT() >= t) return ValueType.Float;
    }
    return ValueType.None;
  }

  atT(): number {
    return this.it.atT();
  }

  atF(): number {
    return this.it.atF();
  }

  at(): FloatSample {
    return this.it.at();
  }

  err(): Error | null {
    return this.chunk >= 0 && this.chunk < this.chunks.length ? this.it.err() : null;
  }

  private finish(): ValueType {
    this.exhausted = true;
    return ValueType.None;
  }
}

/** The chunk bytes of `series` overlapping [mint, maxt], oldest first. */
export function chunksInRange(series: MemSeries, mint: number, maxt: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const c of series.completed) {
    if (c.maxTime >= mint && c.minTime <= maxt) out.push(c.chunk.bytes());
  }
  const open = series.openChunk();
  if (open !== null && open.maxTime >= mint && open.minTime <= maxt) {
    out.push(open.chunk.bytes().slice());
  }
  return out;
}

/** The series of `refs` that have samples in [mint, maxt], sorted by labels. */
export function selectSeries(
  refs: Uint32Array,
  lookup: (ref: number) => MemSeries | undefined,
  mint: number,
  maxt: number,
): HeadSeries[] {
  const out: HeadSeries[] = [];
  for (const ref of refs) {
    const series = lookup(ref);
    if (series === undefined) continue;
    const chunks = chunksInRange(series, mint, maxt);
    if (chunks.length === 0) continue;
    out.push({
      ref,
      labels: series.labels,
      iterator: () => new HeadSampleIterator(chunks, mint, maxt),
    });
  }
  out.sort((a, b) => Labels.compare(a.labels, b.labels));
  return out;
}
