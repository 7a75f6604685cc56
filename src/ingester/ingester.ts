// The ingester component (Cortex's blocks-storage Ingester): per-tenant TSDBs behind the
// RPC contract, its membership in the ingester ring through a Lifecycler, and the admin
// operations behind `/ingester/{flush,shutdown,mode}`. Transport decoding lives in
// ingester_rpc.ts and the HTTP routes in ingester_http.ts; this file holds the behaviour
// both share (when pushes and queries are refused, and what they read and write).
import type { MetricMetadata } from '../distributor/index.js';
import type { Labels, Matcher } from '../model/index.js';
import { formatDuration } from '../config/index.js';
import { Lifecycler, type LifecyclerConfig, type ReadRing } from '../ring/index.js';
import type {
  Bucket,
  Clock,
  FileSystem,
  KV,
  Logger,
  MetricsRegistry,
  Random,
  Transport,
} from '../runtime/index.js';
import { RpcError, Slicer } from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { rawChunkSamples, ValueType, type DBSeries, type SeriesChunks } from '../tsdb/index.js';
import { SeriesLimitError } from './errors.js';
import { registerMetrics, type IngesterMetrics } from './ingester_metrics.js';
import { registerIngesterRpc } from './ingester_rpc.js';
import {
  pushSampleCount,
  type PushResult,
  type PushSeries,
  type PushSource,
} from './push_types.js';
import {
  TenantDBs,
  type TenantDBsConfig,
  type TenantLimits,
  type TenantStats,
} from './tenant_dbs.js';
import { MetadataStore, type MetadataLimits } from './metadata_store.js';
import { registerOldestUnshippedGauge } from './shipper_metrics.js';
import { DEFAULT_BLOCK_DISCOVERY } from './block_discovery.js';
import { newIngesterShipping, warnShippingDisabled, type BlockShipping } from './shipping.js';
import { IdleTsdbCloser } from './idle_tsdbs.js';

export interface IngesterConfig {
  tenantDBs: TenantDBsConfig;
  /** As the ring's LifecyclerConfig; `addr` '' means: use deps.transport.address at start. */
  lifecycler: LifecyclerConfig;
  /** `ingester.flush_on_shutdown_with_wal_enabled` (Cortex; also `tsdb.flush_blocks_on_shutdown`). */
  flushOnShutdown: boolean;
  /**
   * `ingester.lifecycler.min_ready_duration`: once ACTIVE, /ready still waits this long (ms)
   * after the first readiness check that passed (Cortex's CheckReady). Default 0.
   */
  minReadyDurationMs?: number;
  /**
   * `ingester.metadata_retain_period`: metric metadata not pushed again for this long (ms)
   * is forgotten. Default 10 minutes, as Cortex.
   */
  metadataRetainPeriodMs?: number;
  /**
   * `ingester.upload_compacted_blocks_enabled` (Cortex): ship blocks of compaction level > 1
   * found in the data directory too. Default true.
   */
  uploadCompactedBlocks?: boolean;
  /** `ingester.series_labels_cache_size`: the push decoder's label cache (ingester_rpc.ts); 0 = off. */
  seriesLabelsCacheEntries?: number;
}

/** How often forgotten metadata is looked for (Cortex's metadataPurgePeriod). */
export const METADATA_PURGE_PERIOD_MS = 5 * 60_000;
const DEFAULT_METADATA_RETAIN_PERIOD_MS = 10 * 60_000;

export interface IngesterDeps {
  fs: FileSystem;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: MetricsRegistry;
  /** RPC handlers are registered on it in the constructor; the app makes it listen. */
  transport: Transport;
  /** The ingester ring's KV (for the Lifecycler). */
  kv: KV;
  /** The ingester ring client, for the replication factor and healthy instance count. */
  ring: ReadRing;
  limits: TenantLimits & MetadataLimits;
  /**
   * The blocks bucket the shipper uploads to. Absent, or `tenantDBs.shipInterval` 0: no
   * shipping, and then no block is ever deleted locally.
   */
  bucket?: Bucket;
}

/** The ingester modes `/ingester/mode` switches between. */
export type IngesterMode = 'ACTIVE' | 'READONLY';

/** A tenant's stats on this ingester, with its loaded block count (`/ingester/all_user_stats`). */
export interface IngesterTenantStats {
  readonly tenant: string;
  readonly stats: TenantStats;
  readonly loadedBlocks: number;
}

