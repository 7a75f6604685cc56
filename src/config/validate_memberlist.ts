/**
 * Validation of the `memberlist` block: the ranges the gossip protocol needs, checked at load
 * time so a bad value is a config error naming the setting and its flag, not a failure when
 * the ring module starts the memberlist KV.
 */
import { formatDuration } from './duration.js';
import type { MemberlistConfig } from './types.js';

type Key = keyof MemberlistConfig;

/** Each must be > 0: the protocol cannot run without them. */
const POSITIVE: readonly Key[] = [
  'stream_timeout',
  'retransmit_factor',
  'gossip_interval',
  'gossip_nodes',
];

/** Each must be >= 0 (0 disables or means "no wait" where Cortex says so). */
const NON_NEGATIVE: readonly Key[] = [
  'pull_push_interval',
  'gossip_to_dead_nodes_time',
  'dead_node_reclaim_time',
  'min_join_backoff',
  'max_join_backoff',
  'max_join_retries',
  'rejoin_interval',
  'left_ingesters_timeout',
  'tombstone_timeout',
  'leave_timeout',
  'message_history_buffer_bytes',
  'packet_dial_timeout',
  'packet_write_timeout',
];

const DURATIONS: ReadonlySet<Key> = new Set<Key>([
  'stream_timeout',
  'gossip_interval',
  'pull_push_interval',
  'gossip_to_dead_nodes_time',
  'dead_node_reclaim_time',
  'min_join_backoff',
  'max_join_backoff',
  'rejoin_interval',
  'left_ingesters_timeout',
  'tombstone_timeout',
  'leave_timeout',
  'packet_dial_timeout',
  'packet_write_timeout',
]);

/**
 * Problems of `c`; `name` renders a YAML path (`memberlist.gossip_nodes`) as messages name
 * settings, e.g. `memberlist.gossip_nodes (-memberlist.gossip-nodes)`.
 */
export function memberlistProblems(
  c: MemberlistConfig,
  name: (yamlPath: string) => string,
): string[] {
  const problems: string[] = [];
  const shown = (key: Key): string => {
    const v = c[key] as number;
    return DURATIONS.has(key) ? formatDuration(v) : String(v);
  };
  for (const key of POSITIVE)
    if ((c[key] as number) <= 0)
      problems.push(`${name(`memberlist.${key}`)} is ${shown(key)}: it must be greater than 0`);
  for (const key of NON_NEGATIVE)
    if ((c[key] as number) < 0)
      problems.push(`${name(`memberlist.${key}`)} is ${shown(key)}: it must not be negative`);
  if (c.max_join_backoff < c.min_join_backoff)
    problems.push(
      `${name('memberlist.max_join_backoff')} is ${shown('max_join_backoff')}: it must not be below ${name('memberlist.min_join_backoff')} (${shown('min_join_backoff')})`,
    );
  if (c.bind_port < 0 || c.bind_port > 65535)
    problems.push(`${name('memberlist.bind_port')} is ${c.bind_port}: a port must be in 0..65535`);
  return problems;
}
