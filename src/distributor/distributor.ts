/**
 * The distributor (Cortex's `Distributor.Push`): one decoded remote-write request for one
 * tenant goes through the HA tracker, validation with the tenant's limits, the ingestion rate
 * limit, sharding by token onto the ingester ring and the quorum fan-out to the ingesters.
 */
import { Counter, Gauge } from 'prom-client';
import type { IngesterClient, PushBatch, PushSource, WireUserStats } from '../ingester/index.js';
import type { Overrides } from '../overrides/index.js';
import {
  RingError,
  WRITE,
  WRITE_NO_EXTEND,
  READ,
  type ReadRing,
  type ReplicationSet,
} from '../ring/index.js';
import type { Clock, KV, Logger, MetricsRegistry, Random, Transport } from '../runtime/index.js';
import { HttpError, InternalError, UnavailableError } from '../server/index.js';
import { BasicService } from '../services/index.js';
import { discardedMetrics, type DiscardedMetrics } from './discarded_metrics.js';
import { ReplicasNotMatchError } from './errors.js';
import {
  HATracker,
  findHALabels,
  removeLabelFromAllSeries,
  type HATrackerConfig,
} from './ha_tracker.js';
import {
  distributorLimitsFromOverrides,
  type DistributorLimits,
  type DistributorLimitsFn,
} from './limits.js';
import { doBatch } from './push_fanout.js';
import { ingesterPushError, isIngesterClientError } from './push_errors.js';
import { IngestionRateLimiter } from './rate_limiter.js';
import { shardByMetricName, tokenForSeries } from './shard.js';
import { DISTRIBUTOR_PUSH, servePushRpc } from './push_rpc.js';
import { DEFAULT_SERIES_LABELS_CACHE_ENTRIES, SeriesLabelsCache } from './series_labels_cache.js';
import { validateWriteRequest } from './validation.js';
import {
  cachedEntryOf,
  type MetricMetadata,
  type SeriesData,
  type WriteRequestData,
} from './write_request.js';

export interface DistributorConfig {
  /** `-distributor.shard-by-all-labels` (default false: tenant + metric name). */
  shardByAllLabels: boolean;
  /** `-distributor.remote-timeout` (2s): the timeout of each ingester call. */
  remoteTimeoutMs: number;
  /** `-distributor.extend-writes`: a non-ACTIVE replica makes the set grow by one. */
  extendWrites: boolean;
  /** `-distributor.max-recv-msg-size`: largest (decompressed) push accepted. */
  maxRecvMsgSize: number;
  haTracker: HATrackerConfig & {
    enabled: boolean;
    /** `-distributor.ha-tracker.update-timeout-jitter-max`, drawn once when no jitter is given. */
    updateTimeoutJitterMaxMs?: number;
  };
  ingestionRateStrategy: 'local' | 'global';
  /**
   * Label sets kept for reuse across pushes (SeriesLabelsCache); default
   * DEFAULT_SERIES_LABELS_CACHE_ENTRIES, 0 turns the cache off.
   */
  seriesLabelsCacheEntries?: number;
}

export interface DistributorDeps {
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: MetricsRegistry;
  /** The `distributor.Push` RPC handler is registered on it by `registerDistributorRpc`. */
  transport: Transport;
  ingesterRing: ReadRing;
  client: IngesterClient;
  overrides: Overrides;
  /** HA tracker store, when enabled. */
  haKV?: KV;
  /** Healthy distributors, for the global ingestion-rate strategy (1 when unknown). */
  distributorCount?: () => number;
}

/** What a push that was not refused answers: 200, or 202 when an HA replica was deduped. */
export interface PushOutcome {
  status: 200 | 202;
  /** The body of a 202 (Cortex's replicas-did-not-match text); empty for 200. */
  message: string;
}

/** One tenant's stats summed over every ingester (Cortex's UserIDStats). */
export interface UserIDStats {
  userID: string;
  ingestionRate: number;
  numSeries: number;
  APIIngestionRate: number;
  RuleIngestionRate: number;
  /** Blocks of the tenant's databases, summed over the ingesters (replicas included). */
  loadedBlocks: number;
}

