// The ingester's storage: one TSDB per tenant under `<tsdb.dir>/<tenant>` (Cortex's
// userTSDB set). A tenant's database is created on its first push (reference States:
// absent → present) or opened at startup when its directory exists; pushes append a batch
// in one appender, keep what the head accepts and report the rest per series; the
// head-compaction loop and flush cut blocks; per-tenant stats feed the user-stats pages.
// A tenant's database can be closed and its directory deleted (idle_tsdbs.ts decides when):
// while that runs pushes are refused and queries see no database; a later push creates a
// fresh one.
import type { TsdbConfig } from '../config/index.js';
import type { Labels } from '../model/index.js';
import type { Clock, FileSystem, Logger, Random, Timer } from '../runtime/index.js';
import { BadDataError } from '../server/index.js';
import { SampleRejectedError, TSDB, type TSDBConfig } from '../tsdb/index.js';
import { forEachBounded } from './bounded.js';
import {
  pushSampleCount,
  sampleTimestamp,
  type PushRejection,
  type PushResult,
  type PushSeries,
  type PushSample,
  type PushSource,
} from './push_types.js';
import { SeriesLimitError, sampleErrorMessage } from './errors.js';
import { DEFAULT_RATE_WINDOW_MS, IngestionRate } from './ingestion_rate.js';
import { SeriesLimiter, type RingShape, type SeriesLimits } from './series_limiter.js';
import type { BlockDiscoveryConfig } from './block_discovery.js';
import type { BlockShipState } from './shipping.js';
import {
  REMOVED_TENANT_DIR_PREFIX,
  closingError,
  removeTenantDatabase,
  track,
  type TenantRemoval,
} from './tenant_removal.js';

export interface TenantDBsConfig {
  /** `tsdb.dir`: tenants' databases live in its subdirectories. */
  dir: string;
  /** `tsdb.block_ranges_period`, ms. */
  blockRanges: readonly number[];
  /**
   * `tsdb.retention_period`, ms: a block shipped to the bucket is deleted locally once its
   * max time is this far behind now (or behind the newest block). Never an unshipped block.
   */
  retention: number;
  /** `tsdb.ship_interval`, ms; 0 disables shipping (default 1m). Read by the Ingester. */
  shipInterval?: number;
  /** `tsdb.ship_concurrency`: tenants shipping at once (default 10). Read by the Ingester. */
  shipConcurrency?: number;
  /** How queriers find shipped blocks (`tsdb.bucket_store`); default: Cortex's defaults. Read by the Ingester. */
  discovery?: BlockDiscoveryConfig;
  /** `tsdb.head_compaction_interval`, ms. */
  headCompactionInterval: number;
  /** `tsdb.head_compaction_concurrency`: tenants compacted at once. */
  headCompactionConcurrency: number;
  /** `tsdb.max_tsdb_opening_concurrency_on_startup`. */
  openingConcurrency: number;
  /** `tsdb.stripe_size`. */
  stripeSize: number;
  /** `tsdb.wal_compression_enabled`. */
  walCompression: boolean;
  /** Window of the ingestion rate in the user stats, ms (default 1m). */
  rateWindow?: number;
  /**
   * `tsdb.close_idle_tsdb_timeout`, ms: a tenant without pushes this long whose data is all
   * shipped has its database closed and deleted; 0 never (default). Read by the Ingester.
   */
  closeIdleTimeout?: number;
}

