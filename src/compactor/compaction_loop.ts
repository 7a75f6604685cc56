/**
 * The compaction runs (Cortex's Compactor.running and compactUsers). The first run starts
 * after a random 0–10% of `compaction_interval`, so compactors started together do not start
 * together; each later run is due `compaction_interval` plus a fresh 0–10% after the start
 * of the previous one (at once when a run overran). A run lists the bucket's tenants,
 * shuffles them (seeded), and compacts them one after the other. Before each tenant it checks
 * again that this compactor owns it and that it is not being deleted (nor blocked by a
 * customer-managed-key error); each tenant gets `compaction_retries` attempts with backoff
 * (10s doubling to 1m) unless it halts. One tenant's failure never stops the others.
 *
 * The work directory `<data_dir>/compact` is wiped before the first run and each tenant's part
 * after it, so nothing a crash left behind is ever mistaken for work in progress.
 */
import { readSyncStatus, listTenants, tenantDeletionMarkExists } from '../bucket/index.js';
import {
  isAbortError,
  type Bucket,
  type Clock,
  type FileSystem,
  type Logger,
  type MetricsRegistry,
  type Random,
  type RandomStream,
} from '../runtime/index.js';
import { CompactionHaltError, TenantNotOwnedError, errorMessage } from './compaction_errors.js';
import { compactionMetrics, type CompactionMetrics } from './compaction_metrics.js';
import { DefaultGrouper, type Grouper } from './grouper.js';
import { DefaultPlanner, type Planner } from './planner.js';
import { compactTenant, type TenantCompactionResult } from './tenant_compactor.js';

export interface CompactionConfig {
  /** `-compactor.block-ranges` in ms (2h, 12h, 24h). */
  blockRangesMs: number[];
  /** `-compactor.block-sync-concurrency` (20): block files downloaded at once. */
  blockSyncConcurrency: number;
  /** `-compactor.meta-sync-concurrency` (20): meta.json and mark reads at once. */
  metaSyncConcurrency: number;
  /** `-compactor.consistency-delay` (0). */
  consistencyDelayMs: number;
  /** `-compactor.compaction-interval` (1h). */
  compactionIntervalMs: number;
  /** `-compactor.compaction-retries` (3): attempts per tenant and run. */
  compactionRetries: number;
  /** `-compactor.compaction-concurrency` (1): groups of a tenant compacted at once. */
  compactionConcurrency: number;
  /** `-compactor.skip-blocks-with-out-of-order-chunks-enabled` (false). */
  skipBlocksWithOutOfOrderChunksEnabled: boolean;
  /** Thanos's total index size limit per compaction; 0 or absent: none (Cortex). */
  maxBlockIndexSizeBytes?: number;
  /** Retry backoff bounds (Cortex: 10s and 1m, fixed). */
  retryMinBackoffMs?: number;
  retryMaxBackoffMs?: number;
}

/**
 * How a tenant's blocks are grouped and planned: where a sharding strategy plugs in (Cortex's
 * BlocksGrouperFactory and PlannerFactory). The default is Thanos's grouper and planner.
 */
export interface CompactionStrategy {
  grouper(tenant: string): Grouper;
  planner(tenant: string): Planner;
  /** Called after each compaction attempt of `tenant` (the shuffle strategy stops its visit-marker heartbeats). */
  finished?(tenant: string): void;
}

export function defaultCompactionStrategy(config: CompactionConfig): CompactionStrategy {
  const grouper = new DefaultGrouper();
  const planner = new DefaultPlanner({
    blockRangesMs: config.blockRangesMs,
    maxBlockIndexSizeBytes: config.maxBlockIndexSizeBytes ?? 0,
  });
  return { grouper: () => grouper, planner: () => planner };
}

export interface CompactionLoopDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: MetricsRegistry;
  /** Whether this compactor compacts the tenant now; a throw skips it (logged). */
  ownsTenant: (tenant: string) => boolean;
  strategy?: CompactionStrategy;
  /** Wraps each scheduled run (the component counts runs in flight with it). */
  track?: <T>(run: Promise<T>) => Promise<T>;
}

/** What one run did with each tenant. */
export interface CompactionRunResult {
  succeeded: string[];
  failed: string[];
  skipped: string[];
  interrupted: boolean;
}

const SECOND = 1000;

