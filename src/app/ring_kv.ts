/**
 * The `ring` module: opens the KV clients of the hash rings this process uses, from each
 * ring's `kvstore` configuration block (an unsupported store fails the start, naming the
 * block), runs the ingester ring client the distributor, ingester and querier share, and
 * keeps `multi` stores following the runtime config's `multi_kv_config`.
 */
import type { KVStoreConfig } from '../config/index.js';
import type { KV, KVSpec } from '../runtime/index.js';
import type { RingKVClients, StrataContext } from './context.js';
import { BasicService, type Service } from '../services/index.js';
import { distributorRingClient, followMultiKVConfig, ingesterRingClient } from './ring_client.js';

/** Modules that use the ingester ring. */
export const INGESTER_RING_USERS: readonly string[] = [
  'distributor',
  'ingester',
  'querier',
  'ruler',
];
const STORE_GATEWAY_RING_USERS: readonly string[] = ['store-gateway', 'querier', 'ruler'];

export function ringService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const opened: KV[] = [];
  let unfollow = (): void => undefined;
  const closeAll = async (): Promise<void> => {
    unfollow();
    const clients = [ctx.ingesterRing, ctx.distributorRing];
    ctx.ingesterRing = undefined;
    ctx.distributorRing = undefined;
    await Promise.all(clients.map((ring) => ring?.stop() ?? Promise.resolve()));
    await Promise.all(opened.splice(0).map((kv) => kv.close()));
  };
  const open = (kv: KVStoreConfig, block: string): KV => {
    let client: KV;
    try {
      client = env.kvs.open(kvSpecFromConfig(kv, block), kv.prefix);
    } catch (err) {
      throw new Error(`${block}: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    opened.push(client);
    return client;
  };
  return new BasicService('ring', {
    starting: async (signal) => {
      const modules = ctx.modules();
      try {
        const rings: { -readonly [K in keyof RingKVClients]: RingKVClients[K] } = {};
        // Only rings a module of this process uses are opened, so e.g. a compactor does not
        // need the ingester ring's store to be reachable.
        if (INGESTER_RING_USERS.some((m) => modules.includes(m))) {
          rings.ingester = open(
            config.ingester.lifecycler.ring.kvstore,
            'ingester.lifecycler.ring.kvstore',
          );
        }
        // Distributors only need each other for the global ingestion rate limit (Cortex
        // joins the distributor ring only then, too).
        if (modules.includes('distributor') && config.limits.ingestion_rate_strategy === 'global')
          rings.distributor = open(config.distributor.ring.kvstore, 'distributor.ring.kvstore');
        if (config.distributor.ha_tracker.enable_ha_tracker && modules.includes('distributor')) {
          rings.haTracker = open(
            config.distributor.ha_tracker.kvstore,
            'distributor.ha_tracker.kvstore',
          );
        }
        if (
          config.store_gateway.sharding_enabled &&
          STORE_GATEWAY_RING_USERS.some((m) => modules.includes(m))
        ) {
          rings.storeGateway = open(
            config.store_gateway.sharding_ring.kvstore,
            'store_gateway.sharding_ring.kvstore',
          );
        }
        if (config.compactor.sharding_enabled && modules.includes('compactor')) {
          rings.compactor = open(
            config.compactor.sharding_ring.kvstore,
            'compactor.sharding_ring.kvstore',
          );
        }
        ctx.rings = rings;
        unfollow = followMultiKVConfig(ctx, opened);
        if (rings.ingester !== undefined) {
          const ring = ingesterRingClient(ctx, rings.ingester);
          ctx.ingesterRing = ring;
          await ring.start(signal);
        }
        if (rings.distributor !== undefined) {
          const ring = distributorRingClient(ctx, rings.distributor);
          ctx.distributorRing = ring;
          await ring.start(signal);
        }
      } catch (err) {
        await closeAll();
        throw err;
      }
    },
    stopping: async () => {
      ctx.rings = undefined;
      await closeAll();
    },
    isReady: () => {
      for (const ring of [ctx.ingesterRing, ctx.distributorRing])
        if (ring !== undefined && ring.state !== 'Running')
          return `the ${ring.ringName} ring client is ${ring.state}`;
      return undefined;
    },
  });
}

/** The KV spec the Env's provider opens for a ring's `kvstore` block (`blockName` names it in errors). */
export function kvSpecFromConfig(kv: KVStoreConfig, blockName: string): KVSpec {
  return specForStore(kv.store, kv, blockName, false);
}

function specForStore(
  store: string,
  kv: KVStoreConfig,
  blockName: string,
  insideMulti: boolean,
): KVSpec {
  switch (store) {
    case 'inmemory':
      return { store: 'inmemory' };
    case 'consul':
      return { store: 'consul', host: kv.consul.host };
    case 'etcd':
      return {
        store: 'etcd',
        endpoints: [...kv.etcd.endpoints],
        dialTimeoutMs: kv.etcd.dial_timeout,
      };
    case 'memberlist':
      return { store: 'memberlist' };
    case 'multi':
      if (insideMulti)
        throw new Error(
          `${blockName}.multi: the primary and secondary stores cannot themselves be multi`,
        );
      return {
        store: 'multi',
        primary: specForStore(kv.multi.primary, kv, `${blockName}.multi.primary`, true),
        secondary: specForStore(kv.multi.secondary, kv, `${blockName}.multi.secondary`, true),
        mirrorEnabled: kv.multi.mirror_enabled,
        mirrorTimeoutMs: kv.multi.mirror_timeout,
      };
    default:
      throw new Error(
        `${blockName}.store: unknown KV store "${store}": valid stores are consul, etcd, inmemory, memberlist, multi`,
      );
  }
}