export class Ingester extends BasicService {
  /** The tenants' databases; the app calls `dbs.applyOverrides()` on runtime-config reload. */
  readonly dbs: TenantDBs;
  /** Block shipping to the bucket; undefined when disabled. */
  readonly shipping: BlockShipping | undefined;
  /**
   * Closes and deletes the databases of tenants marked for deletion, and of idle ones with
   * `close_idle_tsdb_timeout`; undefined without shipping (Cortex never deletes local data then).
   */
  readonly idleCloser: IdleTsdbCloser | undefined;
  private ringLifecycler: Lifecycler | undefined;
  private registeredAddr: string | undefined;
  /** When readiness first passed every other check (min_ready_duration counts from here). */
  private readySince: number | undefined;
  /** Set by `/ingester/shutdown`: everything is refused from then on, and /ready fails. */
  private shutDown = false;
  private shutdownRun: Promise<void> | undefined;
  /** Whether leaving the ring flushes the heads (config, or forced by `/ingester/shutdown`). */
  private flushOnLeave: boolean;
  /** The leaving flush ran (shutdown then stop must not flush twice). */
  private flushed = false;
  /** Pushes in progress, which shutting down waits for before flushing and closing. */
  private readonly inflight = new Set<Promise<unknown>>();
  /** `/ingester/flush` runs started without `wait`, which shutting down waits for. */
  private readonly backgroundFlushes = new Set<Promise<void>>();
  private readonly logger: Logger;
  private readonly metrics: IngesterMetrics;
  private readonly metadataStore: MetadataStore;

  constructor(
    private readonly config: IngesterConfig,
    private readonly deps: IngesterDeps,
  ) {
    super('ingester', {
      starting: (signal) => this.starting(signal),
      running: (signal) => this.running(signal),
      stopping: () => this.stopping(),
      isReady: () => this.readiness(),
    });
    this.logger = deps.logger.child({ module: 'ingester' });
    this.flushOnLeave = config.flushOnShutdown;
    const ring = deps.ring;
    // Series and metadata limits turn global limits into this ingester's share alike.
    const shape = {
      replicationFactor: () => ring.replicationFactor,
      healthyInstances: () => ring.healthyInstancesCount(),
    };
    this.shipping = newIngesterShipping(
      {
        interval: config.tenantDBs.shipInterval,
        concurrency: config.tenantDBs.shipConcurrency,
        ingesterId: config.lifecycler.id,
        uploadCompacted: config.uploadCompactedBlocks,
        discovery: config.tenantDBs.discovery ?? DEFAULT_BLOCK_DISCOVERY,
      },
      {
        ...deps,
        bucket: deps.bucket,
        tenants: () => this.dbs.tenantIds(),
        ringState: () => this.ringLifecycler?.instanceState,
      },
    );
    this.dbs = new TenantDBs(config.tenantDBs, {
      fs: deps.fs,
      clock: deps.clock,
      random: deps.random,
      logger: deps.logger,
      limits: deps.limits,
      ring: shape,
      ...(this.shipping === undefined ? {} : { shipping: this.shipping }),
    });
    this.metadataStore = new MetadataStore(deps.limits, shape, deps.metrics);
    this.idleCloser =
      this.shipping === undefined
        ? undefined
        : new IdleTsdbCloser(
            { idleTimeoutMs: config.tenantDBs.closeIdleTimeout ?? 0 },
            {
              dbs: this.dbs,
              shipping: this.shipping,
              clock: deps.clock,
              logger: this.logger,
              metrics: deps.metrics,
              onRemoved: (tenant) => this.metadataStore.forgetTenant(tenant),
            },
          );
    this.metrics = registerMetrics(deps.metrics, this.dbs);
    registerOldestUnshippedGauge(deps.metrics, {
      tenantIds: () => this.dbs.tenantIds(),
      blockIds: (t) =>
        this.dbs
          .get(t)
          ?.blocks()
          .map((b) => b.meta.ulid) ?? [],
      isShipped: (t, ulid) => this.shipping?.isShipped(t, ulid) ?? false,
    });
    registerIngesterRpc(deps.transport, this, deps.clock, config.seriesLabelsCacheEntries);
  }

  /** The ring membership, once the ingester has started. */
  /** The address this ingester registered in the ring (set once it started). */
  get ringAddress(): string | undefined {
    return this.ringLifecycler === undefined ? undefined : this.registeredAddr;
  }

  get lifecycler(): Lifecycler | undefined {
    return this.ringLifecycler;
  }

  /** The ingester's clock reading (for its pages). */
  nowMs(): number {
    return this.deps.clock.now();
  }

  /** Whether `/ingester/shutdown` has been called. */
  get isShutDown(): boolean {
    return this.shutDown;
  }

