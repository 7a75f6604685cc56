/**
 * The HA tracker's per-cluster value as a gossiped, mergeable value, so `-distributor.ha-tracker.store=memberlist`
 * works: of two copies of a `ReplicaDesc` the later `received_at` wins (the newest election or
 * renewal), then the later `deleted_at` (the cleanup's mark beats the same renewal unmarked,
 * as in Mimir's ReplicaDesc.Merge), then the larger replica name, so every distributor picks
 * the same copy: a join of a total order (commutative, associative, idempotent).
 */
import type { MergeCodec } from '../runtime/index.js';
import { decodeReplicaDesc, encodeReplicaDesc, type ReplicaDesc } from './ha_replica_desc.js';

/** Cortex's codec ID for `ReplicaDesc` (the bytes are its protobuf encoding). */
export const HA_REPLICA_CODEC_ID = 'replicaDesc';

export function compareReplicaDescs(a: ReplicaDesc, b: ReplicaDesc): number {
  if (a.receivedAt !== b.receivedAt) return a.receivedAt < b.receivedAt ? -1 : 1;
  if (a.deletedAt !== b.deletedAt) return a.deletedAt < b.deletedAt ? -1 : 1;
  return a.replica === b.replica ? 0 : a.replica < b.replica ? -1 : 1;
}

export const HA_REPLICA_MERGE_CODEC: MergeCodec<ReplicaDesc> = {
  id: HA_REPLICA_CODEC_ID,
  encode: encodeReplicaDesc,
  decode: decodeReplicaDesc,
  fromClient: (bytes) => decodeReplicaDesc(bytes),
  toClient: encodeReplicaDesc,
  merge: (current, incoming) =>
    compareReplicaDescs(incoming, current) > 0 ? { value: incoming, change: incoming } : undefined,
  removeTombstones: (value) => ({ value, total: 0, removed: 0 }),
  content: (value) => [value.replica],
};