export class CompactionLoop {
  readonly metrics: CompactionMetrics;
  private readonly logger: Logger;
  private readonly strategy: CompactionStrategy;
  private readonly jitter: RandomStream;
  private readonly shuffle: RandomStream;
  private readonly backoff: RandomStream;
  private readonly ulids: RandomStream;

  constructor(
    private readonly config: CompactionConfig & { dataDir: string },
    private readonly deps: CompactionLoopDeps,
  ) {
    for (const [name, v] of [
      ['compaction interval', config.compactionIntervalMs],
      ['compaction retries', config.compactionRetries],
      ['compaction concurrency', config.compactionConcurrency],
      ['block sync concurrency', config.blockSyncConcurrency],
      ['meta sync concurrency', config.metaSyncConcurrency],
    ] as const) {
      if (!(v > 0)) throw new RangeError(`${name} must be > 0, got ${v}`);
    }
    this.metrics = compactionMetrics(deps.metrics);
    this.logger = deps.logger.child({ component: 'compactor' });
    this.strategy = deps.strategy ?? defaultCompactionStrategy(config);
    this.jitter = deps.random.stream('compactor-compaction-jitter');
    this.shuffle = deps.random.stream('compactor-tenant-shuffle');
    this.backoff = deps.random.stream('compactor-retry-backoff');
    this.ulids = deps.random.stream('compactor-block-ulid');
    this.metrics.interval.set(config.compactionIntervalMs / SECOND);
    this.metrics.consistencyDelay.set(config.consistencyDelayMs / SECOND);
  }

  private get workRoot(): string {
    return `${this.config.dataDir}/compact`;
  }

  /** Runs compactions on schedule until `signal` aborts; resolves then. */
  async run(signal: AbortSignal): Promise<void> {
    const { clock, fs } = this.deps;
    try {
      await fs.remove(this.workRoot, { recursive: true });
      let due = clock.now() + this.jittered(0);
      for (;;) {
        await clock.sleep(Math.max(0, due - clock.now()), signal);
        const started = clock.now();
        const run = this.runOnce(signal);
        await (this.deps.track?.(run) ?? run);
        due = started + this.jittered(this.config.compactionIntervalMs);
      }
    } catch (err) {
      if (!signal.aborted || !isAbortError(err)) throw err;
    }
  }

  /** `base` plus a random 0–10% of the compaction interval. */
  private jittered(base: number): number {
    return base + Math.floor(this.jitter.next() * 0.1 * this.config.compactionIntervalMs);
  }

  /** One run over every tenant (Cortex's compactUsers). */
  async runOnce(signal: AbortSignal): Promise<CompactionRunResult> {
    const m = this.metrics;
    const result: CompactionRunResult = {
      succeeded: [],
      failed: [],
      skipped: [],
      interrupted: false,
    };
    let failed = false;
    m.runsStarted.inc();
    try {
      let tenants: string[];
      try {
        tenants = await this.withRetries(() => listTenants(this.deps.bucket), signal);
      } catch (err) {
        if (signal.aborted) {
          result.interrupted = true;
          return result;
        }
        failed = true;
        this.logger.error('failed to discover users from bucket', { err: errorMessage(err) });
        return result;
      }
      m.tenantsDiscovered.set(tenants.length);
      this.shuffleInPlace(tenants);
      for (const tenant of tenants) {
        if (signal.aborted) {
          result.interrupted = true;
          break;
        }
        const outcome = await this.compactTenantIfOwned(tenant, signal);
        if (signal.aborted) {
          result.interrupted = true;
          break;
        }
        result[outcome].push(tenant);
        if (outcome === 'failed') failed = true;
        if (outcome === 'skipped') m.tenantsSkipped.inc();
        if (outcome === 'succeeded') m.tenantsSucceeded.inc();
        if (outcome === 'failed') m.tenantsFailed.inc();
      }
      return result;
    } finally {
      if (result.interrupted) m.runsInterrupted.inc();
      if (failed) m.runsFailed.inc();
      if (!failed && !result.interrupted) {
        m.runsCompleted.inc();
        m.runsLastSuccess.set(this.deps.clock.now() / SECOND);
      }
      for (const g of [
        m.tenantsDiscovered,
        m.tenantsSkipped,
        m.tenantsSucceeded,
        m.tenantsFailed,
      ]) {
        g.set(0);
      }
    }
  }

