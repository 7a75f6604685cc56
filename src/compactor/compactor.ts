/**
 * The compactor component: the blocks cleaner — a cleanup of every owned tenant while
 * starting, so services that depend on the compactor start after one pass, then one every
 * cleanup interval — and, when configured, the compaction loop (compaction_loop.ts), which
 * runs beside the cleaner from the moment the compactor is Running. With sharding enabled it
 * joins the compactor ring (key `compactor`, RF 1) and waits to see itself ACTIVE before the
 * first pass; ownership is re-evaluated on every run (and, for compaction, right before each
 * upload), so tenants move between compactors as the ring changes, without a handover.
 */
import { Lifecycler, Ring } from '../ring/index.js';
import {
  isAbortError,
  mkdirAllDurable,
  type Bucket,
  type Clock,
  type FileSystem,
  type KV,
  type Logger,
  type MetricsRegistry,
  type Random,
  type Timer,
} from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { BlocksCleaner, type CleanupRunResult } from './cleaner.js';
import {
  CompactionLoop,
  type CompactionConfig,
  type CompactionRunResult,
  type CompactionStrategy,
} from './compaction_loop.js';
import {
  forgetStaleCompactors,
  inTenantShard,
  waitRingStability,
  type CompactorShardingStrategy,
} from './compactor_ring.js';
import { COMPACTOR_RING_KEY, ownsTenant } from './ownership.js';
import { shuffleShardingCompactionStrategy } from './shuffle_sharding_planner.js';

export interface CompactorRingConfig {
  /** `-compactor.ring.instance-id` (Cortex: the hostname). */
  instanceId: string;
  /**
   * The address registered in the ring; ownership compares it, as Cortex does. Empty: the
   * address `CompactorDeps.address` gives once the process listens.
   */
  instanceAddr: string;
  heartbeatPeriodMs: number;
  heartbeatTimeoutMs: number;
  /** 512 in Cortex. */
  numTokens: number;
  /** Where tokens are kept across restarts; empty or absent: not kept. */
  tokensFilePath?: string;
  /** `-compactor.auto-forget-delay`: peers silent this long are removed; 0 or absent: never. */
  autoForgetDelayMs?: number;
  /** `-compactor.ring.wait-stability-min-duration`; 0 or absent: no wait at startup. */
  waitStabilityMinDurationMs?: number;
  /** `-compactor.ring.wait-stability-max-duration` (5m when absent). */
  waitStabilityMaxDurationMs?: number;
}

export interface CompactorConfig {
  /** `-compactor.data-dir`: created at start; compaction will work in it. */
  dataDir: string;
  /** `-compactor.cleanup-interval` (15m). */
  cleanupIntervalMs: number;
  /** `-compactor.cleanup-concurrency` (20). */
  cleanupConcurrency: number;
  /** `-compactor.deletion-delay` (12h); 0 deletes marked blocks at the next cleanup. */
  deletionDelayMs: number;
  /** `-compactor.sharding-enabled`: off, this compactor owns every tenant. */
  shardingEnabled: boolean;
  /** `-compactor.sharding-strategy` (`default` when absent). */
  shardingStrategy?: CompactorShardingStrategy;
  /** `-compactor.block-visit-marker-timeout` (5m when absent); shuffle sharding only. */
  blockVisitMarkerTimeoutMs?: number;
  /** `-compactor.block-visit-marker-file-update-interval` (1m when absent); shuffle sharding only. */
  blockVisitMarkerFileUpdateIntervalMs?: number;
  ring: CompactorRingConfig;
  /**
   * `-compactor.partial-block-deletion-delay`: the age after which a partial block is
   * abandoned (see BlocksCleanerConfig); 0 or absent: max(consistency delay, 48h).
   */
  partialBlockDeletionDelayMs?: number;
  blockDeletionMarksMigrationEnabled?: boolean;
  /** `-compactor.tenant-cleanup-delay` (6h when absent); see BlocksCleanerConfig. */
  tenantCleanupDelayMs?: number;
  /** Block compaction; absent, the compactor only cleans. Works under `<dataDir>/compact`. */
  compaction?: CompactionConfig;
}

