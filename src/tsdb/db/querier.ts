// Reads a tenant's database as one: the blocks overlapping the queried range and the head,
// merged per series (Prometheus's mergeGenericQuerier over block queriers and the range
// head). Series come out sorted by labels; a series present in several sources gets one
// iterator that merges their samples in time order and keeps one sample per timestamp.
import { compareGoStrings, Labels, type Matcher } from '../../model/index.js';
import {
  MergedSampleIterator,
  type BlockReader,
  type SeriesSampleIterator,
} from '../block/index.js';
import type { Head } from '../head/index.js';
import { postingsForMatchers } from '../index/index.js';

/** One series of a query over the whole database. */
export interface DBSeries {
  readonly labels: Labels;
  /** A fresh iterator over the series' samples in the queried range, time-ordered, deduped. */
  iterator(): SeriesSampleIterator;
}

interface SourceSeries {
  readonly labels: Labels;
  /** Position of the source: blocks in time order, then the head. Ties keep the lowest. */
  readonly source: number;
  iterator(): SeriesSampleIterator;
}

/**
 * A read view over fixed blocks and the head for the inclusive range [mint, maxt]. It does
 * not pin the blocks: a block deleted by retention while a query runs fails that query.
 */
export class DBQuerier {
  private readonly blocks: readonly BlockReader[];
  /**
   * Where the head's in-order data starts for this query (past maxt: none), undefined when
   * the head is not queried at all.
   */
  private readonly headMint: number | undefined;

  constructor(
    blocks: readonly BlockReader[],
    private readonly head: Head,
    readonly mint: number,
    readonly maxt: number,
  ) {
    if (mint > maxt) throw new RangeError(`querier range is empty: mint ${mint} > maxt ${maxt}`);
    // Block ranges are half-open [minTime, maxTime); the query range is inclusive.
    this.blocks = [...blocks]
      .filter((b) => b.meta.minTime <= maxt && b.meta.maxTime > mint)
      .sort((a, b) => a.meta.minTime - b.meta.minTime);
    // After a cut the head may still hold the chunk spanning the block boundary; like
    // Prometheus, the head answers only from its min time on (the merge would dedupe anyway).
    // Its out-of-order samples may be older than that and are read over the whole range.
    const headMin = head.minTime();
    const inOrder = !head.isEmpty() && maxt >= headMin;
    const outOfOrder = head.oooMaxTime() >= mint && head.oooMinTime() <= maxt;
    this.headMint = inOrder ? Math.max(mint, headMin) : outOfOrder ? maxt + 1 : undefined;
  }

  /** Series matching every matcher with samples in range, sorted by labels. */
  async select(matchers: readonly Matcher[]): Promise<DBSeries[]> {
    const all: SourceSeries[] = [];
    for (let i = 0; i < this.blocks.length; i++) {
      const block = this.blocks[i] as BlockReader;
      for await (const s of block.select(matchers, this.mint, this.maxt)) {
        all.push({ labels: s.labels, source: i, iterator: () => s.iterator() });
      }
    }
    if (this.headMint !== undefined) {
      const source = this.blocks.length;
      const opts = { inOrderMint: this.headMint };
      for (const s of await this.head.select(matchers, this.mint, this.maxt, opts)) {
        all.push({ labels: s.labels, source, iterator: () => s.iterator() });
      }
    }
    // Stable sort: equal label sets stay in source order.
    all.sort((a, b) => Labels.compare(a.labels, b.labels) || a.source - b.source);
    const out: DBSeries[] = [];
    for (let i = 0; i < all.length;) {
      const first = all[i] as SourceSeries;
      let j = i + 1;
      while (j < all.length && Labels.compare((all[j] as SourceSeries).labels, first.labels) === 0)
        j++;
      const group = all.slice(i, j);
      out.push(
        group.length === 1
          ? { labels: first.labels, iterator: () => first.iterator() }
          : {
              labels: first.labels,
              iterator: () => new MergedSampleIterator(group.map((s) => s.iterator())),
            },
      );
      i = j;
    }
    return out;
  }

  /** Label names of the series matching `matchers` (all series without), sorted. */
  async labelNames(matchers: readonly Matcher[] = []): Promise<string[]> {
    const names = new Set<string>();
    for (const b of this.blocks) for (const n of await b.labelNames(matchers)) names.add(n);
    if (this.headMint !== undefined) {
      if (matchers.length === 0) for (const n of await this.head.labelNames()) names.add(n);
      else for (const l of await this.headLabels(matchers)) l.forEach((n) => names.add(n));
    }
    return [...names].sort(compareGoStrings);
  }

  /** Values of label `name` among the series matching `matchers` (all without), sorted. */
  async labelValues(name: string, matchers: readonly Matcher[] = []): Promise<string[]> {
    const values = new Set<string>();
    for (const b of this.blocks) for (const v of await b.labelValues(name, matchers)) values.add(v);
    if (this.headMint !== undefined) {
      if (matchers.length === 0) for (const v of await this.head.labelValues(name)) values.add(v);
      else
        for (const l of await this.headLabels(matchers)) if (l.has(name)) values.add(l.get(name));
    }
    return [...values].sort(compareGoStrings);
  }

  private async headLabels(matchers: readonly Matcher[]): Promise<Labels[]> {
    const out: Labels[] = [];
    for (const ref of await postingsForMatchers(this.head, matchers)) {
      const s = this.head.seriesByRef(ref);
      if (s !== undefined) out.push(s.labels);
    }
    return out;
  }
}