  private async compactTenantIfOwned(
    tenant: string,
    signal: AbortSignal,
  ): Promise<'succeeded' | 'failed' | 'skipped'> {
    const log = this.logger.child({ user: tenant });
    if (!this.owned(tenant, log)) return 'skipped';
    try {
      const status = await readSyncStatus(this.deps.bucket, tenant).catch(() => undefined);
      if (status?.status === 'CustomerManagedKeyError') {
        log.info('skipping compactUser due CustomerManagedKeyError');
        return 'skipped';
      }
      if (await tenantDeletionMarkExists(this.deps.bucket, tenant)) {
        log.debug('skipping user because it is marked for deletion');
        return 'skipped';
      }
    } catch (err) {
      log.warn('unable to check if user is marked for deletion', { err: errorMessage(err) });
      return 'skipped';
    }
    log.info('starting compaction of user blocks');
    try {
      const done = await this.compactTenantWithRetries(tenant, signal);
      log.info('successfully compacted user blocks', { blocks: done.compacted.length });
      return 'succeeded';
    } catch (err) {
      if (signal.aborted) {
        log.info('interrupting compaction of user blocks');
        return 'skipped';
      }
      if (err instanceof TenantNotOwnedError) {
        log.info('user no longer owned by this shard; abandoning its compaction');
        return 'skipped';
      }
      log.error('failed to compact user blocks', { err: errorMessage(err) });
      return 'failed';
    } finally {
      await this.deps.fs
        .remove(`${this.workRoot}/${tenant}`, { recursive: true })
        .catch(() => undefined);
    }
  }

  private owned(tenant: string, log: Logger): boolean {
    try {
      if (this.deps.ownsTenant(tenant)) return true;
      log.debug('skipping user because it is not owned by this shard');
    } catch (err) {
      log.warn('unable to check if user is owned by this shard', { err: errorMessage(err) });
    }
    return false;
  }

  /** Compacts one tenant now, with Cortex's retries (a halt or a move stops them). */
  async compactTenantWithRetries(
    tenant: string,
    signal: AbortSignal,
  ): Promise<TenantCompactionResult> {
    const m = this.metrics;
    return this.withRetries(
      () =>
        compactTenant(
          tenant,
          { ...this.config, workDir: `${this.workRoot}/${tenant}` },
          {
            ...this.deps,
            random: this.ulids,
            logger: this.logger.child({ user: tenant }),
            metrics: m,
            grouper: this.strategy.grouper(tenant),
            planner: this.strategy.planner(tenant),
          },
          signal,
        ).finally(() => this.strategy.finished?.(tenant)),
      signal,
      (err) => {
        if (err instanceof TenantNotOwnedError) return false;
        const halt = err instanceof CompactionHaltError;
        m.compactionErrors.inc({ user: tenant, type: halt ? 'halt' : 'retriable' });
        if (halt)
          this.logger.error('compactor returned critical error', {
            user: tenant,
            err: err.message,
          });
        return !halt;
      },
    );
  }

  /**
   * Up to `compaction_retries` attempts with dskit's backoff: a wait drawn from [d, 2d), d
   * starting at the minimum and doubling, capped at the maximum. `retryable` decides (and
   * counts) whether a failure is tried again.
   */
  private async withRetries<T>(
    attempt: () => Promise<T>,
    signal: AbortSignal,
    retryable: (err: Error) => boolean = () => true,
  ): Promise<T> {
    const max = this.config.retryMaxBackoffMs ?? 60 * SECOND;
    let low = Math.min(this.config.retryMinBackoffMs ?? 10 * SECOND, max);
    for (let i = 1; ; i++) {
      try {
        return await attempt();
      } catch (err) {
        if (signal.aborted || isAbortError(err)) throw err;
        const error = err instanceof Error ? err : new Error(String(err));
        if (!retryable(error) || i >= this.config.compactionRetries) throw error;
        const high = Math.min(2 * low, max);
        const wait = low >= max ? max : low + this.backoff.int(Math.max(1, high - low));
        low = Math.min(2 * low, max);
        await this.deps.clock.sleep(wait, signal);
      }
    }
  }

  private shuffleInPlace(items: string[]): void {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.shuffle.int(i + 1);
      [items[i], items[j]] = [items[j] as string, items[i] as string];
    }
  }
}
