/**
 * The memberlist KV's settings in runtime units (milliseconds). The YAML/flag block
 * (`memberlist:` in src/config) maps onto this one to one; the probe settings at the end are
 * the values dskit hard-codes (ProbeInterval 5s, ProbeTimeout 2s) and memberlist's LAN
 * defaults, exposed only so tests can shorten them.
 */
export interface MemberlistKVConfig {
  /** `-memberlist.nodename`: this member's name; empty means the Env's node name. */
  nodeName: string;
  /** `-memberlist.randomize-node-name`: append `-<8 hex digits>` so restarts get a new name. */
  randomizeNodeName: boolean;
  /** `-memberlist.stream-timeout`: limit on one push/pull (join and periodic full sync). */
  streamTimeoutMs: number;
  /** `-memberlist.retransmit-factor`: a message is sent factor × ceil(log10(N+1)) times. */
  retransmitFactor: number;
  /** `-memberlist.pullpush-interval`: full state exchange with one random member; 0 disables. */
  pullPushIntervalMs: number;
  /** `-memberlist.gossip-interval`: how often queued messages are sent. */
  gossipIntervalMs: number;
  /** `-memberlist.gossip-nodes`: members each gossip round sends to. */
  gossipNodes: number;
  /** `-memberlist.gossip-to-dead-nodes-time`: dead members still get gossip (to refute), then are forgotten. */
  gossipToDeadNodesTimeMs: number;
  /** `-memberlist.dead-node-reclaim-time`: after this, a dead member's name may come back at a new address; 0 never. */
  deadNodeReclaimTimeMs: number;
  /** `-memberlist.join`: transport addresses of members to join (this process's own address counts as joined). */
  joinMembers: string[];
  minJoinBackoffMs: number;
  maxJoinBackoffMs: number;
  /** Retries after the first join attempt (`-memberlist.max-join-retries`). */
  maxJoinRetries: number;
  /** `-memberlist.abort-if-join-fails`: `run()` rejects when no join attempt reached anyone. */
  abortIfJoinFails: boolean;
  /** `-memberlist.rejoin-interval`: re-join `joinMembers` this often (heals split clusters); 0 disables. */
  rejoinIntervalMs: number;
  /** `-memberlist.left-ingesters-timeout`: LEFT ring entries (tombstones) are dropped after this. */
  leftIngestersTimeoutMs: number;
  /** `-memberlist.tombstone-timeout`: deleted keys are forgotten after this. */
  tombstoneTimeoutMs: number;
  /** `-memberlist.leave-timeout`: how long stop() waits for the leave message to go out. */
  leaveTimeoutMs: number;
  /** `-memberlist.packet-dial-timeout` + `-memberlist.packet-write-timeout`: limit on one gossip packet. */
  packetDialTimeoutMs: number;
  packetWriteTimeoutMs: number;
  /** `-memberlist.message-history-buffer-bytes`: recent messages kept for the status page; 0 keeps none. */
  messageHistoryBufferBytes: number;
  /** Period of the failure detector's probe round (dskit: 5s). */
  probeIntervalMs: number;
  /** Wait for a direct ping's ack before indirect probes (dskit: 2s). */
  probeTimeoutMs: number;
  /** Members asked to ping a silent member for us (memberlist: 3). */
  indirectChecks: number;
  /** Suspicion lasts suspicionMult × max(1, log10(N)) × probe interval at least (memberlist: 4). */
  suspicionMult: number;
  /** ... and at most this many times that, shrinking as other members confirm (memberlist: 6). */
  suspicionMaxTimeoutMult: number;
  /** CAS attempts before giving up (dskit: 10). */
  maxCasRetries: number;
  /** Wait before retrying a CAS whose value the merge saw as unchanged (dskit: 1s; ring timestamps are seconds). */
  noChangeRetrySleepMs: number;
  /** Wait on shutdown for locally generated updates to be gossiped (dskit: 10s). */
  broadcastTimeoutOnShutdownMs: number;
  /** Largest gossip packet in bytes (dskit's max_packet_size: 1 MiB). */
  maxPacketBytes: number;
}