export interface AllUserStats {
  /** Sorted by series descending, then tenant. Not divided by the replication factor. */
  stats: UserIDStats[];
  replicationFactor: number;
  queriedIngesters: number;
}

/** What one push sends on: the request and the series and metadata that passed validation. */
interface PushShare {
  readonly tenant: string;
  readonly req: WriteRequestData;
  readonly source: PushSource;
  /** Indexes into `req.series`. */
  readonly series: readonly number[];
  readonly metadata: readonly MetricMetadata[];
}

export class Distributor extends BasicService {
  readonly haTracker: HATracker | undefined;
  /** Decoded label sets reused across this distributor's pushes; decoders are handed it. */
  readonly labelsCache: SeriesLabelsCache | undefined;
  private readonly limits: DistributorLimitsFn;
  private readonly rateLimiter: IngestionRateLimiter;
  private readonly discarded: DiscardedMetrics;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly m: {
    samplesIn: Counter<'user'>;
    exemplarsIn: Counter<'user'>;
    metadataIn: Counter<'user'>;
    receivedSamples: Counter<'user'>;
    receivedExemplars: Counter<'user'>;
    receivedMetadata: Counter<'user'>;
    appends: Counter<'ingester' | 'type'>;
    appendFailures: Counter<'ingester' | 'type' | 'status'>;
  };

  constructor(
    readonly config: DistributorConfig,
    private readonly deps: DistributorDeps,
  ) {
    super('distributor', {
      running: (signal) => this.run(signal),
      stopping: () => this.drain(),
    });
    const base = distributorLimitsFromOverrides(deps.overrides);
    // The strategy is a distributor setting (the same for every tenant), as in Cortex.
    this.limits = (tenant) => ({
      ...base(tenant),
      ingestionRateStrategy: config.ingestionRateStrategy,
    });
    this.rateLimiter = new IngestionRateLimiter({}, { clock: deps.clock, limits: this.limits });
    this.discarded = discardedMetrics(deps.metrics);
    const cacheEntries = config.seriesLabelsCacheEntries ?? DEFAULT_SERIES_LABELS_CACHE_ENTRIES;
    this.labelsCache =
      cacheEntries > 0 ? new SeriesLabelsCache({ maxEntries: cacheEntries }) : undefined;
    if (this.labelsCache !== undefined) registerLabelsCacheMetrics(deps.metrics, this.labelsCache);
    if (config.haTracker.enabled) {
      if (deps.haKV === undefined) throw new Error('HA tracker enabled but no HA KV store given');
      const jitterMax = config.haTracker.updateTimeoutJitterMaxMs ?? 0;
      const jitter =
        config.haTracker.updateTimeoutJitterMs ??
        (jitterMax > 0
          ? Math.floor((deps.random.stream('distributor.ha-tracker').next() * 2 - 1) * jitterMax)
          : 0);
      this.haTracker = new HATracker(
        {
          updateTimeoutMs: config.haTracker.updateTimeoutMs,
          updateTimeoutJitterMs: jitter,
          failoverTimeoutMs: config.haTracker.failoverTimeoutMs,
        },
        {
          kv: deps.haKV,
          clock: deps.clock,
          registry: deps.metrics,
          logger: deps.logger,
          discarded: this.discarded,
        },
      );
    }
    deps.transport.handle(DISTRIBUTOR_PUSH, (req) => servePushRpc(this, req));
    const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
      new Counter({ name, help, labelNames, registers: [deps.metrics] });
    this.m = {
      samplesIn: counter(
        'cortex_distributor_samples_in_total',
        'The total number of samples that have come in to the distributor, including rejected or deduped samples.',
        ['user'],
      ),
      exemplarsIn: counter(
        'cortex_distributor_exemplars_in_total',
        'The total number of exemplars that have come in to the distributor, including rejected or deduped exemplars.',
        ['user'],
      ),
      metadataIn: counter(
        'cortex_distributor_metadata_in_total',
        'The total number of metadata the have come in to the distributor, including rejected.',
        ['user'],
      ),
      receivedSamples: counter(
        'cortex_distributor_received_samples_total',
        'The total number of received samples, excluding rejected and deduped samples.',
        ['user'],
      ),
      receivedExemplars: counter(
        'cortex_distributor_received_exemplars_total',
        'The total number of received exemplars, excluding rejected and deduped exemplars.',
        ['user'],
      ),
      receivedMetadata: counter(
        'cortex_distributor_received_metadata_total',
        'The total number of received metadata, excluding rejected.',
        ['user'],
      ),
      appends: counter(
        'cortex_distributor_ingester_appends_total',
        'The total number of batch appends sent to ingesters.',
        ['ingester', 'type'],
      ),
      appendFailures: counter(
        'cortex_distributor_ingester_append_failures_total',
        'The total number of failed batch appends sent to ingesters.',
        ['ingester', 'type', 'status'],
      ),
    };
  }