/** The settings of `tsdb` this module uses, from the loaded config. */
export function tenantDBsConfigFrom(tsdb: TsdbConfig): TenantDBsConfig {
  return {
    dir: tsdb.dir,
    blockRanges: tsdb.block_ranges_period,
    retention: tsdb.retention_period,
    shipInterval: tsdb.ship_interval,
    shipConcurrency: tsdb.ship_concurrency,
    discovery: {
      bucketIndexEnabled: tsdb.bucket_store.bucket_index.enabled,
      syncIntervalMs: tsdb.bucket_store.sync_interval,
      consistencyDelayMs: tsdb.bucket_store.consistency_delay,
      updateOnErrorIntervalMs: tsdb.bucket_store.bucket_index.update_on_error_interval,
    },
    headCompactionInterval: tsdb.head_compaction_interval,
    headCompactionConcurrency: tsdb.head_compaction_concurrency,
    openingConcurrency: tsdb.max_tsdb_opening_concurrency_on_startup,
    stripeSize: tsdb.stripe_size,
    walCompression: tsdb.wal_compression_enabled,
    closeIdleTimeout: tsdb.close_idle_tsdb_timeout,
  };
}

/** Per-tenant limits this module reads; `Overrides` satisfies it. */
export interface TenantLimits extends SeriesLimits {
  outOfOrderTimeWindow(tenant: string): number;
}

export interface TenantDBsDeps {
  fs: FileSystem;
  clock: Clock;
  /** Block ULID entropy: each tenant draws from its own stream (`tsdb-ulid/<tenant>`). */
  random: Random;
  logger: Logger;
  limits: TenantLimits;
  /** Replication factor and healthy ingesters, for the global-to-local limit conversion. */
  ring: RingShape;
  /**
   * Which blocks are in the bucket. Absent (shipping disabled): no block is ever deleted
   * locally, since nothing else holds its data.
   */
  shipping?: BlockShipState;
}

/** A tenant's realtime stats (Cortex UserStats). */
export interface TenantStats {
  readonly numSeries: number;
  /** Samples per second over the rate window, all sources. */
  readonly ingestionRate: number;
  readonly apiIngestionRate: number;
  readonly ruleIngestionRate: number;
}

interface TenantState {
  readonly db: TSDB;
  readonly apiRate: IngestionRate;
  readonly ruleRate: IngestionRate;
  /** Pushes that may create series run one at a time per tenant (see push). */
  creation: Promise<unknown>;
  /** The out-of-order window the database runs with. */
  oooWindow: number;
  /** When the tenant last pushed (ms); opening counts as a push (Cortex's lastUpdate). */
  lastUpdate: number;
  /** Being closed and deleted: pushes are refused, queries and stats see no database. */
  closing: boolean;
  /** Pushes and head compactions under way, which closing waits for. */
  readonly busy: Set<Promise<unknown>>;
}

/** Limits in force for one push that may create series. */
interface CreationLimits {
  readonly userLimit: number;
  readonly metricLimit: number;
  /** Series per metric name in the head for the metrics this push may add to. */
  readonly perMetric: Map<string, number>;
}

const METRIC_NAME = '__name__';

export class TenantDBs {
  private readonly tenants = new Map<string, TenantState>();
  /** Databases being opened or created, so concurrent first pushes share one open. */
  private readonly opening = new Map<string, Promise<TenantState>>();
  private readonly limiter: SeriesLimiter;
  private readonly root: string;
  private readonly logger: Logger;
  private timer: Timer | undefined;
  /** Flushes started without `wait`, which close still waits for. */
  private readonly background = new Set<Promise<void>>();
  /** Databases being closed and deleted, which close waits for. */
  private readonly removals = new Set<Promise<unknown>>();
  private closed = false;

  constructor(
    private readonly config: TenantDBsConfig,
    private readonly deps: TenantDBsDeps,
  ) {
    for (const [name, v] of [
      ['head compaction interval', config.headCompactionInterval],
      ['head compaction concurrency', config.headCompactionConcurrency],
      ['tsdb opening concurrency', config.openingConcurrency],
    ] as const)
      if (!Number.isSafeInteger(v) || v <= 0)
        throw new RangeError(`${name} must be a positive integer, got ${v}`);
    this.root = config.dir.replace(/\/+$/, '') || '.';
    this.limiter = new SeriesLimiter(deps.limits, deps.ring);
    this.logger = deps.logger.child({ module: 'ingester-tsdb' });
  }

