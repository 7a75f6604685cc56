/**
 * Wiring of the memberlist KV (Cortex's `memberlist-kv` module): one `MemberlistKV` per
 * process, created when some ring's kvstore uses `memberlist`, knowing the codecs of every
 * value this process may gossip (the ring descriptor and the HA tracker's replica), and
 * handed to the KV providers through the spec. The `ring` module runs it (ring_kv.ts).
 */
import type { Config, KVStoreConfig, MemberlistConfig } from '../config/index.js';
import { HA_REPLICA_CODEC_ID, HA_REPLICA_MERGE_CODEC } from '../distributor/index.js';
import { RING_CODEC_ID, RING_MERGE_CODEC } from '../ring/index.js';
import { MemberlistKV, type Env, type KVSpec, type MemberlistKVConfig } from '../runtime/index.js';

/** The runtime settings of the `memberlist` block (bind_addr/bind_port are not used: gossip rides the RPC port). */
export function memberlistKVConfigFrom(c: MemberlistConfig): Partial<MemberlistKVConfig> {
  return {
    nodeName: c.node_name,
    randomizeNodeName: c.randomize_node_name,
    streamTimeoutMs: c.stream_timeout,
    retransmitFactor: c.retransmit_factor,
    pullPushIntervalMs: c.pull_push_interval,
    gossipIntervalMs: c.gossip_interval,
    gossipNodes: c.gossip_nodes,
    gossipToDeadNodesTimeMs: c.gossip_to_dead_nodes_time,
    deadNodeReclaimTimeMs: c.dead_node_reclaim_time,
    joinMembers: [...c.join_members],
    minJoinBackoffMs: c.min_join_backoff,
    maxJoinBackoffMs: c.max_join_backoff,
    maxJoinRetries: c.max_join_retries,
    abortIfJoinFails: c.abort_if_cluster_join_fails,
    rejoinIntervalMs: c.rejoin_interval,
    leftIngestersTimeoutMs: c.left_ingesters_timeout,
    tombstoneTimeoutMs: c.tombstone_timeout,
    leaveTimeoutMs: c.leave_timeout,
    messageHistoryBufferBytes: c.message_history_buffer_bytes,
    packetDialTimeoutMs: c.packet_dial_timeout,
    packetWriteTimeoutMs: c.packet_write_timeout,
  };
}

/** This process's memberlist KV, with the codecs of rings and the HA tracker registered. */
export function newProcessMemberlistKV(config: Config, env: Env): MemberlistKV {
  return new MemberlistKV(memberlistKVConfigFrom(config.memberlist), {
    transport: env.transport,
    clock: env.clock,
    random: env.random,
    logger: env.logger.child({ module: 'memberlist' }),
    registry: env.metrics,
    nodeName: env.nodeName,
    codecs: [RING_MERGE_CODEC, HA_REPLICA_MERGE_CODEC],
  });
}

/** True when the block's store, or its multi primary or secondary, is memberlist. */
export function kvStoreUsesMemberlist(kv: KVStoreConfig): boolean {
  if (kv.store === 'memberlist') return true;
  return (
    kv.store === 'multi' &&
    (kv.multi.primary === 'memberlist' || kv.multi.secondary === 'memberlist')
  );
}

/** The merge codec of each kvstore block's values: rings hold ring descriptors, the HA tracker replicas. */
export const RING_VALUE_CODEC = RING_CODEC_ID;
export const HA_TRACKER_VALUE_CODEC = HA_REPLICA_CODEC_ID;

/**
 * `spec` with every memberlist part (also inside multi) bound to the process's memberlist KV
 * and the codec of the values under this block (`RING_VALUE_CODEC` or `HA_TRACKER_VALUE_CODEC`).
 */
export function bindMemberlist(spec: KVSpec, kv: () => MemberlistKV, codec: string): KVSpec {
  switch (spec.store) {
    case 'memberlist':
      return { ...spec, memberlistKV: kv, codec };
    case 'multi':
      return {
        ...spec,
        primary: bindMemberlist(spec.primary, kv, codec),
        secondary: bindMemberlist(spec.secondary, kv, codec),
      };
    default:
      return spec;
  }
}