  get clock(): Clock {
    return this.deps.clock;
  }

  private async run(signal: AbortSignal): Promise<void> {
    if (this.haTracker !== undefined) {
      try {
        await this.haTracker.run(signal);
      } catch (err) {
        if (!signal.aborted) throw err;
      }
      return;
    }
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Waits for ingester calls still running (each bounded by the remote timeout). */
  async drain(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /**
   * The whole pipeline for one decoded request. Resolves with 200 (or 202 for a deduped HA
   * replica); rejects with an HttpError: 400 for validation (after the valid series were
   * written), 429 for the rate limit (nothing written), a 4xx an ingester refused with, or a
   * 5xx when a series could not reach its quorum.
   */
  async push(tenant: string, req: WriteRequestData, source: PushSource): Promise<PushOutcome> {
    const limits = this.limits(tenant);
    const m = this.m;
    m.samplesIn.inc({ user: tenant }, req.timestamps.length);
    m.exemplarsIn.inc({ user: tenant }, req.exemplarCount);
    m.metadataIn.inc({ user: tenant }, req.metadata.length);

    if (limits.acceptHASamples && req.series.length > 0) {
      const deduped = await this.checkHA(tenant, limits, req);
      if (deduped !== undefined) return deduped;
    }

    const outcome = validateWriteRequest(
      limits,
      tenant,
      req,
      this.deps.clock.now(),
      this.discarded,
      this.labelsCache,
    );
    m.receivedSamples.inc({ user: tenant }, outcome.samples);
    m.receivedExemplars.inc({ user: tenant }, outcome.exemplars);
    m.receivedMetadata.inc({ user: tenant }, outcome.metadata.length);
    if (outcome.series.length === 0 && outcome.metadata.length === 0) {
      if (outcome.firstError !== undefined) throw outcome.firstError;
      return { status: 200, message: '' };
    }

    try {
      this.rateLimiter.check(
        tenant,
        {
          samples: outcome.samples,
          exemplars: outcome.exemplars,
          metadata: outcome.metadata.length,
        },
        this.deps.distributorCount?.() ?? 1,
      );
    } catch (err) {
      this.discarded.samples.inc({ reason: 'rate_limited', user: tenant }, outcome.samples);
      this.discarded.exemplars.inc({ reason: 'rate_limited', user: tenant }, outcome.exemplars);
      this.discarded.metadata.inc(
        { reason: 'rate_limited', user: tenant },
        outcome.metadata.length,
      );
      throw err;
    }

    const share: PushShare = {
      tenant,
      req,
      source,
      series: outcome.series,
      metadata: outcome.metadata.map((i) => req.metadata[i] as MetricMetadata),
    };
    const run = doBatch(
      this.replicationSets(share),
      (instance, items) => this.send(instance.addr, share, items),
      isIngesterClientError,
    );
    this.inFlight.add(run.settled);
    void run.settled.then(() => this.inFlight.delete(run.settled));
    await run.result;
    if (outcome.firstError !== undefined) throw outcome.firstError;
    return { status: 200, message: '' };
  }

  /**
   * The HA step: a 202 outcome for a non-elected replica; otherwise strips the replica label
   * of an accepted HA push and returns undefined.
   */
  private async checkHA(
    tenant: string,
    limits: DistributorLimits,
    req: WriteRequestData,
  ): Promise<PushOutcome | undefined> {
    let removeReplica: boolean;
    if (this.haTracker !== undefined) {
      try {
        removeReplica = (await this.haTracker.checkRequest(tenant, limits, req)).removeReplicaLabel;
      } catch (err) {
        if (err instanceof ReplicasNotMatchError) return { status: 202, message: err.message };
        if (err instanceof HttpError) throw err;
        // The KV store failed: Cortex answers 500 with the error, so the sender retries.
        throw new InternalError(
          `failed to check HA replica: ${err instanceof Error ? err.message : String(err)}`,
          { cause: err },
        );
      }
    } else {
      // Cortex with the tracker disabled still strips the replica label of HA pushes.
      const first = req.series[0] as SeriesData;
      const { cluster, replica } = findHALabels(
        first.labels,
        limits.haClusterLabel,
        limits.haReplicaLabel,
      );
      removeReplica = cluster !== '' && replica !== '';
    }
    if (removeReplica) removeLabelFromAllSeries(req, limits.haReplicaLabel);
    return undefined;
  }

  /** One replication set per valid series, then per valid metadata entry. */
  private replicationSets({ tenant, req, series, metadata }: PushShare): ReplicationSet[] {
    const op = this.config.extendWrites ? WRITE : WRITE_NO_EXTEND;
    const ring = this.deps.ingesterRing;
    // Sharding by metric name gives many series one token: look each token up once.
    const byToken = new Map<number, ReplicationSet>();
    const lookup = (token: number): ReplicationSet => {
      let set = byToken.get(token);
      if (set === undefined) {
        try {
          set = ring.get(token, op);
        } catch (err) {
          if (err instanceof RingError) throw new UnavailableError(err.message, { cause: err });
          throw err;
        }
        byToken.set(token, set);
      }
      return set;
    };
    const sets: ReplicationSet[] = [];
    for (const i of series) {
      const s = req.series[i] as SeriesData;
      sets.push(lookup(seriesToken(tenant, s, this.config.shardByAllLabels)));
    }
    for (const md of metadata) sets.push(lookup(shardByMetricName(tenant, md.metricFamilyName)));
    return sets;
  }

  /** One ingester's part of a push: items below `series.length` are series, the rest metadata. */
  private async send(addr: string, share: PushShare, items: readonly number[]): Promise<void> {
    const { tenant, req, source } = share;
    const seriesCount = share.series.length;
    const seriesIndexes: number[] = [];
    const metadata: MetricMetadata[] = [];
    for (const item of items) {
      if (item < seriesCount) seriesIndexes.push(share.series[item] as number);
      else metadata.push(share.metadata[item - seriesCount] as MetricMetadata);
    }
    const batch: PushBatch = { data: req, seriesIndexes, metadata };
    const types: string[] = [];
    if (seriesIndexes.length > 0) types.push('samples');
    if (metadata.length > 0) types.push('metadata');
    for (const type of types) this.m.appends.inc({ ingester: addr, type });
    try {
      await this.deps.client.push(addr, tenant, batch, source, {
        timeoutMs: this.config.remoteTimeoutMs,
      });
    } catch (err) {
      const status = isIngesterClientError(err) ? '4xx' : '5xx';
      for (const type of types) this.m.appendFailures.inc({ ingester: addr, type, status });
      if (!isIngesterClientError(err)) {
        this.deps.logger.warn('push to ingester failed', {
          ingester: addr,
          tenant,
          err: err instanceof Error ? err.message : String(err),
        });
      }
      throw ingesterPushError(addr, err);
    }
  }

  /**
   * Every tenant's stats summed over all healthy ingesters (Cortex's AllUserStats): not
   * divided by the replication factor, which the page states instead. Fails on the first
   * ingester that cannot answer.
   */
  async allUserStats(signal?: AbortSignal): Promise<AllUserStats> {
    const ring = this.deps.ingesterRing;
    let instances;
    try {
      instances = ring.getAllHealthy(READ);
    } catch (err) {
      if (err instanceof RingError) throw new UnavailableError(err.message, { cause: err });
      throw err;
    }
    const opts = {
      timeoutMs: this.config.remoteTimeoutMs,
      ...(signal === undefined ? {} : { signal }),
    };
    const answers = await Promise.all(
      instances.map((inst) => this.deps.client.allUserStats(inst.addr, opts)),
    );
    const totals = new Map<string, WireUserStats & { loadedBlocks: number }>();
    for (const answer of answers) {
      for (const { tenant, stats, loadedBlocks } of answer) {
        const t = totals.get(tenant) ?? {
          numSeries: 0,
          ingestionRate: 0,
          apiIngestionRate: 0,
          ruleIngestionRate: 0,
          loadedBlocks: 0,
        };
        t.loadedBlocks += loadedBlocks ?? 0;
        t.numSeries += stats.numSeries;
        t.ingestionRate += stats.ingestionRate;
        t.apiIngestionRate += stats.apiIngestionRate;
        t.ruleIngestionRate += stats.ruleIngestionRate;
        totals.set(tenant, t);
      }
    }
    const stats: UserIDStats[] = [...totals].map(([userID, t]) => ({
      userID,
      ingestionRate: t.ingestionRate,
      numSeries: t.numSeries,
      APIIngestionRate: t.apiIngestionRate,
      RuleIngestionRate: t.ruleIngestionRate,
      loadedBlocks: t.loadedBlocks,
    }));
    stats.sort((a, b) =>
      a.numSeries !== b.numSeries
        ? b.numSeries - a.numSeries
        : a.userID < b.userID
          ? -1
          : a.userID > b.userID
            ? 1
            : 0,
    );
    return {
      stats,
      replicationFactor: ring.replicationFactor,
      queriedIngesters: instances.length,
    };
  }
}

/** A series' sharding token, kept on its label cache entry (hashed once per tenant and mode). */
function seriesToken(tenant: string, s: SeriesData, byAll: boolean): number {
  const entry = cachedEntryOf(s);
  if (entry?.tokenTenant === tenant && entry.tokenByAllLabels === byAll) return entry.token;
  const token = tokenForSeries(tenant, s.labels, byAll);
  if (entry !== undefined) {
    entry.token = token;
    entry.tokenTenant = tenant;
    entry.tokenByAllLabels = byAll;
  }
  return token;
}

/**
 * The label cache's size and hit rate: a miss rate near 1 under steady load means a
 * generation no longer holds every active series (-distributor.series-labels-cache-size).
 * The cache counts in plain fields (its lookups are the hot path); scrapes read them. One
 * distributor per registry is counted.
 */
function registerLabelsCacheMetrics(registry: MetricsRegistry, cache: SeriesLabelsCache): void {
  const LOOKUPS = 'strata_distributor_series_labels_cache_lookups_total';
  if (registry.getSingleMetric(LOOKUPS) !== undefined) return;
  const reported = { hit: 0, miss: 0 };
  new Counter({
    name: LOOKUPS,
    help: 'Label sets looked up in the distributor label cache, by result (hit or miss).',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.inc({ result: 'hit' }, cache.hits - reported.hit);
      this.inc({ result: 'miss' }, cache.misses - reported.miss);
      reported.hit = cache.hits;
      reported.miss = cache.misses;
    },
  });
  new Gauge({
    name: 'strata_distributor_series_labels_cache_entries',
    help: 'Label sets held by the distributor label cache (both generations).',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });
}
