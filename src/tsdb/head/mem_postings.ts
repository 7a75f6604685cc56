// The head's label index (Prometheus MemPostings): label name → value → ascending series
// refs, plus the all-series list under the empty name and value. Refs are appended in
// creation order, which is almost always ascending; the rare out-of-order insert (a series
// created by one appender committed after a younger one) is placed by binary search.
import { compareGoStrings } from '../../model/index.js';
import type { Labels } from '../../model/index.js';
import { ALL_POSTINGS_NAME, ALL_POSTINGS_VALUE, mergePostings } from '../index/index.js';

/** A growable ascending list of refs in a typed array. */
class RefList {
  refs = new Uint32Array(4);
  length = 0;

  insert(ref: number): void {
    if (this.length === this.refs.length) {
      const grown = new Uint32Array(this.refs.length * 2);
      grown.set(this.refs);
      this.refs = grown;
    }
    let at = this.length;
    if (at > 0 && (this.refs[at - 1] as number) > ref) at = this.lowerBound(ref);
    this.refs.copyWithin(at + 1, at, this.length);
    this.refs[at] = ref;
    this.length++;
  }

  remove(dead: ReadonlySet<number>): void {
    let out = 0;
    for (let i = 0; i < this.length; i++) {
      const r = this.refs[i] as number;
      if (!dead.has(r)) this.refs[out++] = r;
    }
    this.length = out;
  }

  view(): Uint32Array {
    return this.refs.subarray(0, this.length);
  }

  private lowerBound(ref: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.refs[mid] as number) < ref) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class MemPostings {
  private readonly byName = new Map<string, Map<string, RefList>>();

  /** Indexes series `ref` under each of its labels and under the all-series key. */
  add(ref: number, labels: Labels): void {
    if (!Number.isInteger(ref) || ref < 0 || ref > 0xffffffff)
      throw new RangeError(`series ref ${ref} does not fit a uint32 postings list`);
    this.addPair(ALL_POSTINGS_NAME, ALL_POSTINGS_VALUE, ref);
    labels.forEach((name, value) => this.addPair(name, value, ref));
  }

  /** Removes the refs in `dead` from every list the given label sets put them in. */
  delete(dead: ReadonlySet<number>, labelSets: Iterable<Labels>): void {
    const touched = new Map<string, Set<string>>([
      [ALL_POSTINGS_NAME, new Set([ALL_POSTINGS_VALUE])],
    ]);
    for (const labels of labelSets) {
      labels.forEach((name, value) => {
        let values = touched.get(name);
        if (values === undefined) touched.set(name, (values = new Set()));
        values.add(value);
      });
    }
    for (const [name, values] of touched) {
      const byValue = this.byName.get(name);
      if (byValue === undefined) continue;
      for (const value of values) {
        const list = byValue.get(value);
        if (list === undefined) continue;
        list.remove(dead);
        if (list.length === 0) byValue.delete(value);
      }
      if (byValue.size === 0) this.byName.delete(name);
    }
  }

  /** Ascending refs of the series with label `name` set to any of `values` (a fresh array). */
  postings(name: string, values: readonly string[]): Uint32Array {
    const byValue = this.byName.get(name);
    if (byValue === undefined) return new Uint32Array(0);
    const lists: Uint32Array[] = [];
    for (const value of values) {
      const list = byValue.get(value);
      if (list !== undefined) lists.push(list.view());
    }
    if (lists.length === 1) return (lists[0] as Uint32Array).slice();
    return mergePostings(...lists);
  }

  /** Values of label `name`, sorted (Go string order). */
  labelValues(name: string): string[] {
    const byValue = this.byName.get(name);
    if (byValue === undefined) return [];
    return [...byValue.keys()].sort(compareGoStrings);
  }

  /** Label names in use, sorted, without the all-series key. */
  labelNames(): string[] {
    return [...this.byName.keys()].filter((n) => n !== ALL_POSTINGS_NAME).sort(compareGoStrings);
  }

  private addPair(name: string, value: string, ref: number): void {
    let byValue = this.byName.get(name);
    if (byValue === undefined) this.byName.set(name, (byValue = new Map<string, RefList>()));
    let list = byValue.get(value);
    if (list === undefined) byValue.set(value, (list = new RefList()));
    list.insert(ref);
  }
}
