/**
 * The `ring` module: opens the KV clients of the hash rings this process uses, from each
 * ring's `kvstore` configuration block (an unsupported store fails the start, naming the
 * block), runs the ingester ring client the distributor, ingester and querier share, and
 * keeps `multi` stores following the runtime config's `multi_kv_config`. When one of those
 * blocks uses `memberlist`, the module also runs the process's one memberlist KV (Cortex's
 * `memberlist-kv` module, folded in here like the rings): it joins the cluster before the
 * rings open and leaves after they closed.
 */
import type { Config, KVStoreConfig } from '../config/index.js';
import type { KV, KVSpec, MemberlistKV } from '../runtime/index.js';
import type { RingKVClients, StrataContext } from './context.js';
import { BasicService, type Service } from '../services/index.js';
import {
  HA_TRACKER_VALUE_CODEC,
  RING_VALUE_CODEC,
  bindMemberlist,
  kvStoreUsesMemberlist,
  newProcessMemberlistKV,
} from './memberlist_kv.js';
import { distributorRingClient, followMultiKVConfig, ingesterRingClient } from './ring_client.js';

/** Modules that use the ingester ring. */
export const INGESTER_RING_USERS: readonly string[] = [
  'distributor',
  'ingester',
  'querier',
  'ruler',
];
const STORE_GATEWAY_RING_USERS: readonly string[] = ['store-gateway', 'querier', 'ruler'];

/** A `kvstore` block the ring module opens in this process. */
export interface RingStore {
  readonly slot: keyof RingKVClients;
  /** The block's YAML path, for error messages. */
  readonly block: string;
  readonly kv: KVStoreConfig;
  /** The merge codec of its values when it is gossiped (memberlist). */
  readonly codec: string;
}

/**
 * The KV stores of the rings (and the HA tracker) a module of this process uses: only those
 * are opened, so e.g. a compactor does not need the ingester ring's store to be reachable.
 */
export function ringStoresInUse(config: Config, modules: readonly string[]): RingStore[] {
  const stores: RingStore[] = [];
  const add = (slot: keyof RingKVClients, block: string, kv: KVStoreConfig, codec: string) =>
    stores.push({ slot, block, kv, codec });
  if (INGESTER_RING_USERS.some((m) => modules.includes(m)))
    add(
      'ingester',
      'ingester.lifecycler.ring.kvstore',
      config.ingester.lifecycler.ring.kvstore,
      RING_VALUE_CODEC,
    );
  // Distributors only need each other for the global ingestion rate limit (Cortex joins the
  // distributor ring only then, too).
  if (modules.includes('distributor') && config.limits.ingestion_rate_strategy === 'global')
    add(
      'distributor',
      'distributor.ring.kvstore',
      config.distributor.ring.kvstore,
      RING_VALUE_CODEC,
    );
  if (config.distributor.ha_tracker.enable_ha_tracker && modules.includes('distributor'))
    add(
      'haTracker',
      'distributor.ha_tracker.kvstore',
      config.distributor.ha_tracker.kvstore,
      HA_TRACKER_VALUE_CODEC,
    );
  if (
    config.store_gateway.sharding_enabled &&
    STORE_GATEWAY_RING_USERS.some((m) => modules.includes(m))
  )
    add(
      'storeGateway',
      'store_gateway.sharding_ring.kvstore',
      config.store_gateway.sharding_ring.kvstore,
      RING_VALUE_CODEC,
    );
  if (config.compactor.sharding_enabled && modules.includes('compactor'))
    add(
      'compactor',
      'compactor.sharding_ring.kvstore',
      config.compactor.sharding_ring.kvstore,
      RING_VALUE_CODEC,
    );
  return stores;
}

export function ringService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const opened: KV[] = [];
  let unfollow = (): void => undefined;
  let memberlist: MemberlistKV | undefined;
  const closeAll = async (): Promise<void> => {
    unfollow();
    const clients = [ctx.ingesterRing, ctx.distributorRing];
    ctx.ingesterRing = undefined;
    ctx.distributorRing = undefined;
    await Promise.all(clients.map((ring) => ring?.stop() ?? Promise.resolve()));
    await Promise.all(opened.splice(0).map((kv) => kv.close()));
    // Last: the rings' final updates (an unregistered instance) are gossiped before leaving.
    await memberlist?.stop();
  };
  // Created in `starting` whenever a store in use is memberlist, before any is opened.
  const processMemberlist = (): MemberlistKV => {
    if (memberlist === undefined) throw new Error('this process runs no memberlist KV');
    return memberlist;
  };
  const open = ({ kv, block, codec }: RingStore): KV => {
    let client: KV;
    try {
      const spec = bindMemberlist(kvSpecFromConfig(kv, block), processMemberlist, codec);
      client = env.kvs.open(spec, kv.prefix);
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
      const stores = ringStoresInUse(config, ctx.modules());
      try {
        if (stores.some((s) => kvStoreUsesMemberlist(s.kv))) {
          memberlist = newProcessMemberlistKV(config, env);
          ctx.memberlistKV = memberlist;
          // Gossip rides the RPC transport, which the server module has started listening.
          await memberlist.start(signal);
        }
        const rings: { -readonly [K in keyof RingKVClients]: RingKVClients[K] } = {};
        for (const store of stores) rings[store.slot] = open(store);
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
    // The memberlist KV retries joining here; when it cannot join and
    // -memberlist.abort-if-join-fails is set, this fails the module (and the process), as in Cortex.
    running: async (signal) => {
      if (memberlist !== undefined) await memberlist.run(signal);
      else if (!signal.aborted)
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
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
