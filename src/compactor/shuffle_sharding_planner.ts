/**
 * The shuffle-sharding planner (Cortex's ShuffleShardingPlanner) and the strategy pairing it
 * with the shuffle-sharding grouper. The grouper already chose the blocks, so the plan is the
 * group minus its no-compact blocks, after three checks: every block lies inside one range of
 * the largest size (anything else is a grouping bug: an error), every block has a visit marker
 * (the grouper wrote them: a missing one is an error), and each marker is this compactor's and
 * fresh — if another compactor took a block meanwhile, nothing is planned. A plan starts the
 * heartbeat that keeps the markers fresh until the tenant's compaction attempt ends.
 */
import type { BlockMeta } from '../tsdb/index.js';
import type { CompactionConfig, CompactionStrategy } from './compaction_loop.js';
import type { CompactionGroup } from './grouper.js';
import type { PlanContext, Planner } from './planner.js';
import { ShuffleShardingGrouper, rangeStartFor } from './shuffle_sharding_grouper.js';
import {
  VisitMarkerHeartbeat,
  isVisitFresh,
  readBlockVisitMarker,
  visitMarkerMetrics,
  type VisitMarkerDeps,
} from './visit_marker.js';
import type { Bucket, Clock, Logger, MetricsRegistry } from '../runtime/index.js';
import { errorMessage } from './compaction_errors.js';

export interface ShuffleShardingPlannerConfig {
  tenant: string;
  compactorId: string;
  blockRangesMs: readonly number[];
  visitMarkerTimeoutMs: number;
  visitMarkerFileUpdateIntervalMs: number;
}

export class ShuffleShardingPlanner implements Planner {
  constructor(
    private readonly config: ShuffleShardingPlannerConfig,
    private readonly deps: VisitMarkerDeps,
    /** Receives each heartbeat started, so the strategy can stop it. */
    private readonly onHeartbeat: (hb: VisitMarkerHeartbeat) => void,
  ) {
    if (config.blockRangesMs.length === 0) throw new RangeError('block ranges must not be empty');
  }

  async plan(group: CompactionGroup, ctx: PlanContext): Promise<BlockMeta[]> {
    const { tenant, compactorId } = this.config;
    const [first] = group.metas;
    if (first === undefined) return [];
    const largest = this.config.blockRangesMs[this.config.blockRangesMs.length - 1] as number;
    const rangeStart = rangeStartFor(first.minTime, largest);
    const rangeEnd = rangeStart + largest;
    const now = this.deps.clock.now();
    const plan: BlockMeta[] = [];
    for (const m of group.metas) {
      if (ctx.noCompact.has(m.ulid)) continue;
      if (m.minTime < rangeStart || m.maxTime > rangeEnd) {
        throw new Error(
          `block ${m.ulid} with time range ${m.minTime}:${m.maxTime} is outside the largest expected range ${rangeStart}:${rangeEnd}`,
        );
      }
      let marker;
      try {
        marker = await readBlockVisitMarker(this.deps.bucket, tenant, m.ulid, this.deps.metrics);
      } catch (err) {
        throw new Error(
          `unable to get visit marker file for block ${m.ulid}: ${errorMessage(err)}`,
          { cause: err },
        );
      }
      if (marker === undefined) {
        throw new Error(`unable to get visit marker file for block ${m.ulid}: not found`);
      }
      if (
        marker.compactorID !== compactorId ||
        !isVisitFresh(marker, now, this.config.visitMarkerTimeoutMs)
      ) {
        this.deps.logger.warn('block is not visited by current compactor', {
          block_id: m.ulid,
          compactor_id: compactorId,
        });
        return [];
      }
      plan.push(m);
    }
    if (plan.length < 2) return [];
    const heartbeat = new VisitMarkerHeartbeat(
      tenant,
      plan.map((m) => m.ulid),
      compactorId,
      this.config.visitMarkerFileUpdateIntervalMs,
      this.deps,
    );
    this.onHeartbeat(heartbeat);
    await heartbeat.start();
    return plan;
  }
}

export interface ShuffleShardingStrategyConfig extends CompactionConfig {
  /** This compactor's ring instance ID. */
  compactorId: string;
  /** `block_visit_marker_timeout` (5m). */
  visitMarkerTimeoutMs: number;
  /** `block_visit_marker_file_update_interval` (1m). */
  visitMarkerFileUpdateIntervalMs: number;
}

export interface ShuffleShardingStrategyDeps {
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
}

/**
 * Cortex's shuffle-sharding grouper and planner as a CompactionStrategy. Heartbeats run per
 * tenant until `finished(tenant)`, which the compaction loop calls after each attempt.
 */
export function shuffleShardingCompactionStrategy(
  config: ShuffleShardingStrategyConfig,
  deps: ShuffleShardingStrategyDeps,
): CompactionStrategy {
  if (!(config.visitMarkerTimeoutMs > 0)) {
    throw new RangeError(`visit marker timeout must be > 0, got ${config.visitMarkerTimeoutMs}ms`);
  }
  const metrics = visitMarkerMetrics(deps.metrics);
  const heartbeats = new Map<string, VisitMarkerHeartbeat[]>();
  const markerDeps = (tenant: string): VisitMarkerDeps => ({
    bucket: deps.bucket,
    clock: deps.clock,
    logger: deps.logger.child({ user: tenant }),
    metrics,
  });
  return {
    grouper: (tenant) =>
      new ShuffleShardingGrouper(
        {
          tenant,
          compactorId: config.compactorId,
          blockRangesMs: config.blockRangesMs,
          compactionConcurrency: config.compactionConcurrency,
          visitMarkerTimeoutMs: config.visitMarkerTimeoutMs,
        },
        markerDeps(tenant),
      ),
    planner: (tenant) =>
      new ShuffleShardingPlanner(
        {
          tenant,
          compactorId: config.compactorId,
          blockRangesMs: config.blockRangesMs,
          visitMarkerTimeoutMs: config.visitMarkerTimeoutMs,
          visitMarkerFileUpdateIntervalMs: config.visitMarkerFileUpdateIntervalMs,
        },
        markerDeps(tenant),
        (hb) => heartbeats.set(tenant, [...(heartbeats.get(tenant) ?? []), hb]),
      ),
    finished: (tenant) => {
      for (const hb of heartbeats.get(tenant) ?? []) hb.stop();
      heartbeats.delete(tenant);
    },
  };
}
