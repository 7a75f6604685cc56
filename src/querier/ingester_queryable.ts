/**
 * The Queryable over ingesters (Cortex's distributor queryable): every call fans out to the
 * ingesters of the ring's READ replication set with the tenant in the request, succeeds once
 * the set's quorum answered, and merges what came back. Queries entirely older than
 * `query_ingesters_within` skip the ingesters, and a query's start is clamped to that window,
 * because older data is the bucket's (Cortex's ShouldQueryIngesters and minT manipulation).
 */
import type { MetricMetadata as ApiMetricMetadata } from '../api/index.js';
import { metricTypeName } from '../distributor/index.js';
import { Labels, compareGoStrings, type Matcher } from '../model/index.js';
import {
  toWireMatchers,
  type IngesterClient,
  type QueryRequest,
  type SeriesSamples,
} from '../ingester/index.js';
import {
  StorageError,
  type FetchedBytesSink,
  type Querier as StorageQuerier,
  type Queryable,
  type SelectHints,
  type StorageSeries,
} from '../promql/index.js';
import { READ, type ReadRing, type RingInstance } from '../ring/index.js';
import { isAbortError, type Clock, type Logger } from '../runtime/index.js';
import { countChunkAnswer, countLabelsAnswer } from './fetched_bytes.js';
import { mergeIngesterAnswers, toStorageSeries } from './merge.js';
import type { QuerierMetrics } from './metrics.js';
import { doReplicationSet } from './replication_set.js';

export interface IngesterQueryableConfig {
  /** 0 queries ingesters for every time range. */
  readonly queryIngestersWithinMs: number;
  /** Per-call timeout of ingester RPCs (the query timeout); 0 means none. */
  readonly timeoutMs: number;
  /** The simulator's mutation canary `skip_read_dedup` only (`SimCanaryHooks`). */
  readonly skipReplicaDedup?: boolean;
}

export interface IngesterQueryableDeps {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly ring: ReadRing;
  readonly client: IngesterClient;
  readonly metrics: QuerierMetrics;
}

export class IngesterQueryable {
  constructor(
    private readonly config: IngesterQueryableConfig,
    private readonly deps: IngesterQueryableDeps,
  ) {}

  /** The storage one tenant's queries read; `signal` cancels its ingester calls. */
  forTenant(tenant: string, signal?: AbortSignal): Queryable {
    return {
      querier: (mint, maxt) =>
        Promise.resolve(new IngesterQuerier(this, tenant, mint, maxt, signal)),
    };
  }

  /** Whether a query ending at `maxt` reaches the ingesters at all. */
  shouldQueryIngesters(maxt: number): boolean {
    const within = this.config.queryIngestersWithinMs;
    return within <= 0 || this.deps.clock.now() - within < maxt;
  }

  /**
   * Merged series of `tenant` matching `matchers` with chunks overlapping [start, end],
   * sorted by labels, their samples decoded lazily within the window and each timestamp
   * once; the start is clamped to query_ingesters_within.
   * `fetched` is told each ingester's answer size, replicas each counted (byte limits).
   * With `sorted` false and one ingester answering, its order is kept (no sort); replicas
   * are always merged sorted.
   */
  async select(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
    fetched?: FetchedBytesSink,
    sorted = true,
  ): Promise<StorageSeries[]> {
    if (!this.shouldQueryIngesters(end)) return [];
    let from = start;
    if (this.config.queryIngestersWithinMs > 0) {
      from = Math.max(from, this.deps.clock.now() - this.config.queryIngestersWithinMs);
      if (from > end) return [];
    }
    const req: QueryRequest = { start: from, end, matchers: toWireMatchers(matchers) };
    if (!sorted) req.sortSeries = false;
    const answers = await this.fanOut(
      'Distributor.QueryStream',
      (inst, callSignal) =>
        this.deps.client.queryStream(inst.addr, tenant, req, this.callOptions(callSignal)),
      signal,
    );
    for (const answer of answers) countChunkAnswer(fetched, answer);
    return mergeIngesterAnswers(answers, from, end, this.config.skipReplicaDedup === true);
  }

  /**
   * The sorted, de-duplicated labels of `tenant`'s series matching `matchers` with a sample in
   * [start, end] (Cortex's MetricsForLabelMatchers): what the series API needs, without
   * moving samples. Not clamped to query_ingesters_within, as in Cortex.
   */
  async seriesLabels(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
    fetched?: FetchedBytesSink,
  ): Promise<Labels[]> {
    if (!this.shouldQueryIngesters(end)) return [];
    const req = { start, end, matchers: toWireMatchers(matchers) };
    const answers = await this.fanOut(
      'Distributor.MetricsForLabelMatchers',
      (inst, callSignal) =>
        this.deps.client.seriesLabels(inst.addr, tenant, req, this.callOptions(callSignal)),
      signal,
    );
    for (const answer of answers) countLabelsAnswer(fetched, answer);
    const all = answers.flat().sort((a, b) => Labels.compare(a, b));
    return all.filter((l, i) => i === 0 || !l.equals(all[i - 1] as Labels));
  }

  async labelNames(
    tenant: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    if (!this.shouldQueryIngesters(end)) return [];
    const req = { start, end, matchers: toWireMatchers(matchers) };
    const answers = await this.fanOut(
      'Distributor.LabelNames',
      (inst, callSignal) =>
        this.deps.client.labelNames(inst.addr, tenant, req, this.callOptions(callSignal)),
      signal,
    );
    return sortedUnion(answers);
  }