  /**
   * Opens every tenant database found under the data directory (WAL replay happens in the
   * open), at most `openingConcurrency` at a time, then starts the head-compaction loop.
   * Throws if any database fails to open (as Cortex refuses to start).
   */
  async start(signal?: AbortSignal): Promise<void> {
    this.checkOpen();
    await this.openExisting();
    if (this.timer !== undefined || signal?.aborted === true) return;
    this.timer = this.deps.clock.every(this.config.headCompactionInterval, () =>
      this.compactHeads(),
    );
    signal?.addEventListener('abort', () => this.stopLoop(), { once: true });
  }

  /** Tenants with a database (not being closed), sorted. */
  tenantIds(): string[] {
    return [...this.tenants.entries()]
      .filter(([, s]) => !s.closing)
      .map(([t]) => t)
      .sort();
  }

  /** The tenant's database if it exists and is not being closed (never creates one). */
  get(tenant: string): TSDB | undefined {
    const state = this.tenants.get(tenant);
    return state === undefined || state.closing ? undefined : state.db;
  }

  /** When the tenant last pushed (ms), or undefined without an open database. */
  lastUpdate(tenant: string): number | undefined {
    const state = this.tenants.get(tenant);
    return state === undefined || state.closing ? undefined : state.lastUpdate;
  }

  /** The tenant's database, created (or opened) on first use; concurrent callers share it. */
  async getOrCreate(tenant: string): Promise<TSDB> {
    const state = await this.state(tenant);
    if (state.closing) throw closingError(tenant);
    return state.db;
  }

  /**
   * Appends a batch for a tenant in one appender and commits it. Samples the head refuses
   * (ingestion window, out of order, duplicate timestamp) and new series beyond the tenant's
   * limits are reported in the result; everything else is committed, as Cortex does.
   * Storage failures (WAL write) reject, and then nothing of the batch was committed.
   */
  async push(
    tenant: string,
    series: readonly PushSeries[],
    source: PushSource = 'api',
  ): Promise<PushResult> {
    const state = await this.state(tenant);
    // Checked after the await and registered before the next one, so closing sees every push.
    if (state.closing) throw closingError(tenant);
    state.lastUpdate = this.deps.clock.now();
    return track(state.busy, this.pushTo(tenant, state, series, source));
  }

  private pushTo(
    tenant: string,
    state: TenantState,
    series: readonly PushSeries[],
    source: PushSource,
  ): Promise<PushResult> {
    const head = state.db.head;
    const userLimit = this.limiter.localSeriesPerUser(tenant);
    const metricLimit = this.limiter.localSeriesPerMetric(tenant);
    const limited = userLimit > 0 || metricLimit > 0;
    // Without limits, or when every series exists, nothing is created: append at once.
    // Otherwise pushes that create series go one at a time, so that series counted for
    // the limit are not also being created by another push awaiting its commit.
    if (
      !limited ||
      series.every((s) => pushSampleCount(s) === 0 || head.seriesByLabels(s.labels) !== undefined)
    )
      return this.appendBatch(tenant, state, series, source, undefined);
    const run = state.creation.then(async () => {
      const perMetric = new Map<string, number>();
      if (metricLimit > 0)
        for (const s of series) {
          const name = s.labels.get(METRIC_NAME);
          if (perMetric.has(name) || head.seriesByLabels(s.labels) !== undefined) continue;
          perMetric.set(name, (await head.postings(METRIC_NAME, name)).length);
        }
      return this.appendBatch(tenant, state, series, source, { userLimit, metricLimit, perMetric });
    });
    state.creation = run.catch(() => undefined);
    return run;
  }

