// An in-memory Queryable: series held as sorted arrays of float samples. It backs the
// PromQL tests and the conformance runner (`load` blocks) and is the reference the other
// storages are compared with; it applies no ingestion rules at all.
import { compareGoStrings, Labels, type Matcher } from '../model/index.js';
import {
  SAMPLE_FLOAT,
  SAMPLE_NONE,
  type Querier,
  type Queryable,
  type SampleIterator,
  type StorageSeries,
} from './storage.js';

interface StoredSeries {
  readonly labels: Labels;
  readonly ts: number[];
  /**
   * Values in a typed array: V8 canonicalises NaNs stored in plain number arrays, which
   * would turn Prometheus's stale marker (a NaN with a specific payload) into a plain NaN.
   */
  vs: Float64Array;
}

export class MemoryStorage implements Queryable {
  private readonly byKey = new Map<string, StoredSeries>();

  /** Adds a sample; a later sample with the same timestamp replaces the earlier one. */
  add(labels: Labels, t: number, v: number): void {
    const key = labels.toString();
    let s = this.byKey.get(key);
    if (s === undefined) {
      s = { labels, ts: [], vs: new Float64Array(8) };
      this.byKey.set(key, s);
    }
    const n = s.ts.length;
    const i = n === 0 || (s.ts[n - 1] as number) < t ? n : lowerBound(s.ts, t);
    if (i < n && s.ts[i] === t) {
      s.vs[i] = v;
      return;
    }
    if (n === s.vs.length) {
      const grown = new Float64Array(2 * n);
      grown.set(s.vs);
      s.vs = grown;
    }
    s.vs.copyWithin(i + 1, i, n);
    s.vs[i] = v;
    s.ts.splice(i, 0, t);
  }

  /** Removes every series (the conformance scripts' `clear`). */
  clear(): void {
    this.byKey.clear();
  }

  get seriesCount(): number {
    return this.byKey.size;
  }

  querier(mint: number, maxt: number): Promise<Querier> {
    const all = [...this.byKey.values()].sort((a, b) => Labels.compare(a.labels, b.labels));
    return Promise.resolve(new MemoryQuerier(all, mint, maxt));
  }
}

class MemoryQuerier implements Querier {
  constructor(
    private readonly series: readonly StoredSeries[],
    private readonly mint: number,
    private readonly maxt: number,
  ) {}

  private matching(matchers: readonly Matcher[]): StoredSeries[] {
    return this.series.filter((s) => {
      const lo = lowerBound(s.ts, this.mint);
      if (lo >= s.ts.length || (s.ts[lo] as number) > this.maxt) return false;
      return matchers.every((m) => m.matches(s.labels.get(m.name)));
    });
  }

  select(matchers: readonly Matcher[]): Promise<StorageSeries[]> {
    return Promise.resolve(
      this.matching(matchers).map((s) => ({
        labels: s.labels,
        iterator: () => new ArrayIterator(s, this.mint, this.maxt),
      })),
    );
  }

  labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    const names = new Set<string>();
    for (const s of this.matching(matchers)) for (const n of s.labels.names()) names.add(n);
    return Promise.resolve(sortedGo(names));
  }

  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    const values = new Set<string>();
    for (const s of this.matching(matchers)) if (s.labels.has(name)) values.add(s.labels.get(name));
    return Promise.resolve(sortedGo(values));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

class ArrayIterator implements SampleIterator {
  private i: number;
  private readonly end: number;

  constructor(
    private readonly s: StoredSeries,
    mint: number,
    maxt: number,
  ) {
    this.i = lowerBound(s.ts, mint) - 1;
    this.end = upperBound(s.ts, maxt);
  }

  next(): number {
    if (this.i < this.end) this.i++;
    return this.i < this.end ? SAMPLE_FLOAT : SAMPLE_NONE;
  }

  seek(t: number): number {
    if (this.i < 0) this.i = 0;
    while (this.i < this.end && (this.s.ts[this.i] as number) < t) this.i++;
    return this.i < this.end ? SAMPLE_FLOAT : SAMPLE_NONE;
  }

  atT(): number {
    return this.s.ts[this.i] as number;
  }

  atF(): number {
    return this.s.vs[this.i] as number;
  }

  err(): Error | null {
    return null;
  }
}

/** First index with ts[i] >= t. */
function lowerBound(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with ts[i] > t. */
function upperBound(ts: readonly number[], t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ts[mid] as number) <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sortedGo(set: Set<string>): string[] {
  return [...set].sort(compareGoStrings);
}
