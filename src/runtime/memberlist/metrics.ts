import type { Counter, Gauge } from 'prom-client';
import { registeredCounter, registeredGauge, type MetricsRegistry } from '../metrics.js';

/**
 * dskit's memberlist metrics (`memberlist_client_*` for the KV, `memberlist_tcp_transport_*`
 * for the messages: here they count Transport calls, "packets" being memberlist.Packet calls
 * and "streams" memberlist.Stream calls). Cortex registers them without a namespace.
 */
export class MemberlistMetrics {
  readonly receivedBroadcasts: Counter;
  readonly receivedBroadcastsBytes: Counter;
  readonly receivedBroadcastsInvalid: Counter;
  readonly statePulls: Counter;
  readonly statePullsBytes: Counter;
  readonly statePushes: Counter;
  readonly statePushesBytes: Counter;
  readonly messagesInQueue: Gauge<'queue'>;
  readonly messagesInQueueBytes: Gauge;
  readonly broadcastsDropped: Counter;
  readonly casAttempts: Counter;
  readonly casSuccesses: Counter;
  readonly casFailures: Counter;
  readonly kvStoreCount: Gauge;
  readonly tombstones: Gauge<'key'>;
  readonly tombstonesRemoved: Counter<'key'>;
  readonly deletedKeysSwept: Counter;
  readonly membersCount: Gauge;
  readonly healthScore: Gauge;
  readonly packetsSent: Counter;
  readonly packetsSentBytes: Counter;
  readonly packetsSentErrors: Counter;
  readonly packetsReceived: Counter;
  readonly packetsReceivedBytes: Counter;
  readonly packetsReceivedErrors: Counter;
  readonly incomingStreams: Counter;
  readonly outgoingStreams: Counter;
  readonly outgoingStreamErrors: Counter;

  constructor(registry: MetricsRegistry) {
    const c = (name: string, help: string): Counter =>
      registeredCounter(registry, `memberlist_client_${name}`, help);
    const t = (name: string, help: string): Counter =>
      registeredCounter(registry, `memberlist_tcp_transport_${name}`, help);
    this.receivedBroadcasts = c(
      'received_broadcasts_total',
      'Number of received broadcast user messages',
    );
    this.receivedBroadcastsBytes = c(
      'received_broadcasts_bytes_total',
      'Total size of received broadcast user messages',
    );
    this.receivedBroadcastsInvalid = c(
      'received_broadcasts_invalid_total',
      'Number of received broadcast user messages that were invalid. Hopefully 0.',
    );
    this.statePulls = c(
      'state_pulls_total',
      'How many times did this node pull full state from another node',
    );
    this.statePullsBytes = c('state_pulls_bytes_total', 'Total size of pulled state');
    this.statePushes = c(
      'state_pushes_total',
      'How many times did this node push its full state to another node',
    );
    this.statePushesBytes = c('state_pushes_bytes_total', 'Total size of pushed state');
    this.messagesInQueue = registeredGauge(
      registry,
      'memberlist_client_messages_in_broadcast_queue',
      'Number of user messages in the broadcast queue',
      ['queue'],
    );
    this.messagesInQueueBytes = registeredGauge(
      registry,
      'memberlist_client_messages_in_broadcast_queue_bytes',
      'Total size of messages waiting in the broadcast queue',
    );
    this.broadcastsDropped = c(
      'messages_to_broadcast_dropped_total',
      'Number of broadcast messages intended to be sent but were dropped due to encoding errors or for being too big',
    );
    this.casAttempts = c('cas_attempt_total', 'Attempted CAS operations');
    this.casSuccesses = c('cas_success_total', 'Successful CAS operations');
    this.casFailures = c('cas_failure_total', 'Failed CAS operations');
    this.kvStoreCount = registeredGauge(
      registry,
      'memberlist_client_kv_store_count',
      'Number of values in KV Store',
    );
    this.tombstones = registeredGauge(
      registry,
      'memberlist_client_kv_store_value_tombstones',
      'Number of tombstones currently present in KV store values',
      ['key'],
    );
    this.tombstonesRemoved = registeredCounter(
      registry,
      'memberlist_client_kv_store_value_tombstones_removed_total',
      'Total number of tombstones which have been removed from KV store values',
      ['key'],
    );
    this.deletedKeysSwept = c(
      'kv_store_tombstones_swept_total',
      'Deleted keys forgotten after the tombstone timeout',
    );
    this.membersCount = registeredGauge(
      registry,
      'memberlist_client_cluster_members_count',
      'Number of members in memberlist cluster',
    );
    this.healthScore = registeredGauge(
      registry,
      'memberlist_client_cluster_node_health_score',
      'Health score of this cluster. Lower value is better. 0 = healthy',
    );
    this.packetsSent = t('packets_sent_total', 'Number of packets sent');
    this.packetsSentBytes = t('packets_sent_bytes_total', 'Total bytes sent in packets');
    this.packetsSentErrors = t(
      'packets_sent_errors_total',
      'Number of errors when sending packets',
    );
    this.packetsReceived = t('packets_received_total', 'Number of received packets');
    this.packetsReceivedBytes = t(
      'packets_received_bytes_total',
      'Total bytes received in packets',
    );
    this.packetsReceivedErrors = t(
      'packets_received_errors_total',
      'Number of errors when receiving packets',
    );
    this.incomingStreams = t('incoming_streams_total', 'Number of incoming streams');
    this.outgoingStreams = t('outgoing_streams_total', 'Number of outgoing streams');
    this.outgoingStreamErrors = t(
      'outgoing_stream_errors_total',
      'Number of errors when opening memberlist stream to another node',
    );
  }
}