export interface CompactorDeps {
  bucket: Bucket;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: MetricsRegistry;
  fs: FileSystem;
  /** The compactor ring's KV; required when sharding is enabled. */
  kv?: KV;
  /** This process's RPC address, used when `ring.instanceAddr` is empty (known only after listening). */
  address?: () => string | undefined;
  /** Per-tenant blocks retention (`compactor_blocks_retention_period`) in ms; 0 keeps all. */
  retentionPeriodMs?: (tenant: string) => number;
  /**
   * How tenants' blocks are grouped and planned (default: Thanos's, as Cortex's default
   * strategy; with `shardingStrategy: 'shuffle-sharding'`, the shuffle-sharding one).
   */
  compactionStrategy?: CompactionStrategy;
  /** Per-tenant `compactor_tenant_shard_size` (0 = every compactor); absent: 0. */
  tenantShardSize?: (tenant: string) => number;
}

/** How often starting checks whether the ring shows this instance ACTIVE. */
const RING_ACTIVE_POLL_MS = 100;
const MINUTE = 60_000;

export class Compactor extends BasicService {
  readonly cleaner: BlocksCleaner;
  /** The compaction loop; undefined when compaction is not configured. */
  readonly compaction: CompactionLoop | undefined;
  private readonly logger: Logger;
  private ringClient: Ring | undefined;
  private ringLifecycler: Lifecycler | undefined;
  /** The address this compactor registered in the ring (set when it joins). */
  private registeredAddr = '';
  /** Cleanups under way (the timer's and admin-triggered ones), which stopping waits for. */
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly config: CompactorConfig,
    private readonly deps: CompactorDeps,
  ) {
    super('compactor', {
      starting: (signal) => this.starting(signal),
      running: (signal) => this.running(signal),
      stopping: () => this.stopping(),
    });
    if (!(config.cleanupIntervalMs > 0)) {
      throw new RangeError(`cleanup interval must be > 0, got ${config.cleanupIntervalMs}ms`);
    }
    if (config.shardingEnabled && deps.kv === undefined) {
      throw new Error('compactor sharding is enabled but no KV store was given for its ring');
    }
    this.logger = deps.logger.child({ module: 'compactor' });
    const strategy = deps.compactionStrategy ?? this.shuffleStrategy();
    this.cleaner = new BlocksCleaner(
      {
        deletionDelayMs: config.deletionDelayMs,
        cleanupConcurrency: config.cleanupConcurrency,
        partialBlockDeletionDelayMs: abandonedPartialAgeMs(config),
        ...(config.blockDeletionMarksMigrationEnabled === undefined
          ? {}
          : { blockDeletionMarksMigrationEnabled: config.blockDeletionMarksMigrationEnabled }),
        ...(config.tenantCleanupDelayMs === undefined
          ? {}
          : { tenantCleanupDelayMs: config.tenantCleanupDelayMs }),
      },
      {
        bucket: deps.bucket,
        clock: deps.clock,
        logger: this.logger,
        metrics: deps.metrics,
        isOwned: (tenant) => this.ownsTenant(tenant),
        ...(deps.retentionPeriodMs === undefined
          ? {}
          : { retentionPeriodMs: deps.retentionPeriodMs }),
      },
    );
    this.compaction =
      config.compaction === undefined
        ? undefined
        : new CompactionLoop(
            { ...config.compaction, dataDir: config.dataDir },
            {
              bucket: deps.bucket,
              fs: deps.fs,
              clock: deps.clock,
              random: deps.random,
              logger: this.logger,
              metrics: deps.metrics,
              ownsTenant: (tenant) => this.ownsTenantForCompaction(tenant),
              track: (run) => this.track(run),
              ...(strategy === undefined ? {} : { strategy }),
            },
          );
  }

  /** The compactor ring client (for the `/compactor/ring` page); undefined without sharding or before start. */
  get ring(): Ring | undefined {
    return this.ringClient;
  }

  get lifecycler(): Lifecycler | undefined {
    return this.ringLifecycler;
  }

  /** Whether this compactor owns `tenant` now; throws RingError when the ring has no owner for it. */
  ownsTenant(tenant: string): boolean {
    if (!this.config.shardingEnabled) return true;
    const ring = this.ringClient;
    if (ring === undefined) throw new Error('the compactor ring client is not running');
    return ownsTenant(ring, tenant, this.registeredAddr);
  }

  /**
   * Whether this compactor may compact `tenant` now (Cortex's ownUserForCompaction): with the
   * shuffle-sharding strategy, when it is a healthy member of the tenant's shard; otherwise as
   * `ownsTenant`. Throws RingError when the ring cannot tell.
   */
  ownsTenantForCompaction(tenant: string): boolean {
    if (!this.config.shardingEnabled || this.config.shardingStrategy !== 'shuffle-sharding') {
      return this.ownsTenant(tenant);
    }
    const ring = this.ringClient;
    if (ring === undefined) throw new Error('the compactor ring client is not running');
    const size = this.deps.tenantShardSize?.(tenant) ?? 0;
    return inTenantShard(ring, tenant, size, this.registeredAddr, this.deps.clock.now());
  }

  /** The shuffle-sharding strategy when configured and compaction is on. */
  private shuffleStrategy(): CompactionStrategy | undefined {
    const { config } = this;
    if (config.shardingStrategy !== 'shuffle-sharding' || config.compaction === undefined) {
      return undefined;
    }
    return shuffleShardingCompactionStrategy(
      {
        ...config.compaction,
        compactorId: config.ring.instanceId,
        visitMarkerTimeoutMs: config.blockVisitMarkerTimeoutMs ?? 5 * MINUTE,
        visitMarkerFileUpdateIntervalMs: config.blockVisitMarkerFileUpdateIntervalMs ?? MINUTE,
      },
      {
        bucket: this.deps.bucket,
        clock: this.deps.clock,
        logger: this.logger,
        metrics: this.deps.metrics,
      },
    );
  }

  /** Runs one cleanup now (an admin trigger; the service's own runs go through the same path). */
  runCleanup(signal: AbortSignal): Promise<CleanupRunResult | undefined> {
    return this.track(this.cleaner.runCleanup(signal, false));
  }

  /** Runs one compaction of every owned tenant now (admin trigger and tests); undefined without compaction. */
  runCompaction(signal: AbortSignal): Promise<CompactionRunResult | undefined> {
    const loop = this.compaction;
    if (loop === undefined) return Promise.resolve(undefined);
    return this.track(loop.runOnce(signal));
  }

  /** Resolves once the cleanups and compactions under way, if any, have settled (tests and the simulator wait on it). */
  async idle(): Promise<void> {
    await Promise.all([...this.inflight]);
  }

  private track<T>(run: Promise<T>): Promise<T> {
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.inflight.add(settled);
    void settled.then(() => this.inflight.delete(settled));
    return run;
  }

  private async starting(signal: AbortSignal): Promise<void> {
    await mkdirAllDurable(this.deps.fs, this.config.dataDir);
    try {
      if (this.config.shardingEnabled) await this.joinRing(signal);
      // The first pass runs before the service is Running (Cortex starts the cleaner this way).
      await this.track(this.cleaner.runCleanup(signal, true));
    } catch (err) {
      await this.leaveRing();
      throw err;
    }
  }

  private async joinRing(signal: AbortSignal): Promise<void> {
    const kv = this.deps.kv as KV;
    const rc = this.config.ring;
    const addr = rc.instanceAddr || this.deps.address?.();
    if (addr === undefined || addr === '')
      throw new Error(
        'the compactor has no ring address: -compactor.ring.instance-addr is empty and the process is not listening',
      );
    this.registeredAddr = addr;
    this.ringClient = new Ring(
      {
        name: 'compactor',
        key: COMPACTOR_RING_KEY,
        replicationFactor: 1,
        heartbeatTimeoutMs: rc.heartbeatTimeoutMs,
        zoneAwarenessEnabled: false,
      },
      {
        kv,
        clock: this.deps.clock,
        logger: this.deps.logger.child({ module: 'compactor-ring' }),
        metrics: this.deps.metrics,
      },
    );
    this.ringLifecycler = new Lifecycler(
      {
        ringName: 'compactor',
        key: COMPACTOR_RING_KEY,
        id: rc.instanceId,
        addr,
        zone: '',
        numTokens: rc.numTokens,
        heartbeatPeriodMs: rc.heartbeatPeriodMs,
        joinAfterMs: 0,
        tokensFilePath: rc.tokensFilePath ?? '',
        // Cortex's compactor leaves the ring on shutdown so its tenants move at once.
        unregisterOnShutdown: true,
      },
      {
        kv,
        clock: this.deps.clock,
        random: this.deps.random,
        fs: this.deps.fs,
        logger: this.deps.logger.child({ module: 'compactor-lifecycler' }),
        metrics: this.deps.metrics,
      },
    );
    await this.ringClient.start(signal);
    await this.ringLifecycler.start(signal);
    this.logger.info('waiting until compactor is ACTIVE in the ring');
    const id = rc.instanceId;
    while (this.ringClient.desc().ingesters[id]?.state !== 'ACTIVE') {
      await this.deps.clock.sleep(RING_ACTIVE_POLL_MS, signal);
    }
    this.logger.info('compactor is ACTIVE in the ring');
    // Compactors started together would otherwise each start from a different ring.
    const minWait = rc.waitStabilityMinDurationMs ?? 0;
    if (minWait > 0) {
      const maxWait = rc.waitStabilityMaxDurationMs ?? 5 * MINUTE;
      this.logger.info('waiting until compactor ring topology is stable', {
        min_waiting_ms: minWait,
        max_waiting_ms: maxWait,
      });
      if (await waitRingStability(this.ringClient, this.deps.clock, minWait, maxWait, signal)) {
        this.logger.info('compactor ring topology is stable');
      } else {
        this.logger.warn(
          'compactor ring topology is not stable after the max waiting time, proceeding anyway',
        );
      }
    }
  }

  private async running(signal: AbortSignal): Promise<void> {
    const timer = this.deps.clock.every(this.config.cleanupIntervalMs, async () => {
      await this.track(this.cleaner.runCleanup(signal, false));
    });
    const forget = this.autoForgetTimer();
    // The loop itself is not tracked (idle() would never resolve); each of its runs is.
    const compaction = this.compaction?.run(signal);
    try {
      // Runs until stopped; a ring member or the compaction loop failing on its own fails the compactor.
      await new Promise<void>((resolve, reject) => {
        if (signal.aborted) resolve();
        signal.addEventListener('abort', () => resolve(), { once: true });
        const fail = (what: string) => (err: Error) =>
          reject(new Error(`compactor ${what} failed: ${err.message}`));
        this.ringLifecycler?.onFailure(fail('ring lifecycler'));
        this.ringClient?.onFailure(fail('ring client'));
        compaction?.catch((err: unknown) =>
          fail('compaction loop')(err instanceof Error ? err : new Error(String(err))),
        );
      });
    } finally {
      timer.cancel();
      forget?.cancel();
      // Aborted with the service: resolves once the run in flight, if any, has stopped.
      await compaction?.catch(() => undefined);
    }
  }

  /** Every heartbeat period, forgets peers silent for longer than the auto-forget delay. */
  private autoForgetTimer(): Timer | undefined {
    const rc = this.config.ring;
    const delay = rc.autoForgetDelayMs ?? 0;
    const kv = this.deps.kv;
    if (!this.config.shardingEnabled || delay <= 0 || kv === undefined) return undefined;
    return this.deps.clock.every(rc.heartbeatPeriodMs, async () => {
      await forgetStaleCompactors(
        kv,
        COMPACTOR_RING_KEY,
        rc.instanceId,
        this.deps.clock.now(),
        delay,
        this.logger,
      ).catch(() => undefined);
    });
  }

  private async stopping(): Promise<void> {
    await this.idle();
    await this.leaveRing();
  }

  private async leaveRing(): Promise<void> {
    try {
      await this.ringLifecycler?.stop();
    } catch (err) {
      if (!isAbortError(err)) {
        this.logger.error('leaving the compactor ring failed', { err: (err as Error).message });
      }
    }
    await this.ringClient?.stop().catch((err: unknown) => {
      this.logger.error('stopping the compactor ring client failed', { err: String(err) });
    });
  }
}

/** Thanos's minimum age before a block without meta.json may be removed as malformed. */
const MALFORMED_BLOCK_MIN_AGE_MS = 48 * 3_600_000;

/**
 * How old a partial block must be to count as abandoned: the configured delay, or the
 * reference's rule (malformed blocks older than max(consistency delay, 48h) are removed).
 */
function abandonedPartialAgeMs(config: CompactorConfig): number {
  const configured = config.partialBlockDeletionDelayMs ?? 0;
  if (configured > 0) return configured;
  return Math.max(config.compaction?.consistencyDelayMs ?? 0, MALFORMED_BLOCK_MIN_AGE_MS);
}
