/**
 * Replication sets and Cortex's default replication strategy: which instances of a key's
 * replica set a request uses, and how many of them may fail before the request fails.
 */
import { isInstanceHealthy, type InstanceDesc, type Operation } from './model.js';

/** An instance with the ID it is registered under. */
export interface RingInstance extends InstanceDesc {
  id: string;
}

/** The instances to call for one key and how many of the calls may fail. */
export interface ReplicationSet {
  instances: RingInstance[];
  /** Calls that may fail with the request still succeeding (quorum). */
  maxErrors: number;
  /** Zones whose calls may all fail (zone-aware sets; 0 otherwise). */
  maxUnavailableZones: number;
}

/** Errors of ring lookups; the message is what the caller reports. */
export class RingError extends Error {
  override name = 'RingError';
}

export const EMPTY_RING_MESSAGE = 'empty ring';
export const TOO_MANY_UNHEALTHY_MESSAGE = 'too many unhealthy instances in the ring';

/** Quorum for a replica set of `size`: a strict majority. */
export function quorum(size: number): number {
  return Math.floor(size / 2) + 1;
}

/**
 * Cortex's `defaultReplicationStrategy.Filter`: the quorum is computed over the whole set
 * (which may have grown past the replication factor while instances join or leave), then
 * unhealthy instances are dropped; if fewer than the quorum remain the request cannot
 * succeed and fails up front.
 */
export function filterReplicaSet(
  instances: readonly RingInstance[],
  operation: Operation,
  options: {
    replicationFactor: number;
    heartbeatTimeoutMs: number;
    zoneAwarenessEnabled: boolean;
    nowMs: number;
  },
): { healthy: RingInstance[]; maxErrors: number } {
  const size = Math.max(options.replicationFactor, instances.length);
  const minSuccess = quorum(size);
  const healthy: RingInstance[] = [];
  const unhealthy: string[] = [];
  for (const inst of instances) {
    if (isInstanceHealthy(inst, operation, options.heartbeatTimeoutMs, options.nowMs)) {
      healthy.push(inst);
    } else {
      unhealthy.push(inst.addr);
    }
  }
  if (healthy.length < minSuccess) {
    if (options.zoneAwarenessEnabled) {
      throw new RingError(
        `at least ${minSuccess} live replicas required across different availability zones, could only find ${healthy.length}`,
      );
    }
    throw new RingError(
      `at least ${minSuccess} live replicas required, could only find ${healthy.length} - unhealthy instances: ${unhealthy.join(',')}`,
    );
  }
  return { healthy, maxErrors: healthy.length - minSuccess };
}