  private async starting(signal: AbortSignal): Promise<void> {
    if (this.shipping === undefined)
      warnShippingDisabled(this.logger, this.deps.bucket !== undefined);
    // Tenants' databases open (and replay their WALs) before the instance joins the ring,
    // so that no write is routed here before the data already acknowledged is back.
    await this.dbs.start(signal);
    try {
      const addr = this.config.lifecycler.addr || this.deps.transport.address;
      if (addr === undefined || addr === '')
        throw new Error(
          'the ingester has no ring address: lifecycler addr is empty and the transport is not listening',
        );
      this.registeredAddr = addr;
      const lifecycler = new Lifecycler(
        { ...this.config.lifecycler, addr },
        {
          kv: this.deps.kv,
          clock: this.deps.clock,
          random: this.deps.random,
          fs: this.deps.fs,
          logger: this.deps.logger.child({ module: 'ingester-lifecycler' }),
          metrics: this.deps.metrics,
          onLeaving: () => this.onLeaving(),
        },
      );
      this.ringLifecycler = lifecycler;
      await lifecycler.start(signal);
    } catch (err) {
      await this.dbs.close();
      throw err;
    }
  }

  private async running(signal: AbortSignal): Promise<void> {
    const purge = this.deps.clock.every(METADATA_PURGE_PERIOD_MS, () => {
      this.purgeMetadata();
    });
    signal.addEventListener('abort', () => purge.cancel(), { once: true });
    this.shipping?.start(signal);
    this.idleCloser?.start(signal);
    // The ingester runs as long as its lifecycler does; a lifecycler failing on its own
    // (not stopped by shutdown) fails the ingester, as Cortex's subservice watcher does.
    await new Promise<void>((resolve, reject) => {
      if (signal.aborted) resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
      this.ringLifecycler?.onFailure((err) =>
        reject(new Error(`ingester lifecycler failed: ${err.message}`)),
      );
    });
  }

  private async stopping(): Promise<void> {
    // A shutdown under way finishes first; what is left (closing) is then a no-op.
    await this.shutdownRun?.catch(() => undefined);
    await this.leave(false);
  }

  private readiness(): string | undefined {
    if (this.shutDown) return 'the ingester has been shut down (/ingester/shutdown)';
    const lifecycler = this.ringLifecycler;
    if (lifecycler === undefined) return 'the ingester lifecycler has not started';
    const notReady = lifecycler.isReady();
    if (notReady !== undefined) return notReady;
    const minReady = this.config.minReadyDurationMs ?? 0;
    if (minReady <= 0) return undefined;
    const now = this.deps.clock.now();
    this.readySince ??= now;
    if (now - this.readySince < minReady)
      return `waiting for ${formatDuration(minReady)} after being ready (-ingester.min-ready-duration)`;
    return undefined;
  }

  /**
   * `/ingester/shutdown`: flushes every tenant's head into blocks, leaves the ring and removes
   * this instance from it even when unregister-on-shutdown is off, and closes the databases.
   * The service stays Running (the process stays alive) but refuses all requests, and /ready
   * fails from then on: the operator terminates the process.
   */
  shutdown(): Promise<void> {
    this.shutdownRun ??= this.leave(true);
    return this.shutdownRun;
  }

  private async leave(forced: boolean): Promise<void> {
    if (forced) {
      this.shutDown = true;
      this.flushOnLeave = true;
    }
    // Like Cortex, the shipping loop stops before the leaving flush; the flush ships itself.
    this.shipping?.stop();
    await this.idleCloser?.stop();
    const lifecycler = this.ringLifecycler;
    let failure: Error | undefined;
    if (lifecycler !== undefined) {
      try {
        if (forced) await lifecycler.forceUnregister();
        else await lifecycler.stop();
      } catch (err) {
        failure = err instanceof Error ? err : new Error('leaving the ring failed');
        this.logger.error('leaving the ring failed', { err: String(err) });
      }
    }
    // A lifecycler that never ran (or failed before LEAVING) has not flushed; flushing
    // still honours the setting.
    await this.settleInflight();
    if (lifecycler === undefined || lifecycler.state === 'Failed') await this.flushIfLeaving();
    while (this.backgroundFlushes.size > 0) await Promise.allSettled([...this.backgroundFlushes]);
    await this.shipping?.close();
    await this.dbs.close();
    if (failure !== undefined) throw failure;
  }

  /** Runs in LEAVING: after in-flight pushes finished, flush if configured or forced. */
  private async onLeaving(): Promise<void> {
    await this.settleInflight();
    await this.flushIfLeaving();
  }

