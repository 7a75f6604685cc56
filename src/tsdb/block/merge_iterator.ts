// Merges the sample iterators of one series coming from several sources (blocks and the
// head) into one time-ordered stream, as Prometheus's chainSampleIterator does: at equal
// timestamps one sample is kept, the one from the earliest source in the list (blocks in
// time order come before the head). Sources are few, so a linear scan for the smallest head
// beats a heap and allocates nothing per sample.
import { ValueType } from '../chunkenc/index.js';
import type { SeriesSampleIterator } from './series_set.js';

export class MergedSampleIterator implements SeriesSampleIterator {
  /** Whether source i has a current sample (its head), after it was first advanced. */
  private readonly live: boolean[];
  private started = false;
  private current = -1;
  private lastT = 0;
  private error: Error | null = null;

  constructor(private readonly sources: readonly SeriesSampleIterator[]) {
    this.live = sources.map(() => false);
  }

  next(): ValueType {
    if (this.error !== null) return ValueType.None;
    if (!this.started) {
      this.started = true;
      for (let i = 0; i < this.sources.length; i++) this.live[i] = this.advance(i);
    } else if (this.current >= 0) {
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