const DEFAULT_MEMBERLIST_KV_CONFIG: Readonly<MemberlistKVConfig> = Object.freeze({
  nodeName: '',
  randomizeNodeName: true,
  streamTimeoutMs: 10_000,
  retransmitFactor: 4,
  pullPushIntervalMs: 30_000,
  gossipIntervalMs: 200,
  gossipNodes: 3,
  gossipToDeadNodesTimeMs: 30_000,
  deadNodeReclaimTimeMs: 0,
  joinMembers: [],
  minJoinBackoffMs: 1_000,
  maxJoinBackoffMs: 60_000,
  maxJoinRetries: 10,
  abortIfJoinFails: true,
  rejoinIntervalMs: 0,
  leftIngestersTimeoutMs: 5 * 60_000,
  tombstoneTimeoutMs: 5 * 60_000,
  leaveTimeoutMs: 5_000,
  packetDialTimeoutMs: 5_000,
  packetWriteTimeoutMs: 5_000,
  messageHistoryBufferBytes: 0,
  probeIntervalMs: 5_000,
  probeTimeoutMs: 2_000,
  indirectChecks: 3,
  suspicionMult: 4,
  suspicionMaxTimeoutMult: 6,
  maxCasRetries: 10,
  noChangeRetrySleepMs: 1_000,
  broadcastTimeoutOnShutdownMs: 10_000,
  maxPacketBytes: 1024 * 1024,
});

/** The defaults overridden by `overrides`, validated; throws a RangeError naming the bad setting. */
export function memberlistKVConfig(
  overrides: Partial<MemberlistKVConfig> = {},
): MemberlistKVConfig {
  const config: MemberlistKVConfig = {
    ...DEFAULT_MEMBERLIST_KV_CONFIG,
    ...overrides,
    joinMembers: [...(overrides.joinMembers ?? DEFAULT_MEMBERLIST_KV_CONFIG.joinMembers)],
  };
  const positive: (keyof MemberlistKVConfig)[] = [
    'streamTimeoutMs',
    'retransmitFactor',
    'gossipIntervalMs',
    'gossipNodes',
    'probeIntervalMs',
    'probeTimeoutMs',
    'suspicionMult',
    'suspicionMaxTimeoutMult',
    'maxCasRetries',
    'maxPacketBytes',
  ];
  for (const key of positive) {
    const v = config[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new RangeError(`memberlist: ${key} must be positive, got ${String(v)}`);
  }
  const nonNegative: (keyof MemberlistKVConfig)[] = [
    'pullPushIntervalMs',
    'gossipToDeadNodesTimeMs',
    'deadNodeReclaimTimeMs',
    'minJoinBackoffMs',
    'maxJoinBackoffMs',
    'maxJoinRetries',
    'rejoinIntervalMs',
    'leftIngestersTimeoutMs',
    'tombstoneTimeoutMs',
    'leaveTimeoutMs',
    'packetDialTimeoutMs',
    'packetWriteTimeoutMs',
    'messageHistoryBufferBytes',
    'indirectChecks',
    'noChangeRetrySleepMs',
    'broadcastTimeoutOnShutdownMs',
  ];
  for (const key of nonNegative) {
    const v = config[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new RangeError(`memberlist: ${key} must not be negative, got ${String(v)}`);
  }
  if (config.probeTimeoutMs >= config.probeIntervalMs)
    throw new RangeError(
      `memberlist: probeTimeoutMs (${config.probeTimeoutMs}) must be below probeIntervalMs (${config.probeIntervalMs})`,
    );
  if (config.maxJoinBackoffMs < config.minJoinBackoffMs)
    throw new RangeError(
      `memberlist: max join backoff (${config.maxJoinBackoffMs}ms) is below the min (${config.minJoinBackoffMs}ms)`,
    );
  return config;
}

/** memberlist's retransmitLimit: how many times one message is sent. */
export function retransmitLimit(factor: number, numMembers: number): number {
  return factor * Math.ceil(Math.log10(numMembers + 1));
}

/** memberlist's suspicionTimeout: the shortest a suspicion lasts in a cluster of `n`. */
export function suspicionTimeoutMs(mult: number, n: number, probeIntervalMs: number): number {
  const nodeScale = Math.max(1, Math.log10(Math.max(1, n)));
  return Math.floor(mult * nodeScale * probeIntervalMs);
}

/** memberlist's pushPullScale: clusters above 32 members sync less often per member. */
export function pushPullIntervalMs(intervalMs: number, numMembers: number): number {
  if (numMembers <= 32) return intervalMs;
  const multiplier = Math.ceil(Math.log2(numMembers) - Math.log2(32)) + 1;
  return intervalMs * multiplier;
}
