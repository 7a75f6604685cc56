import {
  ScenarioError,
  formatDuration,
  readArray,
  readBoolean,
  readDuration,
  readNumber,
  readObject,
  readString,
} from '../../fields/index.js';
import {
  describeCompactorSim,
  parseCompactorSim,
  type CompactorSimConfig,
} from './config_compactor.js';

/**
 * An operator marking blocks for deletion (the `operator` role): at each time, every block
 * in the bucket that `ingester` shipped. The other replicas' blocks keep the samples.
 */
export interface MarkForDeletionConfig {
  ingester: string;
  /** Offsets after the epoch. */
  atMs: number[];
}

/**
 * The long-term path of a Strata scenario (`workload.long_term`): ingesters cut blocks, ship
 * them and delete them locally; store-gateways and the compactor's cleaner run; the querier
 * reads blocks through the store-gateways. Durations are short, so that all of it happens
 * several times within minutes of virtual time.
 */
export interface LongTermConfig {
  /** `tsdb.ship_interval`. */
  shipIntervalMs: number;
  /** `tsdb.retention_period`: a shipped block is deleted locally this long after its end. */
  retentionPeriodMs: number;
  /** `tsdb.head_compaction_interval`. */
  headCompactionIntervalMs: number;
  /** `tsdb.bucket_store.sync_interval` (store-gateways; the querier's bucket-index reload). */
  syncIntervalMs: number;
  /** `tsdb.bucket_store.consistency_delay`. */
  consistencyDelayMs: number;
  /** `tsdb.bucket_store.ignore_deletion_mark_delay`. */
  ignoreDeletionMarkDelayMs: number;
  /** `compactor.cleanup_interval`: how often the bucket index is rewritten. */
  cleanupIntervalMs: number;
  /** `compactor.deletion_delay`. */
  deletionDelayMs: number;
  /** `store_gateway.sharding_ring.replication_factor` (sharding is always on). */
  storeGatewayReplicationFactor: number;
  /**
   * `ingester.flush_on_shutdown_with_wal_enabled` (and `tsdb.flush_blocks_on_shutdown`): a
   * graceful stop of an ingester cuts its whole head into blocks (a forced flush).
   */
  flushOnShutdown: boolean;
  /** Blocks the `operator` node marks for deletion; undefined: none. */
  markForDeletion: MarkForDeletionConfig | undefined;
  /** The compactor's compaction and sharding settings (`compactor`). */
  compactor: CompactorSimConfig;
}

/** Prometheus's and Cortex's upper bound on `tsdb.head_compaction_interval`. */
const MAX_HEAD_COMPACTION_INTERVAL_MS = 5 * 60_000;

export function parseLongTerm(
  value: unknown,
  where: string,
  blockRangeMs: number,
): LongTermConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const o = readObject(value, where, [
    'ship_interval',
    'retention_period',
    'head_compaction_interval',
    'sync_interval',
    'consistency_delay',
    'ignore_deletion_mark_delay',
    'cleanup_interval',
    'deletion_delay',
    'store_gateway_replication_factor',
    'flush_on_shutdown',
    'mark_for_deletion',
    'compactor',
  ]);
  const positive = (v: unknown, key: string, fallback: number): number => {
    const ms = readDuration(v, `${where}.${key}`, fallback);
    if (ms <= 0) throw new ScenarioError(`${where}.${key}: must be positive, got ${ms}ms`);
    return ms;
  };
  const c: LongTermConfig = {
    shipIntervalMs: positive(o.ship_interval, 'ship_interval', 10_000),
    retentionPeriodMs: positive(o.retention_period, 'retention_period', 2 * blockRangeMs),
    headCompactionIntervalMs: positive(
      o.head_compaction_interval,
      'head_compaction_interval',
      10_000,
    ),
    syncIntervalMs: positive(o.sync_interval, 'sync_interval', 15_000),
    consistencyDelayMs: readDuration(o.consistency_delay, `${where}.consistency_delay`, 0),
    ignoreDeletionMarkDelayMs: readDuration(
      o.ignore_deletion_mark_delay,
      `${where}.ignore_deletion_mark_delay`,
      60_000,
    ),
    cleanupIntervalMs: positive(o.cleanup_interval, 'cleanup_interval', 20_000),
    deletionDelayMs: readDuration(o.deletion_delay, `${where}.deletion_delay`, 120_000),
    storeGatewayReplicationFactor: readNumber(
      o.store_gateway_replication_factor,
      `${where}.store_gateway_replication_factor`,
      2,
      { min: 1, integer: true },
    ),
    flushOnShutdown: readBoolean(o.flush_on_shutdown, `${where}.flush_on_shutdown`, false),
    markForDeletion: parseMarkForDeletion(o.mark_for_deletion, `${where}.mark_for_deletion`),
    compactor: parseCompactorSim(o.compactor, `${where}.compactor`, blockRangeMs),
  };
  // The product refuses both at startup; naming the scenario key is friendlier.
  if (c.retentionPeriodMs <= blockRangeMs)
    throw new ScenarioError(
      `${where}.retention_period: must exceed the block range (${formatDuration(blockRangeMs)}), got ${formatDuration(c.retentionPeriodMs)}`,
    );
  if (c.headCompactionIntervalMs > MAX_HEAD_COMPACTION_INTERVAL_MS)
    throw new ScenarioError(
      `${where}.head_compaction_interval: at most ${formatDuration(MAX_HEAD_COMPACTION_INTERVAL_MS)}, got ${formatDuration(c.headCompactionIntervalMs)}`,
    );
  return c;
}

function parseMarkForDeletion(value: unknown, where: string): MarkForDeletionConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const o = readObject(value, where, ['ingester', 'at']);
  const atMs = readArray(o.at, `${where}.at`).map((a, i) => readDuration(a, `${where}.at[${i}]`));
  if (atMs.length === 0) throw new ScenarioError(`${where}.at: at least one time is required`);
  return { ingester: readString(o.ingester, `${where}.ingester`), atMs };
}

export function describeLongTerm(c: LongTermConfig): string {
  const d = formatDuration;
  return (
    `  long-term path: ship every ${d(c.shipIntervalMs)}, local retention ${d(c.retentionPeriodMs)}, head compaction every ${d(c.headCompactionIntervalMs)}` +
    `${c.flushOnShutdown ? ', flush on shutdown' : ''}; store-gateways RF ${c.storeGatewayReplicationFactor}, sync every ${d(c.syncIntervalMs)} ` +
    `(consistency delay ${d(c.consistencyDelayMs)}, ignore deletion marks after ${d(c.ignoreDeletionMarkDelayMs)}); ` +
    `cleaner every ${d(c.cleanupIntervalMs)}, deletion delay ${d(c.deletionDelayMs)}` +
    (c.markForDeletion === undefined
      ? ''
      : `; the operator marks ${c.markForDeletion.ingester}'s blocks for deletion at ${c.markForDeletion.atMs.map((a) => `+${d(a)}`).join(', ')}`) +
    `\n${describeCompactorSim(c.compactor)}`
  );
}
