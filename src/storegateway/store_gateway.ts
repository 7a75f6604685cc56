/**
 * The store-gateway service (Cortex's StoreGateway): joins the `store-gateway` ring when
 * sharding is on, loads its blocks (the initial sync gates readiness: the instance stays
 * JOINING, and not ready, until its blocks are loaded), then re-syncs every `sync_interval`
 * (±20% jitter) and whenever the set of block owners in the ring changes, and serves the
 * `storegateway.*` RPCs.
 */
import { BasicLifecycler, Ring, type ReadRing } from '../ring/index.js';
import {
  isAbortError,
  type Bucket,
  type Clock,
  type FileSystem,
  type KV,
  type Logger,
  type MetricsRegistry,
  type Random,
  type Transport,
} from '../runtime/index.js';
import type { BucketIndex } from '../bucket/index.js';
import { BasicService } from '../services/index.js';
import type { BlockLoaderFactory } from './block_loader.js';
import { bucketBlockLoader } from './default_block_loader.js';
import type { IndexCache } from './index_cache.js';
import { BucketStores, type BucketStoresConfig } from './bucket_stores.js';
import { StoreGatewayUnavailableError } from './errors.js';
import { StoreGatewayMetrics, type SyncReason } from './metrics.js';
import { registerStoreGatewayRpc } from './rpc.js';
import {
  AUTO_FORGET_UNHEALTHY_PERIODS,
  BLOCKS_OWNER_SYNC,
  NO_SHARDING,
  RingShardingStrategy,
  STORE_GATEWAY_NUM_TOKENS,
  STORE_GATEWAY_RING_KEY,
  STORE_GATEWAY_RING_NAME,
  healthyInstances,
  instanceSetSignature,
  storeGatewayRingConfig,
} from './sharding.js';

export interface StoreGatewayRingOptions {
  /** Instance ID in the ring (the node name by default). */
  instanceId: string;
  /** Advertised address; empty: the transport's listen address. */
  instanceAddr: string;
  zone: string;
  heartbeatPeriodMs: number;
  heartbeatTimeoutMs: number;
  replicationFactor: number;
  tokensFilePath: string;
  zoneAwarenessEnabled: boolean;
  /** Minimum time the ring must stay unchanged before the initial sync; 0 skips the wait. */
  waitStabilityMinMs: number;
  /** Give up waiting for stability after this long (and sync anyway). */
  waitStabilityMaxMs: number;
  /** How often the ring is compared with the one of the last sync (Cortex: 5s). */
  ringCheckPeriodMs: number;
}

export interface StoreGatewayConfig {
  bucketStore: BucketStoresConfig & {
    /** 0 disables periodic syncs. */
    syncIntervalMs: number;
  };
  shardingEnabled: boolean;
  ring: StoreGatewayRingOptions;
}

export interface StoreGatewayDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  random: Random;
  logger: Logger;
  metrics: MetricsRegistry;
  /**
   * The RPC handlers are registered on it in the constructor; the app makes it listen.
   * Absent: no RPCs (a querier reading the bucket itself embeds a gateway this way).
   */
  transport?: Transport;
  /** The ring's KV; required when sharding is enabled. */
  kv?: KV;
  /** The block layer, one loader per tenant; default: blocks read from `bucket`. */
  blockLoader?: BlockLoaderFactory;
  /** Replaces the bucket module's index reader (tests). */
  readIndex?: (bucket: Bucket, tenant: string) => Promise<BucketIndex>;
  /** The index cache (postings, series) of the default block loader; none: no caching. */
  indexCache?: IndexCache;
}

/** How often the ring is polled while waiting for stability (Cortex: every second). */
const RING_POLL_MS = 1_000;
/** How often the ring client is checked for this instance's own state change. */
const STATE_POLL_MS = 100;

export class StoreGateway extends BasicService {
  readonly stores: BucketStores;
  private readonly metrics: StoreGatewayMetrics;
  private readonly logger: Logger;
  private lifecycler: BasicLifecycler | undefined;
  private ringClient: Ring | undefined;
  private subserviceFailure: Error | undefined;
  private onSubserviceFailure: ((err: Error) => void) | undefined;

