/**
 * An in-process IngesterClient over named fake ingesters, for the querier's tests: each
 * ingester holds per-tenant series and stats, answers the query RPCs with the tenant it is
 * given, and can be made to fail (down, or an error of a chosen code) or to hang.
 */
import { Labels, type Matcher } from '../model/index.js';
import {
  fromWireMatchers,
  type IngesterClient,
  type LabelNamesRequest,
  type LabelValuesRequest,
  type QueryRequest,
  type SeriesSamples,
  type WireTenantStats,
  type WireUserStats,
} from '../ingester/index.js';
import type { MetricMetadata } from '../distributor/index.js';
import { RpcError } from '../runtime/index.js';
import { rawChunksFromSamples, type SeriesChunks } from '../tsdb/index.js';

export interface FakeIngester {
  readonly series: Map<string, SeriesSamples[]>;
  readonly stats: Map<string, WireUserStats>;
  readonly metadata: Map<string, MetricMetadata[]>;
  failure?: RpcError | undefined;
  /** Answers only when the call's signal aborts (then rejects). */
  hang?: boolean;
}

export interface RecordedCall {
  readonly method: string;
  readonly addr: string;
  readonly tenant: string;
  readonly req?: unknown;
}

export class FakeIngesterClient implements IngesterClient {
  readonly ingesters = new Map<string, FakeIngester>();
  readonly calls: RecordedCall[] = [];

  ingester(addr: string): FakeIngester {
    let ing = this.ingesters.get(addr);
    if (ing === undefined) {
      ing = { series: new Map(), stats: new Map(), metadata: new Map() };
      this.ingesters.set(addr, ing);
    }
    return ing;
  }

  /** Adds samples `[t, v]` of series `labels` for `tenant` on `addr` (times ascending). */
  add(addr: string, tenant: string, labels: Labels, samples: readonly [number, number][]): void {
    const ing = this.ingester(addr);
    const list = ing.series.get(tenant) ?? [];
    list.push({
      labels,
      timestamps: Float64Array.from(samples.map((s) => s[0])),
      values: Float64Array.from(samples.map((s) => s[1])),
    });
    list.sort((a, b) => Labels.compare(a.labels, b.labels));
    ing.series.set(tenant, list);
  }

  private async answer<T>(
    method: string,
    addr: string,
    tenant: string,
    req: unknown,
    signal: AbortSignal | undefined,
    fn: (ing: FakeIngester) => T,
  ): Promise<T> {
    this.calls.push({ method, addr, tenant, req });
    await Promise.resolve();
    const ing = this.ingesters.get(addr);
    if (ing === undefined) throw new RpcError('unavailable', `no peer listening at ${addr}`);
    if (ing.failure !== undefined) throw ing.failure;
    if (ing.hang === true) {
      await new Promise<void>((resolve) => {
        if (signal?.aborted === true) resolve();
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
      throw new RpcError('aborted', 'call aborted');
    }
    return fn(ing);
  }

  push(): Promise<void> {
    return Promise.reject(new RpcError('unimplemented', 'push is not faked'));
  }

  queryStream(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<SeriesChunks[]> {
    return this.answer('queryStream', addr, tenant, req, opts?.signal, (ing) => {
      const matchers = fromWireMatchers(req.matchers);
      const out: SeriesChunks[] = [];
      for (const s of ing.series.get(tenant) ?? []) {
        if (!matchesAll(s.labels, matchers)) continue;
        const keep: number[] = [];
        s.timestamps.forEach((t, i) => {
          if (t >= req.start && t <= req.end) keep.push(i);
        });
        if (keep.length === 0) continue;
        // The samples in range as XOR chunks, as an ingester's head holds them.
        const chunks = rawChunksFromSamples(
          keep.map((i) => s.timestamps[i] as number),
          keep.map((i) => s.values[i] as number),
        );
        out.push({ labels: s.labels, chunks });
      }
      // Asked for any order, the fake answers in reverse label order: a real ingester's
      // postings order is as unlike the sorted one.
      return req.sortSeries === false ? out.reverse() : out;
    });
  }

  seriesLabels(
    addr: string,
    tenant: string,
    req: QueryRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<Labels[]> {
    return this.answer('seriesLabels', addr, tenant, req, opts?.signal, (ing) =>
      this.inRange(ing, tenant, req).map((s) => s.labels),
    );
  }

  labelNames(
    addr: string,
    tenant: string,
    req: LabelNamesRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<string[]> {
    return this.answer('labelNames', addr, tenant, req, opts?.signal, (ing) => {
      const names = new Set<string>();
      for (const s of this.inRange(ing, tenant, req))
        for (const n of s.labels.names()) names.add(n);
      return [...names].sort();
    });
  }

  labelValues(
    addr: string,
    tenant: string,
    req: LabelValuesRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<string[]> {
    return this.answer('labelValues', addr, tenant, req, opts?.signal, (ing) => {
      const values = new Set<string>();
      for (const s of this.inRange(ing, tenant, req))
        if (s.labels.has(req.name)) values.add(s.labels.get(req.name));
      return [...values].sort();
    });
  }

  userStats(addr: string, tenant: string, opts?: { signal?: AbortSignal }): Promise<WireUserStats> {
    return this.answer(
      'userStats',
      addr,
      tenant,
      undefined,
      opts?.signal,
      (ing) =>
        ing.stats.get(tenant) ?? {
          numSeries: 0,
          ingestionRate: 0,
          apiIngestionRate: 0,
          ruleIngestionRate: 0,
        },
    );
  }

  metricsMetadata(
    addr: string,
    tenant: string,
    opts?: { signal?: AbortSignal },
  ): Promise<MetricMetadata[]> {
    return this.answer('metricsMetadata', addr, tenant, undefined, opts?.signal, (ing) => [
      ...(ing.metadata.get(tenant) ?? []),
    ]);
  }

  allUserStats(): Promise<WireTenantStats[]> {
    return Promise.reject(new RpcError('unimplemented', 'allUserStats is not faked'));
  }

  private inRange(ing: FakeIngester, tenant: string, req: LabelNamesRequest): SeriesSamples[] {
    const matchers = fromWireMatchers(req.matchers);
    return (ing.series.get(tenant) ?? []).filter(
      (s) =>
        matchesAll(s.labels, matchers) &&
        [...s.timestamps].some((t) => t >= req.start && t <= req.end),
    );
  }
}

function matchesAll(labels: Labels, matchers: readonly Matcher[]): boolean {
  return matchers.every((m) => m.matches(labels.get(m.name)));
}