  private async appendBatch(
    tenant: string,
    state: TenantState,
    series: readonly PushSeries[],
    source: PushSource,
    limits: CreationLimits | undefined,
  ): Promise<PushResult> {
    const head = state.db.head;
    const app = state.db.appender();
    const rejections: PushRejection[] = [];
    /** Series this batch creates, by their label string. */
    const created = new Set<string>();
    try {
      for (let i = 0; i < series.length; i++) {
        const s = series[i] as PushSeries;
        const n = pushSampleCount(s);
        if (n === 0) continue;
        const objects = 'samples' in s ? s.samples : undefined;
        const columns = 'samples' in s ? undefined : s;
        let isNew = false;
        let key = '';
        if (limits !== undefined && head.seriesByLabels(s.labels) === undefined) {
          key = s.labels.toString();
          isNew = !created.has(key);
          if (isNew) {
            const refusal = this.limitRefusal(
              tenant,
              s.labels,
              head.seriesCount() + created.size,
              limits,
            );
            if (refusal !== undefined) {
              rejections.push({
                series: i,
                timestamp: sampleTimestamp(objects, columns, 0),
                samples: n,
                error: refusal,
                message: refusal.message,
              });
              continue;
            }
          }
        }
        let target: Labels | number = s.labels;
        let accepted = false;
        for (let k = 0; k < n; k++) {
          const timestamp = sampleTimestamp(objects, columns, k);
          const value =
            columns !== undefined
              ? (columns.values[columns.start + k] as number)
              : (objects?.[k] as PushSample).value;
          try {
            target = app.append(target, timestamp, value);
            accepted = true;
          } catch (err) {
            if (!(err instanceof SampleRejectedError)) throw err;
            rejections.push({
              series: i,
              timestamp,
              samples: 1,
              error: err,
              message: sampleErrorMessage(err, timestamp, s.labels),
            });
          }
        }
        // A new series is created only if one of its samples was accepted.
        if (isNew && accepted) {
          created.add(key);
          const name = s.labels.get(METRIC_NAME);
          limits?.perMetric.set(name, (limits.perMetric.get(name) ?? 0) + 1);
        }
      }
    } catch (err) {
      app.rollback();
      throw err;
    }
    const { appended } = await app.commit();
    (source === 'rule' ? state.ruleRate : state.apiRate).add(this.deps.clock.now(), appended);
    const first = rejections[0];
    return {
      appended,
      rejections,
      firstError:
        first === undefined ? undefined : new BadDataError(`user=${tenant}: ${first.message}`),
    };
  }

  /** Cortex's PreCreation check: the limit a new series would break, if any. */
  private limitRefusal(
    tenant: string,
    labels: Labels,
    seriesNow: number,
    limits: CreationLimits,
  ): SeriesLimitError | undefined {
    if (limits.userLimit > 0 && seriesNow >= limits.userLimit)
      return new SeriesLimitError(
        'per_user_series_limit',
        this.limiter.globalSeriesPerUser(tenant),
        limits.userLimit,
        labels,
      );
    if (
      limits.metricLimit > 0 &&
      (limits.perMetric.get(labels.get(METRIC_NAME)) ?? 0) >= limits.metricLimit
    )
      return new SeriesLimitError(
        'per_metric_series_limit',
        this.limiter.globalSeriesPerMetric(tenant),
        limits.metricLimit,
        labels,
      );
    return undefined;
  }

  /**
   * Re-applies per-tenant overrides to open databases (the wiring calls it after a runtime
   * config reload): each tenant's `out_of_order_time_window` where it changed.
   */
  applyOverrides(): void {
    for (const [tenant, state] of this.tenants) {
      const window = this.deps.limits.outOfOrderTimeWindow(tenant);
      if (window === state.oooWindow || state.closing) continue;
      state.db.setOutOfOrderTimeWindow(window);
      state.oooWindow = window;
      this.logger.info('out-of-order time window changed', { tenant, window });
    }
  }

  /**
   * One round of the head-compaction loop: every tenant's head, at most
   * `headCompactionConcurrency` at a time; the database cuts blocks only once its head is
   * compactable, or everything with `force` (flush). A failing tenant is logged and does
   * not stop the others.
   */
  async compactHeads(tenants?: readonly string[], force = false): Promise<void> {
    const states = this.selected(tenants);
    await forEachBounded(states, this.config.headCompactionConcurrency, async ([tenant, state]) => {
      if (state.closing) return;
      try {
        await track(state.busy, state.db.compactHead({ force }));
      } catch (err) {
        this.logger.error('head compaction failed', { tenant, err: String(err) });
      }
    });
  }

