/**
 * Definition table, memberlist part: the top-level `memberlist` block (Cortex's
 * `memberlist_config`, flags `-memberlist.*`), configuring the one gossip KV store per process
 * that every ring and the HA tracker use with `store: memberlist` (alias `gossip`). Strata
 * gossips over its internal RPC port: the bind settings are accepted for compatibility and
 * otherwise unused (docs/memberlist.md).
 */
import { block, setting } from './definition.js';
import { MINUTE, MS, SECOND } from './time_units.js';

export const memberlistBlock = block(
  'The memberlist (gossip) KV store, shared by every ring using `store: memberlist`.',
  {
    node_name: setting('string', '', {
      flag: 'memberlist.nodename',
      help: 'Name of the node in memberlist cluster. Defaults to hostname.',
    }),
    randomize_node_name: setting('bool', true, {
      flag: 'memberlist.randomize-node-name',
      help: 'Add random suffix to the node name.',
    }),
    stream_timeout: setting('duration', 10 * SECOND, {
      flag: 'memberlist.stream-timeout',
      help: 'The timeout for establishing a connection with a remote node, and for read/write operations.',
    }),
    retransmit_factor: setting('int', 4, {
      flag: 'memberlist.retransmit-factor',
      help: 'Multiplication factor used when sending out messages (factor * log(N+1)).',
    }),
    pull_push_interval: setting('duration', 30 * SECOND, {
      flag: 'memberlist.pullpush-interval',
      help: 'How often to use pull/push sync.',
    }),
    gossip_interval: setting('duration', 200 * MS, {
      flag: 'memberlist.gossip-interval',
      help: 'How often to gossip.',
    }),
    gossip_nodes: setting('int', 3, {
      flag: 'memberlist.gossip-nodes',
      help: 'How many nodes to gossip to.',
    }),
    gossip_to_dead_nodes_time: setting('duration', 30 * SECOND, {
      flag: 'memberlist.gossip-to-dead-nodes-time',
      help: 'How long to keep gossiping to dead nodes, to give them chance to refute their death.',
    }),
    dead_node_reclaim_time: setting('duration', 0, {
      flag: 'memberlist.dead-node-reclaim-time',
      help: "How soon can dead node's name be reclaimed with new address. 0 to disable.",
    }),
    join_members: setting('stringList', [], {
      flag: 'memberlist.join',
      help: 'Other cluster members to join (comma separated): internal RPC addresses (host:port of -server.grpc-listen-port).',
    }),
    min_join_backoff: setting('duration', 1 * SECOND, {
      flag: 'memberlist.min-join-backoff',
      help: 'Min backoff duration to join other cluster members.',
    }),
    max_join_backoff: setting('duration', 1 * MINUTE, {
      flag: 'memberlist.max-join-backoff',
      help: 'Max backoff duration to join other cluster members.',
    }),
    max_join_retries: setting('int', 10, {
      flag: 'memberlist.max-join-retries',
      help: 'Max number of retries to join other cluster members.',
    }),
    abort_if_cluster_join_fails: setting('bool', true, {
      flag: 'memberlist.abort-if-join-fails',
      help: 'If this node fails to join memberlist cluster, abort.',
    }),
    rejoin_interval: setting('duration', 0, {
      flag: 'memberlist.rejoin-interval',
      help: "If not 0, how often to rejoin the cluster. Occasional rejoin can help to fix the cluster split issue, and is harmless otherwise. For example when using only few components as a seed nodes (via -memberlist.join), then it's recommended to use rejoin. If -memberlist.join points to dynamic service that resolves to all gossiping nodes (eg. Kubernetes headless service), then rejoin is not needed.",
    }),
    left_ingesters_timeout: setting('duration', 5 * MINUTE, {
      flag: 'memberlist.left-ingesters-timeout',
      help: 'How long to keep LEFT ingesters in the ring.',
    }),
    tombstone_timeout: setting('duration', 5 * MINUTE, {
      flag: 'memberlist.tombstone-timeout',
      help: 'How long to keep deleted keys (tombstones) in the KV store.',
    }),
    leave_timeout: setting('duration', 5 * SECOND, {
      flag: 'memberlist.leave-timeout',
      help: 'Timeout for leaving memberlist cluster.',
    }),
    message_history_buffer_bytes: setting('int', 0, {
      flag: 'memberlist.message-history-buffer-bytes',
      help: 'How much space to use for keeping received and sent messages in memory for troubleshooting (two buffers). 0 to disable.',
    }),
    bind_addr: setting('stringList', [], {
      flag: 'memberlist.bind-addr',
      help: 'IP address to listen on for gossip messages. Accepted for Cortex compatibility; Strata gossips on the internal RPC listener.',
    }),
    bind_port: setting('int', 7946, {
      flag: 'memberlist.bind-port',
      help: 'Port to listen on for gossip messages. Accepted for Cortex compatibility; Strata gossips on the internal RPC port.',
    }),
    packet_dial_timeout: setting('duration', 5 * SECOND, {
      flag: 'memberlist.packet-dial-timeout',
      help: 'Timeout used when connecting to other nodes to send packet.',
    }),
    packet_write_timeout: setting('duration', 5 * SECOND, {
      flag: 'memberlist.packet-write-timeout',
      help: "Timeout for writing 'packet' data.",
    }),
  },
);
