// Reads a tenant's database as one: the blocks overlapping the queried range and the head,
// merged per series (Prometheus's mergeGenericQuerier over block queriers and the range
// head). Series come out sorted by labels; a series present in several sources gets one
// iterator that merges their samples in time order and keeps one sample per timestamp.
import { compareGoStrings, Labels, type Matcher, type Pause } from '../../model/index.js';
import {
  MergedSampleIterator,
  mergeSeriesChunkSets,
  type BlockReader,
  type SeriesChunks,
  type SeriesSampleIterator,
} from '../block/index.js';
import type { Head } from '../head/index.js';
import { postingsForMatchers } from '../index/index.js';

/** How a chunk select runs: where it pauses, and whether its answer must be sorted. */
export interface ChunkSelectOptions {
  /** Where the head's part lets other work run (a query on a serving event loop). */
  readonly pause?: Pause;
  /** `false`: the head alone in range may answer in postings order (default sorted). */
  readonly sorted?: boolean;
}

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

/** What one read saw: the blocks and how far into the head it reads. */
interface View {
  readonly blocks: readonly BlockReader[];
  /**
   * Where the head's in-order data starts for this query (past maxt: none), undefined when
   * the head is not queried at all.
   */
  readonly headMint: number | undefined;
  /** The head's removal version when the view was taken (see `consistent`). */
  readonly removals: number;
}

/**
 * Reads that collide with head compactions this many times in a row give up: each retry
 * needs another cut during the read, so reaching it means compaction outpaces the read.
 */
const MAX_VIEW_ATTEMPTS = 8;

/**
 * A read view over the blocks and the head for the inclusive range [mint, maxt]. It does
 * not pin the blocks: when a block leaves the database while a read of its index runs
 * (retention deletes it, a compaction replaces it) and the read fails on its closed files,
 * the read is done again over the blocks as they are then. Samples iterated after `select`
 * returned still read the chunks of the blocks it saw.
 *
 * A head compaction may run while a read awaits block I/O: it writes a block, adds it to
 * the database and then truncates the head. A read that took its block list before the
 * cut and reads the head after the truncation would see the cut range in neither (an
 * acknowledged sample missing from an answer). Prometheus makes truncation wait for
 * overlapping readers (`WaitForPendingReadersInTimeRange`); here a read instead checks the
 * head's removal version after reading it and, when any truncation happened since its view
 * was taken, takes a new view (`currentBlocks` then includes the new blocks) and reads
 * again. Truncation never waits for a query, and no reader can hold it up by never closing.
 */
export class DBQuerier {
  private view: View;

  constructor(
    blocks: readonly BlockReader[],
    private readonly head: Head,
    readonly mint: number,
    readonly maxt: number,
    /** The database's blocks now (default: `blocks`, fixed: no retry on a collision). */
    private readonly currentBlocks: () => readonly BlockReader[] = () => blocks,
  ) {
    if (mint > maxt) throw new RangeError(`querier range is empty: mint ${mint} > maxt ${maxt}`);
    this.view = this.takeView(blocks);
  }

  private takeView(all: readonly BlockReader[]): View {
    const { head, mint, maxt } = this;
    // Block ranges are half-open [minTime, maxTime); the query range is inclusive.
    const blocks = [...all]
      .filter((b) => b.meta.minTime <= maxt && b.meta.maxTime > mint)
      .sort((a, b) => a.meta.minTime - b.meta.minTime);
    // After a cut the head may still hold the chunk spanning the block boundary; like
    // Prometheus, the head answers only from its min time on (the merge would dedupe anyway).
    // Its out-of-order samples may be older than that and are read over the whole range.
    const headMin = head.minTime();
    const inOrder = !head.isEmpty() && maxt >= headMin;
    const outOfOrder = head.oooMaxTime() >= mint && head.oooMinTime() <= maxt;
    const headMint = inOrder ? Math.max(mint, headMin) : outOfOrder ? maxt + 1 : undefined;
    return { blocks, headMint, removals: head.removalVersion() };
  }