  /**
   * `/ingester/flush`: cuts all in-memory data of the given tenants (all when omitted)
   * into blocks, however short their heads are (forced head compaction, as Cortex's
   * `compactBlocks(force=true)`). With `wait` false it returns at once and the compaction
   * runs on (close waits for it).
   */
  async flush(tenants?: readonly string[], wait = true): Promise<void> {
    this.checkOpen();
    const run = this.compactHeads(tenants, true);
    if (wait) return run;
    const tracked = run.finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** A tenant's stats; undefined for a tenant without a database. */
  userStats(tenant: string): TenantStats | undefined {
    const state = this.tenants.get(tenant);
    if (state === undefined || state.closing) return undefined;
    const now = this.deps.clock.now();
    const api = state.apiRate.perSecond(now);
    const rule = state.ruleRate.perSecond(now);
    return {
      numSeries: state.db.head.seriesCount(),
      ingestionRate: api + rule,
      apiIngestionRate: api,
      ruleIngestionRate: rule,
    };
  }

  /** Every tenant's stats, sorted by tenant (`/ingester/all_user_stats`). */
  allUserStats(): { tenant: string; stats: TenantStats }[] {
    return this.tenantIds().map((tenant) => ({
      tenant,
      stats: this.userStats(tenant) as TenantStats,
    }));
  }

  /** Stops the loop, waits for opens and background flushes, and closes every database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopLoop();
    await Promise.allSettled([...this.opening.values(), ...this.background, ...this.removals]);
    const states = [...this.tenants.values()];
    this.tenants.clear();
    await forEachBounded(states, this.config.openingConcurrency, (s) => s.db.close());
  }

  private stopLoop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  private selected(tenants: readonly string[] | undefined): [string, TenantState][] {
    const all = tenants === undefined ? [...this.tenants.keys()] : new Set(tenants);
    const out: [string, TenantState][] = [];
    for (const t of all) {
      const s = this.tenants.get(t);
      if (s !== undefined && !s.closing) out.push([t, s]);
    }
    return out;
  }

  /**
   * Cortex's closeAndDeleteUserTSDBIfIdle, the mechanics: refuses the tenant's pushes, waits
   * for pushes and head compactions under way, asks `stillWanted` again (things may have
   * changed meanwhile), closes the database and deletes its directory, then forgets the
   * tenant, so that its next push creates a fresh database. The directory is first renamed
   * to a `~deleting-` name, so a crash mid-delete leaves nothing that opens as a tenant.
   */
  async closeAndRemove(tenant: string, stillWanted: () => boolean): Promise<TenantRemoval> {
    const state = this.tenants.get(tenant);
    if (state === undefined || state.closing || this.closed) return 'not_active';
    state.closing = true;
    const run = removeTenantDatabase(tenant, state, stillWanted, {
      fs: this.deps.fs,
      root: this.root,
      logger: this.logger,
      forget: () => {
        // Shipping first: a push right after must find neither the old state nor its shipper.
        this.deps.shipping?.forgetTenant?.(tenant);
        this.tenants.delete(tenant);
      },
    });
    this.removals.add(run);
    try {
      return await run;
    } finally {
      this.removals.delete(run);
    }
  }

  private async openExisting(): Promise<void> {
    if (!(await this.deps.fs.exists(this.root))) return;
    const names: string[] = [];
    for (const name of await this.deps.fs.readdir(this.root)) {
      if (name.startsWith(REMOVED_TENANT_DIR_PREFIX)) {
        // A deletion a crash interrupted: finish it.
        this.logger.info('deleting the rest of a closed TSDB', { dir: name });
        await this.deps.fs.remove(`${this.root}/${name}`, { recursive: true });
        continue;
      }
      if (tenantDirProblem(name) !== undefined) continue;
      if ((await this.deps.fs.stat(`${this.root}/${name}`))?.isDirectory === true) names.push(name);
    }
    await forEachBounded(names, this.config.openingConcurrency, async (tenant) => {
      await this.state(tenant);
    });
    this.logger.info('tenant databases opened', { tenants: names.length });
  }

  private state(tenant: string): Promise<TenantState> {
    const existing = this.tenants.get(tenant);
    if (existing !== undefined) return Promise.resolve(existing);
    this.checkOpen();
    const problem = tenantDirProblem(tenant);
    if (problem !== undefined) return Promise.reject(new BadDataError(problem));
    let pending = this.opening.get(tenant);
    if (pending === undefined) {
      pending = this.open(tenant).finally(() => this.opening.delete(tenant));
      this.opening.set(tenant, pending);
    }
    return pending;
  }

  private async open(tenant: string): Promise<TenantState> {
    const oooWindow = this.deps.limits.outOfOrderTimeWindow(tenant);
    const dir = `${this.root}/${tenant}`;
    const shipping = this.deps.shipping;
    // The record of shipped blocks is loaded before retention can first ask about a block.
    await shipping?.openTenant(tenant, dir);
    const db = await TSDB.open(
      dir,
      {
        blockRanges: this.config.blockRanges,
        ...(shipping === undefined ? {} : { blockDeletable: this.retention(tenant, shipping) }),
        stripeSize: this.config.stripeSize,
        walCompression: this.config.walCompression,
        outOfOrderTimeWindow: oooWindow,
        // Cortex's shipper labels blocks with the tenant; queriers rely on it.
        blockLabels: { __org_id__: tenant },
      },
      {
        fs: this.deps.fs,
        clock: this.deps.clock,
        random: this.deps.random.stream(`tsdb-ulid/${tenant}`),
        logger: this.logger.child({ tenant }),
      },
    );
    if (this.closed) {
      await db.close();
      throw new Error(`tenant databases are closed (tenant ${tenant})`);
    }
    const window = this.config.rateWindow ?? DEFAULT_RATE_WINDOW_MS;
    const state: TenantState = {
      db,
      apiRate: new IngestionRate(window),
      ruleRate: new IngestionRate(window),
      creation: Promise.resolve(),
      oooWindow,
      lastUpdate: this.deps.clock.now(),
      closing: false,
      busy: new Set(),
    };
    this.tenants.set(tenant, state);
    return state;
  }

  /**
   * Cortex's rule for deleting a tenant's local block (userTSDB.blocksToDelete): it must be
   * shipped, and its max time at least `retention` behind now or behind the newest block
   * (Prometheus's BeyondTimeRetention, which Cortex keeps). Whatever the clock says, a block
   * that is not in the bucket stays; and, beyond Cortex, so does one queriers cannot find
   * there yet (block_discovery.ts), so a late-shipped block never drops out of queries.
   */
  private retention(
    tenant: string,
    shipping: BlockShipState,
  ): NonNullable<TSDBConfig['blockDeletable']> {
    const retention = this.config.retention;
    return (meta, view) =>
      shipping.isShipped(tenant, meta.ulid) &&
      shipping.isDiscoverable(tenant, meta.ulid) &&
      (this.deps.clock.now() - meta.maxTime >= retention ||
        view.newestMaxTime - meta.maxTime >= retention);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('tenant databases are closed');
  }
}

/** Why a tenant ID cannot name a directory under the data directory, if it cannot. */
export function tenantDirProblem(tenant: string): string | undefined {
  if (
    tenant === '' ||
    tenant === '.' ||
    tenant === '..' ||
    tenant.includes('/') ||
    tenant.includes('\0')
  )
    return `tenant ID ${JSON.stringify(tenant)} cannot name a TSDB directory`;
  return undefined;
}
