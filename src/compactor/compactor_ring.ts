/**
 * Compactor ring details beyond plain ownership: the shuffle-sharding ownership check (Cortex's
 * ownUserForCompaction), waiting for the ring to settle at startup (dskit's WaitRingStability)
 * and forgetting compactors that stopped heartbeating (`-compactor.auto-forget-delay`).
 */
import {
  JSON_RING_CODEC,
  RingError,
  EMPTY_RING_MESSAGE,
  isInstanceHealthy,
  shuffleShard,
  type ReadRing,
  type RingCodec,
  type RingInstance,
} from '../ring/index.js';
import { isAbortError, type Clock, type KV, type Logger } from '../runtime/index.js';
import { COMPACTOR_RING_OP } from './ownership.js';

/** `-compactor.sharding-strategy` values. */
export type CompactorShardingStrategy = 'default' | 'shuffle-sharding';

/**
 * The healthy (ACTIVE, fresh heartbeat) members of `tenant`'s shuffle shard of `size`
 * compactors (all compactors for size <= 0); throws RingError when the shard has none.
 */
export function tenantShard(
  ring: ReadRing,
  tenant: string,
  size: number,
  nowMs: number,
): RingInstance[] {
  const shard = shuffleShard(ring.desc(), tenant, size, { zoneAwarenessEnabled: false });
  const ids = Object.keys(shard.ingesters).sort();
  if (ids.length === 0) throw new RingError(EMPTY_RING_MESSAGE);
  return ids
    .map((id) => ({ ...(shard.ingesters[id] as RingInstance), id }))
    .filter((inst) => isInstanceHealthy(inst, COMPACTOR_RING_OP, ring.heartbeatTimeoutMs, nowMs));
}

/**
 * Whether the compactor at `addr` may compact `tenant` under shuffle sharding: it is a healthy
 * member of the tenant's shard (Cortex: `subRing.GetAllHealthy(RingOp).Includes(addr)`).
 */
export function inTenantShard(
  ring: ReadRing,
  tenant: string,
  size: number,
  addr: string,
  nowMs: number,
): boolean {
  return tenantShard(ring, tenant, size, nowMs).some((inst) => inst.addr === addr);
}

/** What a startup wait compares: the healthy instances with their state and tokens. */
function healthySignature(ring: ReadRing, nowMs: number): string {
  const desc = ring.desc();
  return Object.keys(desc.ingesters)
    .sort()
    .filter((id) => {
      const inst = desc.ingesters[id];
      return (
        inst !== undefined &&
        isInstanceHealthy(inst, COMPACTOR_RING_OP, ring.heartbeatTimeoutMs, nowMs)
      );
    })
    .map((id) => {
      const inst = desc.ingesters[id] as RingInstance;
      return `${id}|${inst.addr}|${inst.zone}|${inst.state}|${inst.tokens.join(',')}`;
    })
    .join(';');
}

/** How often the stability wait looks at the ring (dskit polls every second). */
const STABILITY_POLL_MS = 1_000;

/**
 * Waits until the healthy part of the ring has not changed for `minMs`, or `maxMs` passed.
 * Resolves true when stable, false when it gave up (Cortex then logs and goes on).
 */
export async function waitRingStability(
  ring: ReadRing,
  clock: Clock,
  minMs: number,
  maxMs: number,
  signal: AbortSignal,
): Promise<boolean> {
  const started = clock.now();
  let last = healthySignature(ring, started);
  let lastChange = started;
  for (;;) {
    await clock.sleep(STABILITY_POLL_MS, signal);
    const now = clock.now();
    if (now - started >= maxMs) return false;
    const current = healthySignature(ring, now);
    if (current !== last) {
      last = current;
      lastChange = now;
    } else if (now - lastChange >= minMs) {
      return true;
    }
  }
}

/**
 * Removes from the ring every instance but `selfId` whose last heartbeat is older than
 * `delayMs`; returns the IDs removed. A compactor that died without leaving would otherwise
 * keep its tokens, and the tenants they cover would have no owner.
 */
export async function forgetStaleCompactors(
  kv: KV,
  key: string,
  selfId: string,
  nowMs: number,
  delayMs: number,
  logger: Logger,
  codec: RingCodec = JSON_RING_CODEC,
): Promise<string[]> {
  let removed: string[] = [];
  try {
    await kv.cas(key, (current) => {
      const desc = codec.decode(current);
      removed = Object.keys(desc.ingesters).filter((id) => {
        const inst = desc.ingesters[id];
        return id !== selfId && inst !== undefined && nowMs - inst.timestamp * 1000 > delayMs;
      });
      if (removed.length === 0) return undefined;
      for (const id of removed) delete desc.ingesters[id];
      return codec.encode(desc);
    });
  } catch (err) {
    if (isAbortError(err)) throw err;
    logger.warn('failed to forget unhealthy compactors', { err: String(err) });
    return [];
  }
  for (const id of removed) {
    logger.warn('auto-forgot a compactor whose heartbeat is too old', { id, delay_ms: delayMs });
  }
  return removed;
}