  async labelValues(
    tenant: string,
    name: string,
    matchers: readonly Matcher[],
    start: number,
    end: number,
    signal?: AbortSignal,
  ): Promise<string[]> {
    if (!this.shouldQueryIngesters(end)) return [];
    const req = { start, end, name, matchers: toWireMatchers(matchers) };
    const answers = await this.fanOut(
      'Distributor.LabelValues',
      (inst, callSignal) =>
        this.deps.client.labelValues(inst.addr, tenant, req, this.callOptions(callSignal)),
      signal,
    );
    return sortedUnion(answers);
  }

  /**
   * The tenant's metric metadata from every ingester of the READ set, de-duplicated
   * (Cortex's distributor MetricsMetadata); not limited to a time range.
   */
  async metricsMetadata(tenant: string, signal?: AbortSignal): Promise<ApiMetricMetadata[]> {
    const answers = await this.fanOut(
      'Distributor.MetricsMetadata',
      (inst, callSignal) =>
        this.deps.client.metricsMetadata(inst.addr, tenant, this.callOptions(callSignal)),
      signal,
    );
    const unique = new Map<string, ApiMetricMetadata>();
    for (const list of answers)
      for (const m of list) {
        const key = `${m.metricFamilyName}\u0000${m.type}\u0000${m.help}\u0000${m.unit}`;
        if (unique.has(key)) continue;
        unique.set(key, {
          metricFamily: m.metricFamilyName,
          type: metricTypeName(m.type),
          help: m.help,
          unit: m.unit,
        });
      }
    return [...unique.values()];
  }

  private callOptions(signal: AbortSignal): { signal: AbortSignal; timeoutMs?: number } {
    return this.config.timeoutMs > 0 ? { signal, timeoutMs: this.config.timeoutMs } : { signal };
  }

  /**
   * Calls every instance of the READ set; the answers in the set's order. A failure of the
   * set (ring or too many ingesters) is a StorageError, as Prometheus reports storage
   * failures (500 `internal`), with the ingester's error as its cause.
   */
  private async fanOut<T>(
    method: string,
    call: (inst: RingInstance, signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T[]> {
    const { clock, metrics } = this.deps;
    const started = clock.now();
    let status = 'success';
    try {
      const set = this.deps.ring.getReplicationSetForOperation(READ);
      const results = await doReplicationSet(
        set,
        async (inst, callSignal) => {
          metrics.ingesterQueries.inc({ ingester: inst.addr });
          try {
            return await call(inst, callSignal);
          } catch (err) {
            // Calls aborted because the quorum was already reached are not failures.
            if (!callSignal.aborted) metrics.ingesterQueryFailures.inc({ ingester: inst.addr });
            throw new IngesterCallError(inst.addr, err);
          }
        },
        signal,
      );
      return results.map((r) => r.value);
    } catch (err) {
      status = isAbortError(err) ? 'cancel' : 'error';
      if (isAbortError(err)) throw err;
      const message = err instanceof Error ? err.message : String(err);
      this.deps.logger.warn('query to ingesters failed', { method, err: message });
      throw new StorageError(message, err instanceof IngesterCallError ? err.cause : err);
    } finally {
      metrics.queryDuration.observe(
        { method, status_code: status },
        (clock.now() - started) / 1000,
      );
    }
  }
}

/** An ingester call's failure, naming the ingester. */
class IngesterCallError extends Error {
  override name = 'IngesterCallError';
  constructor(
    readonly addr: string,
    override readonly cause: unknown,
  ) {
    super(
      `failed to query ingester ${addr}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

function sortedUnion(lists: readonly (readonly string[])[]): string[] {
  const all = new Set<string>();
  for (const list of lists) for (const s of list) all.add(s);
  return [...all].sort(compareGoStrings);
}

/** One tenant's storage querier over a fixed [mint, maxt]. */
class IngesterQuerier implements StorageQuerier {
  constructor(
    private readonly source: IngesterQueryable,
    private readonly tenant: string,
    private readonly mint: number,
    private readonly maxt: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async select(matchers: readonly Matcher[], hints?: SelectHints): Promise<StorageSeries[]> {
    const signal = hints?.signal ?? this.signal;
    const limit = (n: number): number =>
      hints?.limit !== undefined && hints.limit > 0 ? Math.min(hints.limit, n) : n;
    if (hints?.func === 'series') {
      // The series API only needs labels: asked for without samples and, as in Cortex, not
      // narrowed to the ingesters' window, or older ranges would list nothing.
      const labels = await this.source.seriesLabels(
        this.tenant,
        matchers,
        this.mint,
        this.maxt,
        signal,
        hints.fetched,
      );
      return labels.slice(0, limit(labels.length)).map((l) => toStorageSeries(labelsOnly(l)));
    }
    const start = hints !== undefined ? hints.start : this.mint;
    const end = hints !== undefined ? hints.end : this.maxt;
    const series = await this.source.select(
      this.tenant,
      matchers,
      start,
      end,
      signal,
      hints?.fetched,
      hints?.sortSeries !== false,
    );
    return series.slice(0, limit(series.length));
  }

  labelNames(matchers: readonly Matcher[]): Promise<string[]> {
    return this.source.labelNames(this.tenant, matchers, this.mint, this.maxt, this.signal);
  }

  labelValues(name: string, matchers: readonly Matcher[]): Promise<string[]> {
    return this.source.labelValues(this.tenant, name, matchers, this.mint, this.maxt, this.signal);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const NO_SAMPLES = new Float64Array(0);

/** A series with no samples (what the series API reads). */
function labelsOnly(labels: Labels): SeriesSamples {
  return { labels, timestamps: NO_SAMPLES, values: NO_SAMPLES };
}
