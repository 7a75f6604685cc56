/**
 * Which store-gateway to ask for each block (Cortex's BlocksStoreSet). With sharding, a
 * block lives on the `BlocksRead` replica set of its FNV-1 key in the store-gateway ring;
 * without, every store-gateway of a configured address list holds every block; with an
 * embedded store, the process itself answers. Each call picks, per block, one instance not
 * yet tried for that block (randomly, to spread load), so the consistency check's retries
 * go elsewhere.
 */
import type { ReadRing, RingInstance } from '../ring/index.js';
import type { Clock, RandomStream } from '../runtime/index.js';
import { BLOCKS_READ, blockReplicaSet } from '../storegateway/index.js';
import { IN_PROCESS_STORE_ADDRESS } from './blocks_store_client.js';

export interface BlocksStoreSet {
  /**
   * Block IDs grouped by the store-gateway address to ask, avoiding for each block the
   * addresses in `exclude` (already tried). Throws when a block has no instance left.
   */
  clientsFor(
    tenant: string,
    blockIds: readonly string[],
    exclude: ReadonlyMap<string, readonly string[]>,
  ): Map<string, string[]>;
}

/** Sharding disabled: any address of `-querier.store-gateway-addresses` (Cortex's balanced set). */
export class BalancedBlocksStoreSet implements BlocksStoreSet {
  constructor(
    private readonly config: { readonly addresses: readonly string[] },
    private readonly deps: { readonly random: RandomStream },
  ) {}

  clientsFor(
    _tenant: string,
    blockIds: readonly string[],
    exclude: ReadonlyMap<string, readonly string[]>,
  ): Map<string, string[]> {
    const { addresses } = this.config;
    if (addresses.length === 0) {
      throw new Error(
        `no address resolved for the store-gateway service addresses ${addresses.join(',')}`,
      );
    }
    // One shuffle per call spreads queries while keeping a query's blocks together.
    const order = shuffled(addresses, this.deps.random);
    const out = new Map<string, string[]>();
    for (const id of blockIds) {
      const tried = exclude.get(id) ?? [];
      const addr = order.find((a) => !tried.includes(a));
      if (addr === undefined) {
        throw new Error(
          `no store-gateway instance left after filtering out excluded instances for block ${id}`,
        );
      }
      push(out, addr, id);
    }
    return out;
  }
}

export interface ReplicatedBlocksStoreSetConfig {
  /** Cortex's randomLoadBalancing (the querier's choice); false takes the ring's order. */
  readonly randomLoadBalancing: boolean;
  /** `-store-gateway.sharding-ring.heartbeat-timeout`: older heartbeats are unhealthy. */
  readonly heartbeatTimeoutMs: number;
}

export interface ReplicatedBlocksStoreSetDeps {
  /** The store-gateway ring (built with `storeGatewayRingConfig`). */
  readonly ring: ReadRing;
  readonly clock: Clock;
  readonly random: RandomStream;
}

/**
 * Sharding enabled: the block's `BLOCKS_READ` replica set in the store-gateway ring, with
 * the store-gateway's own lookup so both sides agree on owners (Cortex's replicated set).
 */
export class ReplicatedBlocksStoreSet implements BlocksStoreSet {
  constructor(
    private readonly config: ReplicatedBlocksStoreSetConfig,
    private readonly deps: ReplicatedBlocksStoreSetDeps,
  ) {}

  clientsFor(
    _tenant: string,
    blockIds: readonly string[],
    exclude: ReadonlyMap<string, readonly string[]>,
  ): Map<string, string[]> {
    const health = {
      heartbeatTimeoutMs: this.config.heartbeatTimeoutMs,
      nowMs: this.deps.clock.now(),
    };
    const out = new Map<string, string[]>();
    for (const id of blockIds) {
      let instances: RingInstance[];
      try {
        instances = blockReplicaSet(this.deps.ring, id, BLOCKS_READ, health);
      } catch (err) {
        throw new Error(
          `failed to get store-gateway replication set owning the block ${id}: ${
            err instanceof Error ? err.message : String(err)
          }`,
          { cause: err },
        );
      }
      const tried = exclude.get(id) ?? [];
      const candidates = this.config.randomLoadBalancing
        ? shuffled(instances, this.deps.random)
        : instances;
      const inst = candidates.find((i) => !tried.includes(i.addr));
      if (inst === undefined) {
        throw new Error(`no store-gateway instance left after checking exclude for block ${id}`);
      }
      push(out, inst.addr, id);
    }
    return out;
  }
}

/** The store-gateway's bucket stores embedded in this process: one "instance" holds all. */
export class InProcessBlocksStoreSet implements BlocksStoreSet {
  clientsFor(
    _tenant: string,
    blockIds: readonly string[],
    exclude: ReadonlyMap<string, readonly string[]>,
  ): Map<string, string[]> {
    for (const id of blockIds) {
      if ((exclude.get(id) ?? []).includes(IN_PROCESS_STORE_ADDRESS)) {
        throw new Error(`no store-gateway instance left after checking exclude for block ${id}`);
      }
    }
    return new Map(blockIds.length === 0 ? [] : [[IN_PROCESS_STORE_ADDRESS, [...blockIds]]]);
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** A Fisher-Yates shuffled copy, drawing from the seeded stream. */
function shuffled<T>(items: readonly T[], random: RandomStream): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return out;
}
