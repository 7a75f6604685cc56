/**
 * The `ring` module: opens the KV clients of the hash rings this process uses, from each
 * ring's `kvstore` configuration block. Until the rings themselves arrive, opening them is
 * what validates the store choice (an unsupported store fails the start, naming the block).
 */
import type { KVStoreConfig } from '../config/index.js';
import type { KV, KVSpec } from '../runtime/index.js';
import type { RingKVClients, StrataContext } from './context.js';
import { BasicService, type Service } from '../services/index.js';

/** Modules that read the store-gateway ring (to shard or to find store-gateways). */
const INGESTER_RING_USERS: readonly string[] = ['distributor', 'ingester', 'querier', 'ruler'];
const STORE_GATEWAY_RING_USERS: readonly string[] = ['store-gateway', 'querier', 'ruler'];

export function ringService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const opened: KV[] = [];
  const closeAll = async (): Promise<void> => {
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
    starting: async () => {
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
      } catch (err) {
        await closeAll();
        throw err;
      }
    },
    stopping: async () => {
      ctx.rings = undefined;
      await closeAll();
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
