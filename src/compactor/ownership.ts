/**
 * Which compactor owns a tenant (Cortex's `Compactor.ownUser` for the default sharding
 * strategy): the single ACTIVE instance of the compactor ring (replication factor 1) found by
 * walking the ring from the token fnv32a(tenant). A walk that lands on an instance in any
 * other state, or on one with a stale heartbeat, finds no owner: during a ring change a
 * tenant is briefly cleaned by nobody rather than by two compactors.
 */
import { RingError, type Operation, type ReadRing, type RingInstance } from '../ring/index.js';

/** The KV key of the compactor ring (Cortex's `compactor`). */
export const COMPACTOR_RING_KEY = 'compactor';

/** Tokens each compactor registers (Cortex's ringNumTokens). */
export const COMPACTOR_RING_NUM_TOKENS = 512;

/** Cortex's compactor RingOp: only ACTIVE instances, no extension of the replica set. */
export const COMPACTOR_RING_OP: Operation = {
  name: 'compactor',
  healthyStates: new Set(['ACTIVE']),
  shouldExtendReplicaSet: () => false,
};

const FNV32_OFFSET = 2166136261;
const FNV32_PRIME = 16777619;

/** FNV-1a 32-bit over the UTF-8 bytes of `s` (Go's hash/fnv New32a). */
export function fnv32a(s: string): number {
  let h = FNV32_OFFSET;
  for (const byte of new TextEncoder().encode(s)) h = Math.imul(h ^ byte, FNV32_PRIME);
  return h >>> 0;
}

/** The compactor that owns `tenant`; throws RingError when the ring has no usable owner. */
export function tenantOwner(ring: ReadRing, tenant: string): RingInstance {
  const set = ring.get(fnv32a(tenant), COMPACTOR_RING_OP);
  const [owner] = set.instances;
  if (set.instances.length !== 1 || owner === undefined) {
    throw new RingError(
      `unexpected number of compactors in the shard (expected 1, got ${set.instances.length})`,
    );
  }
  return owner;
}

/** Whether the compactor registered at `instanceAddr` owns `tenant` (Cortex compares addresses). */
export function ownsTenant(ring: ReadRing, tenant: string, instanceAddr: string): boolean {
  return tenantOwner(ring, tenant).addr === instanceAddr;
}
