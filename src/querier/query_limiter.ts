/**
 * Per-query limits on what a query fetches (Cortex's QueryLimiter): the unique series a query
 * selects across all its selectors, from ingesters and store-gateways together, are bounded by
 * the tenant's `max_fetched_series_per_query` (`-querier.max-fetched-series-per-query`,
 * 0 = no limit). Going past it fails the query with Cortex's 422 message instead of letting
 * it fetch and hold every series.
 *
 * One limiter lives for one query: the engine asks the queryable for one querier per query,
 * and every select of that querier counts into it.
 */
import type { Labels, Matcher } from '../model/index.js';
import type { Querier, Queryable, SelectHints, StorageSeries } from '../promql/index.js';
import { QueryExecutionError } from '../promql/index.js';

/** Cortex's ErrMaxSeriesHit. */
export function maxSeriesHitMessage(limit: number): string {
  return `the query hit the max number of series limit (limit: ${limit} series)`;
}

export class QueryLimiter {
  private readonly seen = new Set<string>();

  constructor(private readonly maxSeries: number) {}

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
}

/** `inner` with each query's selects counted by a QueryLimiter of `maxSeries()` series. */
export function limitedQueryable(inner: Queryable, maxSeries: () => number): Queryable {
  return {
    querier: async (mint, maxt) => {
      const limit = maxSeries();
      const querier = await inner.querier(mint, maxt);
      return limit > 0 ? new LimitedQuerier(querier, new QueryLimiter(limit)) : querier;
    },
  };
}

class LimitedQuerier implements Querier {
  constructor(
    private readonly inner: Querier,
    private readonly limiter: QueryLimiter,
  ) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    const series = await this.inner.select(matchers, hints);
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
