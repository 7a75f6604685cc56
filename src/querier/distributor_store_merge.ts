/**
 * One tenant's storage over both sources (Cortex's querier with the distributor and blocks
 * store queryables): recent data from the ingesters (their replicas already merged), older
 * data from the store-gateways, asked in parallel within their windows
 * (`query_ingesters_within`, `query_store_after`). A series both hold becomes one series
 * whose iterator walks both, keeping each timestamp once (ingesters keep a block's samples
 * until well after it was shipped, so the overlap is the normal case, not an accident).
 */
import { Labels, compareGoStrings, type Matcher } from '../model/index.js';
import {
  type Querier as StorageQuerier,
  type Queryable,
  type SelectHints,
  type StorageSeries,
} from '../promql/index.js';
import { AbortError, ChildAbort } from '../runtime/index.js';
import type { BlocksStoreQueryable } from './blocks_store_queryable.js';
import { ChunkSampleReader } from './chunk_samples.js';
import { mergeSampleIterators, storeSeriesToStorageSeries } from './chunk_series.js';
import type { IngesterQueryable } from './ingester_queryable.js';
import { toStorageSeries } from './merge.js';

/**
 * Merges lists of series each sorted by labels into one sorted list, one series per label
 * set; a label set in several lists iterates the samples of all, each timestamp once (on
 * equal timestamps the earlier list's sample wins).
 */
export function mergeStorageSeries(lists: readonly (readonly StorageSeries[])[]): StorageSeries[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length === 0) return [];
  if (nonEmpty.length === 1) return [...(nonEmpty[0] as readonly StorageSeries[])];
  const pos = nonEmpty.map(() => 0);
  const out: StorageSeries[] = [];
  for (;;) {
    // The smallest label set among the lists' heads.
    let best: Labels | undefined;
    for (let i = 0; i < nonEmpty.length; i++) {
      const head = (nonEmpty[i] as readonly StorageSeries[])[pos[i] as number];
      if (head !== undefined && (best === undefined || Labels.compare(head.labels, best) < 0)) {
        best = head.labels;
      }
    }
    if (best === undefined) return out;
    const group: StorageSeries[] = [];
    for (let i = 0; i < nonEmpty.length; i++) {
      const head = (nonEmpty[i] as readonly StorageSeries[])[pos[i] as number];
      if (head !== undefined && head.labels.equals(best)) {
        group.push(head);
        pos[i] = (pos[i] as number) + 1;
      }
    }
    out.push(group.length === 1 ? (group[0] as StorageSeries) : mergedSeries(best, group));
  }
}

function mergedSeries(labels: Labels, group: readonly StorageSeries[]): StorageSeries {
  return {
    labels,
    iterator: () => mergeSampleIterators(group.map((s) => s.iterator())),
  };
}

/** The Queryable over ingesters and the blocks store. */
export class DistributorStoreQueryable {
  constructor(
    private readonly ingesters: IngesterQueryable,
    private readonly store: BlocksStoreQueryable,
  ) {}

  forTenant(tenant: string, signal?: AbortSignal): Queryable {
    return {
      querier: (mint, maxt) =>
        Promise.resolve(
          new DistributorStoreQuerier(this.ingesters, this.store, tenant, mint, maxt, signal),
        ),
    };
  }
}

/** One tenant's querier over [mint, maxt] reading both sources. */
export class DistributorStoreQuerier implements StorageQuerier {
  constructor(
    private readonly ingesters: IngesterQueryable,
    private readonly store: BlocksStoreQueryable,
    private readonly tenant: string,
    private readonly mint: number,
    private readonly maxt: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    const signal = hints?.signal ?? this.signal;
    const start = hints !== undefined ? hints.start : this.mint;
    const end = hints !== undefined ? hints.end : this.maxt;
    const limit = hints?.limit !== undefined && hints.limit > 0 ? hints.limit : 0;
    const fetched = hints?.fetched;
    const { tenant } = this;
    let merged: StorageSeries[];
    if (hints?.func === 'series') {
      // Labels only: the store skips chunks; the ingesters answer for the querier's whole
      // range as the ingester-only path does.
      const [fromStore, fromIngesters] = await both(signal, (s) => [
        this.store.series(tenant, matchers, start, end, { skipChunks: true, signal: s, fetched }),
        this.ingesters.seriesLabels(tenant, matchers, this.mint, this.maxt, s, fetched),
      ]);
      merged = sortedUniqueLabels([fromStore.map((x) => x.labels), fromIngesters]).map(
        labelsOnlySeries,
      );
    } else {
      const sorted = hints?.sortSeries !== false;
      const [fromStore, fromIngesters] = await both(signal, (s) => [
        this.store.series(tenant, matchers, start, end, { signal: s, fetched }),
        this.ingesters.select(tenant, matchers, start, end, s, fetched, sorted),
      ]);
      // The ingesters may answer unsorted when asked so; merging with the store needs
      // their series sorted, and alone they are passed on as they are.
      if (!sorted && fromStore.length > 0) Labels.sortBy(fromIngesters, (x) => x.labels);
      const reader = new ChunkSampleReader();
      merged = mergeStorageSeries([
        fromStore.map((x) => storeSeriesToStorageSeries(x, start, end, reader)),
        fromIngesters,
      ]);
    }
    return limit > 0 && merged.length > limit ? merged.slice(0, limit) : merged;
  }

  async labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    const { tenant, mint, maxt } = this;
    const lists = await both(this.signal, (s) => [
      this.store.labelNames(tenant, matchers, mint, maxt, s),
      this.ingesters.labelNames(tenant, matchers, mint, maxt, s),
    ]);
    return sortedUnion(lists);
  }

  async labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    const { tenant, mint, maxt } = this;
    const lists = await both(this.signal, (s) => [
      this.store.labelValues(tenant, name, matchers, mint, maxt, s),
      this.ingesters.labelValues(tenant, name, matchers, mint, maxt, s),
    ]);
    return sortedUnion(lists);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * Runs the two sources' calls together; when one fails the other is cancelled (its answer
 * could not be used) and the first failure is the query's.
 */
async function both<A, B>(
  signal: AbortSignal | undefined,
  start: (signal: AbortSignal) => [Promise<A>, Promise<B>],
): Promise<[A, B]> {
  const calls = new ChildAbort(signal);
  const [a, b] = start(calls.signal);
  try {
    return await Promise.all([a, b]);
  } catch (err) {
    calls.abort(() => new AbortError('the other source of the query failed'));
    throw err;
  } finally {
    calls.release();
  }
}

function sortedUniqueLabels(lists: readonly (readonly Labels[])[]): Labels[] {
  const all = lists.flat().sort((x, y) => Labels.compare(x, y));
  return all.filter((l, i) => i === 0 || !l.equals(all[i - 1] as Labels));
}

function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const s of list) all.add(s);
  return [...all].sort(compareGoStrings);
}

const NO_SAMPLES = new Float64Array(0);

function labelsOnlySeries(labels: Labels): StorageSeries {
  return toStorageSeries({ labels, timestamps: NO_SAMPLES, values: NO_SAMPLES });
}
