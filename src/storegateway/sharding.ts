/**
 * Which store-gateway holds which block (Cortex's default sharding strategy): the ring key,
 * the block hash, the three ring operations, and the replica-set lookup with Cortex's
 * "ignore unhealthy instances" strategy, which the querier uses too so both sides agree.
 *
 * The Ring client applies a quorum (the ingesters' strategy) and filters by heartbeat; the
 * store-gateway must not: a block whose other owners are dead is still loaded by the one
 * owner left. So the ring client for this ring is built with heartbeat checks off
 * (`storeGatewayRingConfig`) and `blockReplicaSet` filters states and heartbeats itself.
 */
import {
  INSTANCE_STATES,
  RingError,
  isHeartbeatHealthy,
  type InstanceState,
  type Operation,
  type ReadRing,
  type RingConfig,
  type RingInstance,
} from '../ring/index.js';
import { parseUlid } from '../tsdb/index.js';
import type { BlockMeta } from '../tsdb/index.js';

/** KV key of the store-gateway ring descriptor (Cortex's RingKey). */
export const STORE_GATEWAY_RING_KEY = 'store-gateway';
export const STORE_GATEWAY_RING_NAME = 'store-gateway';
/** Tokens per store-gateway (Cortex's RingNumTokens; not configurable there either). */
export const STORE_GATEWAY_NUM_TOKENS = 512;
/** How often the running gateway compares the ring with the last one it synced for. */
export const RING_CHECK_PERIOD_MS = 5_000;
/** Unhealthy instances are removed from the ring after this many heartbeat timeouts. */
export const AUTO_FORGET_UNHEALTHY_PERIODS = 10;

function operation(
  name: string,
  healthy: readonly InstanceState[],
  extend: (s: InstanceState) => boolean,
): Operation {
  return { name, healthyStates: new Set(healthy), shouldExtendReplicaSet: extend };
}

/**
 * The authoritative owners of a block, replicas included: JOINING instances load their blocks
 * before becoming ACTIVE, and a LEAVING one makes the set grow so its successor loads early.
 */
export const BLOCKS_OWNER_SYNC = operation(
  'blocks-owner-sync',
  ['JOINING', 'ACTIVE', 'LEAVING'],
  (s) => s === 'LEAVING',
);

/** The owners able to serve queries now (ACTIVE only, no extension). */
export const BLOCKS_OWNER_READ = operation('blocks-owner-read', ['ACTIVE'], () => false);

/**
 * What a querier asks: ACTIVE instances, extended past non-ACTIVE ones, which still hold
 * the blocks they owned until the new owners are ACTIVE.
 */
export const BLOCKS_READ = operation('blocks-read', ['ACTIVE'], (s) => s !== 'ACTIVE');

/**
 * Cortex's HashBlockID: FNV-1 (multiply, then xor; not FNV-1a) over the 16 ULID bytes. Both
 * sides of the ring must agree bit for bit, or queriers ask the wrong store-gateways.
 */
export function hashBlockId(blockId: string): number {
  let h = 2166136261;
  for (const b of parseUlid(blockId)) {
    h = Math.imul(h, 16777619) >>> 0;
    h = (h ^ b) >>> 0;
  }
  return h;
}

/** RingConfig for a store-gateway ring client (lifecycler side or querier side). */
export function storeGatewayRingConfig(opts: {
  replicationFactor: number;
  zoneAwarenessEnabled?: boolean;
}): RingConfig {
  return {
    name: STORE_GATEWAY_RING_NAME,
    key: STORE_GATEWAY_RING_KEY,
    replicationFactor: opts.replicationFactor,
    // Health is judged in blockReplicaSet (see the module comment).
    heartbeatTimeoutMs: 0,
    zoneAwarenessEnabled: opts.zoneAwarenessEnabled ?? false,
  };
}

/** Every state healthy and no quorum failure possible: the raw walk of the ring. */
function walkOnly(op: Operation): Operation {
  return {
    name: `${op.name}-walk`,
    healthyStates: new Set(INSTANCE_STATES),
    shouldExtendReplicaSet: (s) => op.shouldExtendReplicaSet(s),
  };
}

export interface HealthOptions {
  heartbeatTimeoutMs: number;
  nowMs: number;
}

function healthyFor(inst: RingInstance, op: Operation, health: HealthOptions): boolean {
  return (
    op.healthyStates.has(inst.state) &&
    isHeartbeatHealthy(inst, health.heartbeatTimeoutMs, health.nowMs)
  );
}

