/**
 * The store-gateway as a module (its RPCs on the process transport, its pages), and the
 * querier's view of the blocks in the bucket: which store-gateways hold a block (the ring
 * with sharding, a static list, the gateway of this process, or a gateway the querier embeds
 * when `-experimental.tsdb.store-gateway-enabled=false` and none runs here, which is how the
 * reference's queriers read the bucket themselves).
 */
import {
  BalancedBlocksStoreSet,
  InProcessBlocksStoreSet,
  ReplicatedBlocksStoreSet,
  inProcessBlocksStoreClient,
  newBlocksFinder,
  type QuerierBlocksDeps,
} from '../querier/index.js';
import { Ring } from '../ring/index.js';
import type { Bucket } from '../runtime/index.js';
import type { Service } from '../services/index.js';
import {
  StoreGateway,
  TransportStoreGatewayClient,
  registerStoreGatewayPages,
  storeGatewayConfigFrom,
  storeGatewayRingConfig,
  type BucketStores,
} from '../storegateway/index.js';
import { withClosedBucket } from './bucket.js';
import type { StrataContext } from './context.js';
import { deferredKV } from './ring_client.js';
import { openCachedComponentBucket } from './store_caches.js';

export function storeGatewayService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const http = ctx.need(ctx.http, 'server', 'store-gateway');
  const { bucket, indexCache } = openCachedComponentBucket(ctx, 'store-gateway');
  const gateway = new StoreGateway(
    storeGatewayConfigFrom(config.tsdb, config.store_gateway, { nodeName: env.nodeName }),
    {
      bucket,
      fs: env.fs,
      clock: env.clock,
      random: env.random,
      logger: env.logger,
      metrics: env.metrics,
      transport: env.transport,
      ...(config.store_gateway.sharding_enabled ? { kv: deferredKV(ctx, 'storeGateway') } : {}),
      ...(indexCache === undefined ? {} : { indexCache }),
    },
  );
  ctx.localStoreGateway = gateway;
  registerStoreGatewayPages(http, () => gateway, env.logger);
  return withClosedBucket(gateway, () => bucket.close());
}

/** What the querier needs for the blocks path, and what it must start and stop with it. */
export interface QuerierBlocksWiring {
  readonly blocks: QuerierBlocksDeps;
  readonly bucket: Bucket;
  /** Services the querier runs for the blocks path (the store-gateway ring client, an embedded gateway). */
  readonly services: readonly Service[];
}

export function querierBlocksWiring(ctx: StrataContext): QuerierBlocksWiring {
  const { config, env } = ctx;
  const bs = config.tsdb.bucket_store;
  const sg = config.store_gateway;
  // A querier reads blocks itself (and needs the index and chunks caches) only when it embeds
  // a bucket store: no store-gateways to ask and none in this process.
  const local = ctx.modules().includes('store-gateway');
  const embeds = !config.tsdb.store_gateway_enabled && !local;
  const { bucket, indexCache } = openCachedComponentBucket(ctx, 'querier', embeds);
  const finder = newBlocksFinder(
    {
      bucketIndexEnabled: bs.bucket_index.enabled,
      syncIntervalMs: bs.sync_interval,
      updateOnErrorIntervalMs: bs.bucket_index.update_on_error_interval,
      idleTimeoutMs: bs.bucket_index.idle_timeout,
      maxStalePeriodMs: bs.bucket_index.max_stale_period,
      ignoreDeletionMarksDelayMs: bs.ignore_deletion_mark_delay,
      tenantSyncConcurrency: bs.tenant_sync_concurrency,
    },
    { bucket, clock: env.clock, logger: env.logger, metrics: env.metrics },
  );
  const random = env.random.stream('querier-store-set');
  const transportClient = new TransportStoreGatewayClient(env.transport);
  const addresses = config.querier.store_gateway_addresses
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');

  if (config.tsdb.store_gateway_enabled && sg.sharding_enabled) {
    const ring = new Ring(
      storeGatewayRingConfig({
        replicationFactor: sg.sharding_ring.replication_factor,
        zoneAwarenessEnabled: sg.sharding_ring.zone_awareness_enabled,
      }),
      {
        kv: deferredKV(ctx, 'storeGateway'),
        clock: env.clock,
        logger: env.logger.child({ module: 'store-gateway-ring' }),
        metrics: env.metrics,
      },
    );
    const stores = new ReplicatedBlocksStoreSet(
      { randomLoadBalancing: true, heartbeatTimeoutMs: sg.sharding_ring.heartbeat_timeout },
      { ring, clock: env.clock, random },
    );
    return { blocks: { finder, stores, client: transportClient }, bucket, services: [ring] };
  }
  if (config.tsdb.store_gateway_enabled && addresses.length > 0) {
    const stores = new BalancedBlocksStoreSet({ addresses }, { random });
    return { blocks: { finder, stores, client: transportClient }, bucket, services: [] };
  }
  // The gateway of this process, or (the reference's querier) one of its own over the bucket.
  if (config.tsdb.store_gateway_enabled && !local)
    throw new Error(
      '-experimental.tsdb.store-gateway-enabled is set but the querier has no store-gateways: enable -experimental.store-gateway.sharding-enabled or set -querier.store-gateway-addresses',
    );
  let embedded: StoreGateway | undefined;
  if (!local) {
    embedded = new StoreGateway(
      storeGatewayConfigFrom(
        config.tsdb,
        { ...sg, sharding_enabled: false },
        { nodeName: env.nodeName },
      ),
      {
        bucket,
        fs: env.fs,
        clock: env.clock,
        random: env.random,
        logger: env.logger.child({ module: 'querier-bucket-store' }),
        metrics: env.metrics,
        ...(indexCache === undefined ? {} : { indexCache }),
      },
    );
  }
  const gateway = (): StoreGateway => {
    const g = embedded ?? ctx.localStoreGateway;
    if (g === undefined) throw new Error('the store-gateway of this process is not initialised');
    return g;
  };
  const stores: Pick<BucketStores, 'series' | 'labelNames' | 'labelValues'> = {
    series: (...args) => gateway().stores.series(...args),
    labelNames: (...args) => gateway().stores.labelNames(...args),
    labelValues: (...args) => gateway().stores.labelValues(...args),
  };
  return {
    blocks: {
      finder,
      stores: new InProcessBlocksStoreSet(),
      client: inProcessBlocksStoreClient(stores),
      storeReadiness: () => {
        const g = gateway();
        return g.state === 'Running' ? g.isReady() : `the bucket store is ${g.state}`;
      },
    },
    bucket,
    services: embedded === undefined ? [] : [embedded],
  };
}