  private async flushIfLeaving(): Promise<void> {
    if (!this.flushOnLeave || this.flushed) return;
    this.flushed = true;
    try {
      this.logger.info('flushing all tenants before leaving the ring');
      await this.flushAndShip(undefined);
    } catch (err) {
      this.logger.error('flush before leaving failed', { err: String(err) });
    }
  }

  private async settleInflight(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** Throws `unavailable` unless the ingester serves requests (Cortex's checkRunning). */
  checkRunning(): void {
    if (this.shutDown)
      throw new RpcError('unavailable', 'ingester has been shut down (/ingester/shutdown)');
    if (this.state !== 'Running') throw new RpcError('unavailable', `ingester is ${this.state}`);
  }

  /**
   * Appends a push for `tenant`. What the head accepts is committed even when the result
   * carries a `firstError` (the caller reports that as a 400 after the fact). Refused with
   * `unavailable` while not running, after shutdown, and in READONLY mode.
   */
  async push(
    tenant: string,
    series: readonly PushSeries[],
    source: PushSource,
    metadata: readonly MetricMetadata[] = [],
  ): Promise<PushResult> {
    this.checkRunning();
    if (this.ringLifecycler?.instanceState === 'READONLY')
      throw new RpcError(
        'unavailable',
        'ingester is in READONLY mode and refuses pushes; it still answers queries',
      );
    // Metadata over the limits is counted and dropped; it never fails the push (Cortex).
    if (metadata.length > 0) this.metadataStore.add(tenant, metadata, this.deps.clock.now());
    // A push of metadata only does not create the tenant's database.
    if (series.length === 0) return { appended: 0, rejections: [], firstError: undefined };
    const run = this.dbs.push(tenant, series, source);
    const tracked = run.catch(() => undefined);
    this.inflight.add(tracked);
    try {
      const result = await run;
      this.count(tenant, result);
      return result;
    } catch (err) {
      let total = 0;
      for (const s of series) total += pushSampleCount(s);
      this.metrics.failures.inc(total);
      throw err;
    } finally {
      this.inflight.delete(tracked);
    }
  }

  /** The tenant's metric metadata pushed within the retain period (Cortex MetricsMetadata). */
  metricsMetadata(tenant: string): MetricMetadata[] {
    this.checkRunning();
    return this.metadataStore.metadata(tenant);
  }

  /** Forgets metadata not pushed within the retain period; returns how many entries went. */
  purgeMetadata(): number {
    const retain = this.config.metadataRetainPeriodMs ?? DEFAULT_METADATA_RETAIN_PERIOD_MS;
    return this.metadataStore.purge(this.deps.clock.now() - retain);
  }

  private count(tenant: string, result: PushResult): void {
    this.metrics.ingested.inc(result.appended);
    let failed = 0;
    for (const r of result.rejections) {
      failed += r.samples;
      // Cortex's discard reasons: the limit kinds as they are, head refusals with dashes.
      const reason =
        r.error instanceof SeriesLimitError ? r.error.kind : r.error.code.replace(/_/g, '-');
      this.metrics.discarded.inc({ reason, user: tenant }, r.samples);
    }
    if (failed > 0) this.metrics.failures.inc(failed);
  }

  /**
   * Series of `tenant` matching every matcher with chunks overlapping [start, end], sorted by
   * labels unless `sorted` is false, their chunks still encoded (Cortex's QueryStream with
   * chunk streaming): the querier decodes only the samples inside the window. A tenant
   * without a database has none.
   */
  async queryStream(
    tenant: string,
    start: number,
    end: number,
    matchers: readonly Matcher[],
    signal?: AbortSignal,
    sorted = true,
  ): Promise<SeriesChunks[]> {
    const db = this.queriedDB(tenant, start, end);
    if (db === undefined) return [];
    // In slices: a select over thousands of series would otherwise hold up pushes.
    const pause = new Slicer(this.deps.clock);
    const out = await db.selectChunks(matchers, start, end, { pause, sorted });
    if (signal?.aborted === true) throw new RpcError('aborted', 'query aborted');
    let samples = 0;
    for (const s of out) for (const c of s.chunks) samples += rawChunkSamples(c);
    this.metrics.queriedSeries.observe(out.length);
    this.metrics.queriedSamples.observe(samples);
    return out;
  }

  /**
   * The labels of `tenant`'s series matching `matchers` with a sample in [start, end], sorted
   * (Cortex's MetricsForLabelMatchers: the series API without moving samples).
   */
  async seriesLabels(
    tenant: string,
    start: number,
    end: number,
    matchers: readonly Matcher[],
    signal?: AbortSignal,
  ): Promise<Labels[]> {
    const out: Labels[] = [];
    for (const s of await this.selectForQuery(tenant, start, end, matchers)) {
      if (signal?.aborted === true) throw new RpcError('aborted', 'query aborted');
      const it = s.iterator();
      const has = it.next() !== ValueType.None;
      const err = it.err();
      if (err !== null) throw err;
      if (has) out.push(s.labels);
    }
    this.metrics.queriedSeries.observe(out.length);
    return out;
  }

  /** A query RPC's series of `tenant` (none without a database: queries never create one). */
  private async selectForQuery(
    tenant: string,
    start: number,
    end: number,
    matchers: readonly Matcher[],
  ): Promise<DBSeries[]> {
    const db = this.queriedDB(tenant, start, end);
    return db === undefined ? [] : db.select(matchers, start, end);
  }

  /** The database a query RPC reads (counted as a query), none for an empty range. */
  private queriedDB(tenant: string, start: number, end: number) {
    this.checkRunning();
    this.metrics.queries.inc();
    const db = this.dbs.get(tenant);
    return db === undefined || start > end ? undefined : db;
  }

  /** Label names among `tenant`'s series matching `matchers` (all when empty) in [start, end]. */
  async labelNames(
    tenant: string,
    start: number,
    end: number,
    matchers: readonly Matcher[],
  ): Promise<string[]> {
    this.checkRunning();
    const db = this.dbs.get(tenant);
    if (db === undefined || start > end) return [];
    return db.querier(start, end).labelNames(matchers);
  }

  /** Values of `name` among `tenant`'s series matching `matchers` in [start, end]. */
  async labelValues(
    tenant: string,
    name: string,
    start: number,
    end: number,
    matchers: readonly Matcher[],
  ): Promise<string[]> {
    this.checkRunning();
    const db = this.dbs.get(tenant);
    if (db === undefined || start > end) return [];
    return db.querier(start, end).labelValues(name, matchers);
  }

  /** The tenant's realtime stats; zeros for a tenant without a database (as Cortex). */
  userStats(tenant: string): TenantStats {
    this.checkRunning();
    return (
      this.dbs.userStats(tenant) ?? {
        numSeries: 0,
        ingestionRate: 0,
        apiIngestionRate: 0,
        ruleIngestionRate: 0,
      }
    );
  }

  /** Every tenant with a database here, sorted by tenant. */
  allUserStats(): IngesterTenantStats[] {
    return this.dbs.allUserStats().map(({ tenant, stats }) => ({
      tenant,
      stats,
      loadedBlocks: this.dbs.get(tenant)?.blocks().length ?? 0,
    }));
  }

  /**
   * `/ingester/flush`: cuts the given tenants' heads (all when omitted) into blocks. Ignored
   * (logged) when the ingester is not running, as Cortex does; without `wait` it returns
   * at once and the flush runs on.
   */
  async flush(tenants: readonly string[] | undefined, wait: boolean): Promise<void> {
    if (this.shutDown || this.state !== 'Running') {
      this.logger.info('flushing TSDB blocks: ingester not running, ignoring flush request', {
        state: this.shutDown ? 'shut down' : this.state,
      });
      return;
    }
    this.logger.info('flushing TSDB blocks', { tenants: tenants ?? 'all', wait });
    const run = this.flushAndShip(tenants);
    if (wait) return run;
    const tracked = run
      .catch((err: unknown) =>
        this.logger.error('flushing TSDB blocks failed', { err: String(err) }),
      )
      .finally(() => this.backgroundFlushes.delete(tracked));
    this.backgroundFlushes.add(tracked);
  }

  /**
   * Cuts the tenants' heads into blocks (forced head compaction), then ships those tenants'
   * blocks when shipping is on (Cortex's FlushHandler and its shutdown Flush).
   */
  private async flushAndShip(tenants: readonly string[] | undefined): Promise<void> {
    await this.dbs.flush(tenants, true);
    if (this.shipping === undefined) return;
    this.logger.info('flushing TSDB blocks: triggering shipping', { tenants: tenants ?? 'all' });
    await this.shipping.ship(tenants);
    this.logger.info('shipping of TSDB blocks finished');
  }

  /** `/ingester/mode`: switches the ring state; answers the state the instance is now in. */
  async setMode(mode: IngesterMode): Promise<string> {
    const lifecycler = this.ringLifecycler;
    if (lifecycler === undefined || this.shutDown || this.state !== 'Running')
      throw new Error(
        `the ingester is ${this.shutDown ? 'shut down' : this.state}, its mode cannot change`,
      );
    await lifecycler.setMode(mode);
    return lifecycler.instanceState;
  }
}
