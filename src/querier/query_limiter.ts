/**
 * Per-query limits on what a query fetches (Cortex's QueryLimiter), each 0 = no limit and
 * each past its bound failing the query with Cortex's 422 message instead of letting it
 * fetch and hold everything:
 * - the unique series a query selects across all its selectors, from ingesters and
 *   store-gateways together (`max_fetched_series_per_query`);
 * - the bytes of chunks (`max_fetched_chunk_bytes_per_query`) and of whole series, labels
 *   and chunks (`max_fetched_data_bytes_per_query`) of every answer the fetching layers
 *   received, each replica's and store-gateway's copy counted (see fetched_bytes.ts).
 *
 * One limiter lives for one query: the engine asks the queryable for one querier per query,
 * and every select of that querier counts into it. The byte counts arrive through the
 * select's hints (`SelectHints.fetched`), from below the replica and source merges that
 * would otherwise hide the copies.
 */
import type { Labels, Matcher } from '../model/index.js';
import type {
  FetchedBytesSink,
  Querier,
  Queryable,
  SelectHints,
  StorageSeries,
} from '../promql/index.js';
import { QueryExecutionError } from '../promql/index.js';

/** Cortex's ErrMaxSeriesHit. */
export function maxSeriesHitMessage(limit: number): string {
  return `the query hit the max number of series limit (limit: ${limit} series)`;
}

/** Cortex's ErrMaxChunkBytesHit. */
export function maxChunkBytesHitMessage(limit: number): string {
  return `the query hit the aggregated chunks size limit (limit: ${limit} bytes)`;
}

/** Cortex's ErrMaxDataBytesHit. */
export function maxDataBytesHitMessage(limit: number): string {
  return `the query hit the aggregated data size limit (limit: ${limit} bytes)`;
}

/** One tenant's per-query fetch limits; 0 (or absent) turns one off. */
export interface QueryLimits {
  readonly maxSeries?: number;
  readonly maxChunkBytes?: number;
  readonly maxDataBytes?: number;
}

export class QueryLimiter implements FetchedBytesSink {
  private readonly seen = new Set<string>();
  private chunkBytes = 0;
  private dataBytes = 0;
  private readonly maxSeries: number;
  private readonly maxChunkBytes: number;
  private readonly maxDataBytes: number;

  /** A number alone is the series limit (the byte limits off). */
  constructor(limits: QueryLimits | number) {
    const l = typeof limits === 'number' ? { maxSeries: limits } : limits;
    this.maxSeries = l.maxSeries ?? 0;
    this.maxChunkBytes = l.maxChunkBytes ?? 0;
    this.maxDataBytes = l.maxDataBytes ?? 0;
  }

  /** Whether any limit is on. */
  get active(): boolean {
    return this.maxSeries > 0 || this.countsBytes;
  }

  /** Whether the byte limits want the fetching layers' counts. */
  get countsBytes(): boolean {
    return this.maxChunkBytes > 0 || this.maxDataBytes > 0;
  }

  /** Counts the series (each label set once per query); throws past the limit. */
  addSeries(series: readonly { readonly labels: Labels }[]): void {
    if (!(this.maxSeries > 0)) return;
    for (const s of series) {
      this.seen.add(s.labels.toString());
      if (this.seen.size > this.maxSeries) {
        throw new QueryExecutionError(maxSeriesHitMessage(this.maxSeries));
      }
    }
  }

  /** Counts one fetched answer's bytes; throws once a total is past its limit. */
  addFetched(chunkBytes: number, dataBytes: number): void {
    this.chunkBytes += chunkBytes;
    this.dataBytes += dataBytes;
    if (this.maxChunkBytes > 0 && this.chunkBytes > this.maxChunkBytes) {
      throw new QueryExecutionError(maxChunkBytesHitMessage(this.maxChunkBytes));
    }
    if (this.maxDataBytes > 0 && this.dataBytes > this.maxDataBytes) {
      throw new QueryExecutionError(maxDataBytesHitMessage(this.maxDataBytes));
    }
  }
}

/**
 * `inner` with each query's selects counted by a QueryLimiter of `limits()` (read once per
 * query, so a changed override applies to the next query); a number is the series limit.
 */
export function limitedQueryable(inner: Queryable, limits: () => QueryLimits | number): Queryable {
  return {
    querier: async (mint, maxt) => {
      const limiter = new QueryLimiter(limits());
      const querier = await inner.querier(mint, maxt);
      return limiter.active ? new LimitedQuerier(querier, limiter, mint, maxt) : querier;
    },
  };
}

class LimitedQuerier implements Querier {
  constructor(
    private readonly inner: Querier,
    private readonly limiter: QueryLimiter,
    private readonly mint: number,
    private readonly maxt: number,
  ) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    let innerHints = hints;
    if (this.limiter.countsBytes) {
      // Without hints storage reads the querier's whole range: say so explicitly.
      const base = hints ?? { start: this.mint, end: this.maxt };
      innerHints = { ...base, fetched: this.limiter };
    }
    const series = await this.inner.select(matchers, innerHints);
    this.limiter.addSeries(series);
    return series;
  }

  labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    return this.inner.labelNames(matchers);
  }

  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    return this.inner.labelValues(name, matchers);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
