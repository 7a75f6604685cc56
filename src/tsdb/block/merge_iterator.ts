// Merges the sample iterators of one series coming from several sources (blocks and the
// head) into one time-ordered stream, as Prometheus's chainSampleIterator does: at equal
// timestamps one sample is kept, the one from the earliest source in the list (blocks in
// time order come before the head). Sources are few, so a linear scan for the smallest head
// beats a heap and allocates nothing per sample.
import { ValueType } from '../chunkenc/index.js';
import type { SeriesSampleIterator } from './series_set.js';

/**
 * Told of each sample `next()` drops at the timestamp it keeps whose value differs bit-for-bit
 * from the kept one (so a stale marker equals itself but not a number, and 0 differs from -0):
 * the data a vertical compaction loses when replicas diverge. Sources are indexes into the
 * iterator list.
 */
export type DroppedSampleObserver = (
  t: number,
  keptSource: number,
  kept: number,
  droppedSource: number,
  dropped: number,
) => void;

export class MergedSampleIterator implements SeriesSampleIterator {
  /** Whether source i has a current sample (its head), after it was first advanced. */
  private readonly live: boolean[];
  private started = false;
  private current = -1;
  private lastT = 0;
  private error: Error | null = null;
  /** Scratch for comparing NaN payloads (32-bit words of two floats), made on first use. */
  private nanWords: Uint32Array | undefined;

  constructor(
    private readonly sources: readonly SeriesSampleIterator[],
    private readonly onDropped?: DroppedSampleObserver,
  ) {
    this.live = sources.map(() => false);
  }

  next(): ValueType {
    if (this.error !== null) return ValueType.None;
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.sources.length; i++) this.live[i] = this.advance(i);
    } else if (this.current >= 0) {
      if (this.onDropped !== undefined) this.dropObserved(this.onDropped);
      // Drop every source's sample at the timestamp just returned (duplicates included).
      for (let i = 0; i < this.sources.length; i++) {
        const s = this.sources[i] as SeriesSampleIterator;
        while (this.live[i] === true && s.atT() <= this.lastT) this.live[i] = this.advance(i);
      }
    }
    if (this.error !== null) return this.stop();
    return this.pick();
  }

  seek(t: number): ValueType {
    if (this.error !== null) return ValueType.None;
    if (this.started && this.current >= 0 && this.lastT >= t) return ValueType.Float;
    if (this.started && this.current < 0) return ValueType.None;
    this.started = true;
    for (let i = 0; i < this.sources.length; i++) {
      const s = this.sources[i] as SeriesSampleIterator;
      if (this.live[i] === true && s.atT() >= t) continue;
      this.live[i] = s.seek(t) !== ValueType.None;
      if (!this.live[i] && s.err() !== null) this.error = s.err();
    }
    if (this.error !== null) return this.stop();
    return this.pick();
  }

  atT(): number {
    return this.lastT;
  }

  atF(): number {
    return (this.sources[this.current] as SeriesSampleIterator).atF();
  }

  err(): Error | null {
    return this.error;
  }

  private advance(i: number): boolean {
    const s = this.sources[i] as SeriesSampleIterator;
    if (s.next() !== ValueType.None) return true;
    const err = s.err();
    if (err !== null) this.error = err;
    return false;
  }

  /**
   * Reports the other sources' samples at the kept timestamp that differ from the kept one.
   * Only their current samples: a source holds one sample per timestamp, so the drop loop in
   * next() then advances each past it.
   */
  private dropObserved(observe: DroppedSampleObserver): void {
    const keptSource = this.current;
    const kept = (this.sources[keptSource] as SeriesSampleIterator).atF();
    for (let i = 0; i < this.sources.length; i++) {
      if (i === keptSource || this.live[i] !== true) continue;
      const s = this.sources[i] as SeriesSampleIterator;
      if (s.atT() !== this.lastT) continue;
      const v = s.atF();
      if (!this.sameBits(kept, v)) observe(this.lastT, keptSource, kept, i, v);
    }
  }

  private sameBits(a: number, b: number): boolean {
    // === already tells numbers apart except for signed zeros and NaN payloads.
    if (a === b) return a !== 0 || 1 / a === 1 / b;
    if (a === a || b === b) return false;
    this.nanWords ??= new Uint32Array(4);
    const floats = new Float64Array(this.nanWords.buffer);
    floats[0] = a;
    floats[1] = b;
    const w = this.nanWords;
    return w[0] === w[2] && w[1] === w[3];
  }

  /** Makes the source with the smallest timestamp (earliest on ties) current. */
  private pick(): ValueType {
    this.current = -1;
    for (let i = 0; i < this.sources.length; i++) {
      if (this.live[i] !== true) continue;
      const t = (this.sources[i] as SeriesSampleIterator).atT();
      if (this.current < 0 || t < this.lastT) {
        this.current = i;
        this.lastT = t;
      }
    }
    return this.current < 0 ? ValueType.None : ValueType.Float;
  }

  private stop(): ValueType {
    this.current = -1;
    return ValueType.None;
  }
}
