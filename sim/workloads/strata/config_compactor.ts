import {
  ScenarioError,
  formatDuration,
  readArray,
  readBoolean,
  readDuration,
  readObject,
  readString,
} from '../../fields/index.js';

/**
 * Deliberately broken compactors, for proving that the compaction checks catch what they
 * claim to. The harness breaks them from outside the product (the compactor's bucket, KV or
 * compaction strategy), never through a switch inside the compactor.
 */
export const BROKEN_COMPACTOR_MODES = [
  'none',
  /** Merges replicas without de-duplicating: each sample of a vertical merge appears once per replica. */
  'skip_dedup',
  /** Marks a compaction's sources for deletion as soon as the first object of its output is uploaded. */
  'delete_sources_early',
  /** Shown a compactor ring holding only itself: every compactor compacts every tenant. */
  'ignore_ownership',
] as const;

export type BrokenCompactorMode = (typeof BROKEN_COMPACTOR_MODES)[number];

/** The compactor of a long-term scenario (`workload.long_term.compactor`). */
export interface CompactorSimConfig {
  /** `compactor.block_ranges`; the product default (2h, 12h, 24h) when absent. */
  blockRangesMs: number[] | undefined;
  /** `compactor.compaction_interval`; the product default (1h) when absent. */
  compactionIntervalMs: number | undefined;
  /** `compactor.sharding_enabled` (the ring uses the workload's heartbeat settings). */
  shardingEnabled: boolean;
  /**
   * `compactor.partial_block_deletion_delay`: how old a partial block must be to count as
   * abandoned; the product default (max(consistency delay, 48h)) when absent.
   */
  partialBlockDeletionDelayMs: number | undefined;
  broken: BrokenCompactorMode;
}

export const DEFAULT_COMPACTOR_SIM_CONFIG: CompactorSimConfig = {
  blockRangesMs: undefined,
  compactionIntervalMs: undefined,
  shardingEnabled: false,
  partialBlockDeletionDelayMs: undefined,
  broken: 'none',
};

export function parseCompactorSim(
  value: unknown,
  where: string,
  blockRangeMs: number,
): CompactorSimConfig {
  if (value === undefined || value === null) return DEFAULT_COMPACTOR_SIM_CONFIG;
  const o = readObject(value, where, [
    'block_ranges',
    'compaction_interval',
    'sharding_enabled',
    'partial_block_deletion_delay',
    'broken',
  ]);
  let blockRangesMs: number[] | undefined;
  if (o.block_ranges !== undefined) {
    blockRangesMs = readArray(o.block_ranges, `${where}.block_ranges`).map((r, i) =>
      readDuration(r, `${where}.block_ranges[${i}]`),
    );
    if (blockRangesMs.length === 0)
      throw new ScenarioError(`${where}.block_ranges: at least one range is required`);
    blockRangesMs.forEach((r, i) => {
      // Thanos's planner needs each range to be a multiple of the one before.
      const prev = i === 0 ? blockRangeMs : (blockRangesMs as number[])[i - 1]!;
      if (r <= 0 || r % prev !== 0)
        throw new ScenarioError(
          `${where}.block_ranges[${i}]: ${formatDuration(r)} must be a positive multiple of ${formatDuration(prev)}${i === 0 ? ' (the block range)' : ''}`,
        );
    });
  }
  let compactionIntervalMs: number | undefined;
  if (o.compaction_interval !== undefined) {
    compactionIntervalMs = readDuration(o.compaction_interval, `${where}.compaction_interval`);
    if (compactionIntervalMs <= 0)
      throw new ScenarioError(`${where}.compaction_interval: must be positive`);
  }
  let partialBlockDeletionDelayMs: number | undefined;
  if (o.partial_block_deletion_delay !== undefined) {
    partialBlockDeletionDelayMs = readDuration(
      o.partial_block_deletion_delay,
      `${where}.partial_block_deletion_delay`,
    );
    if (partialBlockDeletionDelayMs <= 0)
      throw new ScenarioError(`${where}.partial_block_deletion_delay: must be positive`);
  }
  const broken = readString(o.broken, `${where}.broken`, 'none');
  if (!(BROKEN_COMPACTOR_MODES as readonly string[]).includes(broken))
    throw new ScenarioError(
      `${where}.broken: unknown mode ${JSON.stringify(broken)} (known: ${BROKEN_COMPACTOR_MODES.join(', ')})`,
    );
  const shardingEnabled = readBoolean(o.sharding_enabled, `${where}.sharding_enabled`, false);
  if (broken === 'ignore_ownership' && !shardingEnabled)
    throw new ScenarioError(
      `${where}.broken: ignore_ownership needs ${where}.sharding_enabled (without sharding one compactor owns everything)`,
    );
  return {
    blockRangesMs,
    compactionIntervalMs,
    shardingEnabled,
    partialBlockDeletionDelayMs,
    broken: broken as BrokenCompactorMode,
  };
}

export function describeCompactorSim(c: CompactorSimConfig): string {
  const d = formatDuration;
  const ranges = c.blockRangesMs === undefined ? 'default' : c.blockRangesMs.map(d).join(', ');
  const interval =
    c.compactionIntervalMs === undefined ? 'default' : `every ${d(c.compactionIntervalMs)}`;
  const bug = c.broken === 'none' ? '' : `; DELIBERATE BUG: compactors ${c.broken}`;
  const partial =
    c.partialBlockDeletionDelayMs === undefined
      ? ''
      : `, partial blocks abandoned after ${d(c.partialBlockDeletionDelayMs)}`;
  return `  compactor: block ranges ${ranges}, compaction ${interval}, sharding ${c.shardingEnabled ? 'on (compactor ring)' : 'off'}${partial}${bug}`;
}