/**
 * The instances holding `blockId` for `op`: the ring walk for the block's hash, unhealthy
 * instances dropped. Throws RingError when none is left (or the ring is empty), which is
 * what tells the sync to keep a block it already has.
 */
export function blockReplicaSet(
  ring: ReadRing,
  blockId: string,
  op: Operation,
  health: HealthOptions,
): RingInstance[] {
  const set = ring.get(hashBlockId(blockId), walkOnly(op));
  const healthy = set.instances.filter((inst) => healthyFor(inst, op, health));
  if (healthy.length === 0)
    throw new RingError(`no healthy store-gateway for block ${blockId} (${op.name})`);
  return healthy;
}

/** Healthy instances for `op` over the whole ring, sorted by ID; empty when the ring is. */
export function healthyInstances(
  ring: ReadRing,
  op: Operation,
  health: HealthOptions,
): RingInstance[] {
  if (ring.instancesCount() === 0) return [];
  return ring.getAllHealthy(walkOnly(op)).filter((inst) => healthyFor(inst, op, health));
}

/**
 * A comparable summary of a set of instances (everything but the heartbeat timestamp, like
 * dskit's HasReplicationSetChanged): a change means some block may have changed owner.
 */
export function instanceSetSignature(instances: readonly RingInstance[]): string {
  return instances
    .map((i) => `${i.id}|${i.addr}|${i.zone}|${i.state}|${i.tokens.join(',')}`)
    .sort()
    .join('\n');
}

/** Decides which tenants and blocks this store-gateway loads. */
export interface ShardingStrategy {
  /** The tenants whose blocks this instance may load. */
  filterTenants(tenants: readonly string[]): string[];
  /**
   * Removes from `metas` the blocks this instance must not hold. `loaded` are the blocks
   * this strategy kept on the previous sync (now loaded or loading). Returns the IDs removed.
   */
  filterBlocks(
    tenant: string,
    metas: Map<string, BlockMeta>,
    loaded: ReadonlySet<string>,
  ): string[];
}

/** Sharding off: every store-gateway loads every block. */
export const NO_SHARDING: ShardingStrategy = {
  filterTenants: (tenants) => [...tenants],
  filterBlocks: () => [],
};

export interface RingShardingDeps {
  ring: ReadRing;
  /** The address this instance registered in the ring. */
  instanceAddr: () => string;
  heartbeatTimeoutMs: number;
  now: () => number;
  /** Lookup failures (empty ring...) are logged here. */
  onLookupError?: (blockId: string, kept: boolean, err: Error) => void;
}

/**
 * Cortex's DefaultShardingStrategy: every tenant; a block is kept when this instance is in
 * its BLOCKS_OWNER_SYNC set. A block loaded earlier and no longer owned is kept while no
 * owner can serve it yet (the BLOCKS_OWNER_READ lookup fails), so queries never find a gap
 * during a ring change; and when the ring cannot be read at all, loaded blocks stay.
 */
export class RingShardingStrategy implements ShardingStrategy {
  constructor(private readonly deps: RingShardingDeps) {}

  filterTenants(tenants: readonly string[]): string[] {
    return [...tenants];
  }

  filterBlocks(
    _tenant: string,
    metas: Map<string, BlockMeta>,
    loaded: ReadonlySet<string>,
  ): string[] {
    const removed: string[] = [];
    const health = { heartbeatTimeoutMs: this.deps.heartbeatTimeoutMs, nowMs: this.deps.now() };
    const self = this.deps.instanceAddr();
    for (const id of [...metas.keys()]) {
      let owners: RingInstance[];
      try {
        owners = blockReplicaSet(this.deps.ring, id, BLOCKS_OWNER_SYNC, health);
      } catch (err) {
        const kept = loaded.has(id);
        this.deps.onLookupError?.(id, kept, err as Error);
        if (!kept) {
          metas.delete(id);
          removed.push(id);
        }
        continue;
      }
      if (owners.some((o) => o.addr === self)) continue;
      if (loaded.has(id) && !this.servable(id, health)) continue;
      metas.delete(id);
      removed.push(id);
    }
    return removed;
  }

  private servable(blockId: string, health: HealthOptions): boolean {
    try {
      blockReplicaSet(this.deps.ring, blockId, BLOCKS_OWNER_READ, health);
      return true;
    } catch {
      return false;
    }
  }
}