  constructor(
    private readonly config: StoreGatewayConfig,
    private readonly deps: StoreGatewayDeps,
  ) {
    super('store-gateway', {
      starting: (signal) => this.starting(signal),
      running: (signal) => this.running(signal),
      stopping: () => this.stopping(),
    });
    this.logger = deps.logger.child({ module: 'store-gateway' });
    this.metrics = new StoreGatewayMetrics(deps.metrics);
    if (config.shardingEnabled) {
      if (deps.kv === undefined)
        throw new Error('store-gateway sharding is enabled but no ring KV store was given');
      this.ringClient = new Ring(
        storeGatewayRingConfig({
          replicationFactor: config.ring.replicationFactor,
          zoneAwarenessEnabled: config.ring.zoneAwarenessEnabled,
        }),
        { kv: deps.kv, clock: deps.clock, logger: this.logger, metrics: deps.metrics },
      );
      this.lifecycler = new BasicLifecycler(
        {
          ringName: STORE_GATEWAY_RING_NAME,
          key: STORE_GATEWAY_RING_KEY,
          id: config.ring.instanceId,
          addr: config.ring.instanceAddr,
          zone: config.ring.zone,
          numTokens: STORE_GATEWAY_NUM_TOKENS,
          heartbeatPeriodMs: config.ring.heartbeatPeriodMs,
          autoForgetAfterMs: AUTO_FORGET_UNHEALTHY_PERIODS * config.ring.heartbeatTimeoutMs,
          tokensFilePath: config.ring.tokensFilePath,
        },
        {
          kv: deps.kv,
          clock: deps.clock,
          random: deps.random,
          fs: deps.fs,
          logger: this.logger,
          addr: () => deps.transport?.address,
        },
      );
    }
    const ring = this.ringClient;
    const lifecycler = this.lifecycler;
    this.stores = new BucketStores(config.bucketStore, {
      bucket: deps.bucket,
      fs: deps.fs,
      clock: deps.clock,
      random: deps.random,
      logger: this.logger,
      metrics: this.metrics,
      blockLoader:
        deps.blockLoader ??
        bucketBlockLoader({
          bucket: deps.bucket,
          fs: deps.fs,
          clock: deps.clock,
          logger: this.logger,
          ...(deps.indexCache === undefined ? {} : { indexCache: deps.indexCache }),
        }),
      ...(deps.readIndex === undefined ? {} : { readIndex: deps.readIndex }),
      sharding:
        ring === undefined || lifecycler === undefined
          ? NO_SHARDING
          : new RingShardingStrategy({
              ring,
              instanceAddr: () => lifecycler.instanceAddr,
              heartbeatTimeoutMs: config.ring.heartbeatTimeoutMs,
              now: () => deps.clock.now(),
              onLookupError: (block, kept, err) =>
                this.logger.warn('failed to check block owner', {
                  block,
                  kept_because_loaded: kept,
                  err: err.message,
                }),
            }),
    });
    if (deps.transport !== undefined) registerStoreGatewayRpc(deps.transport, this);
  }

  /** The store-gateway ring as this instance sees it (sharding only). */
  get ring(): ReadRing | undefined {
    return this.ringClient;
  }

  /** The ring KV (for the ring page's forget action). */
  get ringKV(): KV | undefined {
    return this.config.shardingEnabled ? this.deps.kv : undefined;
  }

  get shardingEnabled(): boolean {
    return this.config.shardingEnabled;
  }

  /** Heartbeats older than this make an instance unhealthy (pages; ring lookups). */
  get ringHeartbeatTimeoutMs(): number {
    return this.config.ring.heartbeatTimeoutMs;
  }

  /** The blocks bucket (pages read it directly, as Cortex's do). */
  get bucket(): Bucket {
    return this.deps.bucket;
  }

  /** The instance's state in the ring, when sharding. */
  get ringState(): string | undefined {
    return this.lifecycler?.instanceState;
  }

  nowMs(): number {
    return this.deps.clock.now();
  }

  /** Throws StoreGatewayUnavailableError unless the gateway serves queries. */
  checkServing(): void {
    if (this.state !== 'Running')
      throw new StoreGatewayUnavailableError(
        this.state === 'Starting'
          ? 'store-gateway is starting: the initial blocks sync has not completed'
          : `store-gateway is ${this.state}`,
      );
  }

  /** Runs a sync now (also what the timers call). Errors are logged, never thrown. */
  async sync(reason: SyncReason, signal?: AbortSignal): Promise<void> {
    this.logger.info('synchronizing blocks for all tenants', { reason });
    this.metrics.bucketSyncs.inc({ reason });
    try {
      await this.stores.syncBlocks(signal);
      this.logger.info('synchronized blocks for all tenants', { reason });
    } catch (err) {
      if (isAbortError(err)) return;
      this.logger.warn('failed to synchronize blocks', { reason, err: (err as Error).message });
    }
  }

  private async starting(signal: AbortSignal): Promise<void> {
    const { lifecycler, ringClient } = this;
    try {
      if (lifecycler !== undefined && ringClient !== undefined) {
        for (const svc of [lifecycler, ringClient]) {
          await svc.start(signal);
          svc.onFailure((err) => this.subserviceFailed(err));
        }
        await this.waitInstanceState('JOINING', signal);
        await this.waitRingStability(signal);
      }
      this.metrics.bucketSyncs.inc({ reason: 'initial' });
      await this.stores.initialSync(signal);
      if (lifecycler !== undefined) {
        // Every owned block is loaded: queriers may now ask this instance.
        await lifecycler.changeState('ACTIVE', signal);
        await this.waitInstanceState('ACTIVE', signal);
      }
    } catch (err) {
      await this.stopSubservices();
      throw err;
    }
  }