  /**
   * Runs `read` over the current view until no truncation happened during it (see the
   * class comment), taking a fresh view before each retry.
   */
  private async consistent<T>(read: (view: View) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const view = this.view;
      let result: T;
      try {
        result = await read(view);
      } catch (err) {
        // A block of the view left the database during the read (retention, or a compaction
        // that replaced it) and its files were closed under the read: its data is in the
        // blocks that replaced it, or gone by design. Read again over the blocks as they are.
        if (attempt === MAX_VIEW_ATTEMPTS || !this.lostBlock(view)) throw err;
        this.view = this.takeView(this.currentBlocks());
        continue;
      }
      if (this.head.removalVersion() === view.removals) return result;
      if (attempt === MAX_VIEW_ATTEMPTS)
        throw new Error(
          `query over [${this.mint}, ${this.maxt}] collided with head compaction ${attempt} times in a row`,
        );
      this.view = this.takeView(this.currentBlocks());
    }
  }

  /** Whether a block of `view` is no longer one of the database's blocks. */
  private lostBlock(view: View): boolean {
    const current = new Set(this.currentBlocks());
    return view.blocks.some((b) => !current.has(b));
  }

  /** Series matching every matcher with samples in range, sorted by labels. */
  async select(matchers: readonly Matcher[]): Promise<DBSeries[]> {
    const all = await this.consistent((view) => this.selectSources(view, matchers));
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

  /**
   * The chunks of the series matching every matcher overlapping the range, one entry per
   * label set (every source's chunks: blocks in time order, then the head), sorted by labels
   * (with `sorted` false and only the head to read, in the head's postings order).
   * Chunks are passed on encoded and may overlap (a block and the head around a cut, or
   * out-of-order data): readers keep each timestamp once.
   */
  async selectChunks(
    matchers: readonly Matcher[],
    opts: ChunkSelectOptions = {},
  ): Promise<SeriesChunks[]> {
    const lists = await this.consistent(async (view) => {
      const out: SeriesChunks[][] = [];
      for (const block of view.blocks) {
        const list: SeriesChunks[] = [];
        for await (const s of block.selectChunks(matchers, this.mint, this.maxt)) list.push(s);
        out.push(list);
      }
      if (view.headMint !== undefined) {
        // Merging with blocks needs every list sorted; alone the head may skip its sort.
        const sorted = opts.sorted !== false || out.length > 0;
        const headOpts = {
          inOrderMint: view.headMint,
          sorted,
          ...(opts.pause === undefined ? {} : { pause: opts.pause }),
        };
        out.push(await this.head.selectChunks(matchers, this.mint, this.maxt, headOpts));
      }
      return out;
    });
    // Every source answers sorted by labels (or is alone): merged, not sorted again.
    return lists.length === 1 ? (lists[0] as SeriesChunks[]) : mergeSeriesChunkSets(lists);
  }

  /** Label names of the series matching `matchers` (all series without), sorted. */
  async labelNames(matchers: readonly Matcher[] = []): Promise<string[]> {
    const names = await this.consistent(async (view) => {
      const out = new Set<string>();
      for (const b of view.blocks) for (const n of await b.labelNames(matchers)) out.add(n);
      if (view.headMint !== undefined) {
        if (matchers.length === 0) for (const n of await this.head.labelNames()) out.add(n);
        else for (const l of await this.headLabels(matchers)) l.forEach((n) => out.add(n));
      }
      return out;
    });
    return [...names].sort(compareGoStrings);
  }

  /** Values of label `name` among the series matching `matchers` (all without), sorted. */
  async labelValues(name: string, matchers: readonly Matcher[] = []): Promise<string[]> {
    const values = await this.consistent(async (view) => {
      const out = new Set<string>();
      for (const b of view.blocks) for (const v of await b.labelValues(name, matchers)) out.add(v);
      if (view.headMint !== undefined) {
        if (matchers.length === 0) for (const v of await this.head.labelValues(name)) out.add(v);
        else for (const l of await this.headLabels(matchers)) if (l.has(name)) out.add(l.get(name));
      }
      return out;
    });
    return [...values].sort(compareGoStrings);
  }

  /** Every source's series matching `matchers` in the view: blocks in time order, the head last. */
  private async selectSources(view: View, matchers: readonly Matcher[]): Promise<SourceSeries[]> {
    const all: SourceSeries[] = [];
    for (let i = 0; i < view.blocks.length; i++) {
      const block = view.blocks[i] as BlockReader;
      for await (const s of block.select(matchers, this.mint, this.maxt)) {
        all.push({ labels: s.labels, source: i, iterator: () => s.iterator() });
      }
    }
    if (view.headMint !== undefined) {
      const source = view.blocks.length;
      const opts = { inOrderMint: view.headMint };
      for (const s of await this.head.select(matchers, this.mint, this.maxt, opts)) {
        all.push({ labels: s.labels, source, iterator: () => s.iterator() });
      }
    }
    return all;
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