  private async running(signal: AbortSignal): Promise<void> {
    const loops = [this.periodicSyncLoop(signal)];
    if (this.ringClient !== undefined) loops.push(this.ringCheckLoop(signal));
    const c = this.config.bucketStore;
    if (c.lazyLoadingEnabled && c.lazyLoadingIdleTimeoutMs > 0)
      loops.push(this.idleUnloadLoop(Math.max(1_000, c.lazyLoadingIdleTimeoutMs / 10), signal));
    const failed = new Promise<never>((_, reject) => {
      if (this.subserviceFailure !== undefined) reject(this.subserviceFailure);
      this.onSubserviceFailure = reject;
    });
    // The loops may all be off (sync_interval 0, no ring): the service still runs until stopped.
    const stopped = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await Promise.race([Promise.all([...loops, stopped]), failed]);
  }

  private async stopping(): Promise<void> {
    await this.stopSubservices();
    await this.stores.close();
  }

  private async stopSubservices(): Promise<void> {
    // The lifecycler leaves the ring (LEAVING, then unregistered) before the client stops.
    await this.lifecycler?.stop().catch(() => undefined);
    await this.ringClient?.stop().catch(() => undefined);
  }

  private subserviceFailed(err: Error): void {
    const wrapped = new Error(`store-gateway subservice failed: ${err.message}`, { cause: err });
    this.subserviceFailure = wrapped;
    this.onSubserviceFailure?.(wrapped);
  }

  private async periodicSyncLoop(signal: AbortSignal): Promise<void> {
    const interval = this.config.bucketStore.syncIntervalMs;
    if (interval <= 0) return;
    const stream = this.deps.random.stream('storegateway/sync-jitter');
    while (!signal.aborted) {
      // ±20% jitter, so that gateways do not all list the bucket at once (Cortex).
      const wait = interval * (0.8 + 0.4 * stream.next());
      if (!(await this.sleep(wait, signal))) return;
      await this.sync('periodic', signal);
    }
  }

  private async ringCheckLoop(signal: AbortSignal): Promise<void> {
    let last = this.ownersSignature();
    while (await this.sleep(this.config.ring.ringCheckPeriodMs, signal)) {
      const current = this.ownersSignature();
      if (current === last) continue;
      last = current;
      await this.sync('ring-change', signal);
    }
  }

  private async idleUnloadLoop(periodMs: number, signal: AbortSignal): Promise<void> {
    while (await this.sleep(periodMs, signal)) await this.stores.unloadIdleBlocks();
  }

  /** The BLOCKS_OWNER_SYNC instances (empty when the ring cannot be read). */
  private ownersSignature(): string {
    const ring = this.ringClient;
    if (ring === undefined) return '';
    try {
      return instanceSetSignature(
        healthyInstances(ring, BLOCKS_OWNER_SYNC, {
          heartbeatTimeoutMs: this.config.ring.heartbeatTimeoutMs,
          nowMs: this.deps.clock.now(),
        }),
      );
    } catch {
      return '';
    }
  }

  private async waitInstanceState(state: string, signal: AbortSignal): Promise<void> {
    const ring = this.ringClient;
    const id = this.config.ring.instanceId;
    if (ring === undefined) return;
    this.logger.info('waiting until the instance has the state in the ring', { state });
    while (ring.desc().ingesters[id]?.state !== state)
      await this.deps.clock.sleep(STATE_POLL_MS, signal);
  }

  /**
   * Cortex's WaitRingStability: when several gateways start together each would otherwise
   * sync against a different ring; wait until the owners stop changing for the minimum
   * duration, giving up (and syncing anyway) after the maximum.
   */
  private async waitRingStability(signal: AbortSignal): Promise<void> {
    const { waitStabilityMinMs: min, waitStabilityMaxMs: max } = this.config.ring;
    if (min <= 0) return;
    const start = this.deps.clock.now();
    let last = this.ownersSignature();
    let stableSince = start;
    for (;;) {
      const now = this.deps.clock.now();
      if (now - stableSince >= min) return;
      if (now - start >= Math.max(min, max)) {
        this.logger.warn('store-gateway ring is not stable after the maximum wait; proceeding');
        return;
      }
      await this.deps.clock.sleep(RING_POLL_MS, signal);
      const current = this.ownersSignature();
      if (current !== last) {
        last = current;
        stableSince = this.deps.clock.now();
      }
    }
  }

  /** Sleeps; false when the signal aborted. */
  private async sleep(ms: number, signal: AbortSignal): Promise<boolean> {
    try {
      await this.deps.clock.sleep(ms, signal);
      return true;
    } catch (err) {
      if (isAbortError(err)) return false;
      throw err;
    }
  }
}
