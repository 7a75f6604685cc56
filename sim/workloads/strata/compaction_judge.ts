import { ScenarioError, readBoolean, readDuration, readObject } from '../../fields/index.js';
import type { ObjectStoreEvent } from '../../runtime/index.js';
import type { CheckResult, CheckSpec, WorkloadContext } from '../workload.js';
import {
  checkBucketIndexMatchesListing,
  checkCompactionConverged,
  checkOneCompactorPerTenant,
  checkSourcesCoveredBeforeMarked,
  type TransitionWindow,
} from './checks_compaction.js';
import type { StrataWorkloadConfig } from './config.js';

/** The compaction checks of the strata workload (compactor resharding scenarios). */
export const COMPACTION_CHECKS = [
  'compaction_converged',
  'sources_covered_before_marked',
  'one_compactor_per_tenant',
  'bucket_index_matches_listing',
] as const;

/** The product's default `compactor.block_ranges` (2h, 12h, 24h). */
const DEFAULT_LARGEST_RANGE_MS = 24 * 3_600_000;
/** Beyond the heartbeat timeout: ring propagation plus one compaction's upload and marks. */
const DEFAULT_TRANSITION_EXTRA_MS = 60_000;

/** Judges one compaction check; undefined when `spec` names another check. */
export function judgeCompactionCheck(
  spec: CheckSpec,
  config: StrataWorkloadConfig,
  ctx: WorkloadContext,
  history: readonly ObjectStoreEvent[],
): CheckResult | undefined {
  const tenants = config.tenants.map((t) => t.name);
  const compactors = new Set(ctx.nodesByRole.get('compactor') ?? []);
  const lt = config.longTerm;
  const where = `checks.${spec.name}`;
  switch (spec.name) {
    case 'compaction_converged': {
      const o = readObject(spec.options, where, ['no_partial_blocks']);
      const ranges = lt?.compactor.blockRangesMs;
      const noPartialBlocks = readBoolean(o.no_partial_blocks, `${where}.no_partial_blocks`, false);
      if (noPartialBlocks && lt?.compactor.partialBlockDeletionDelayMs === undefined)
        throw new ScenarioError(
          `${where}.no_partial_blocks: needs workload.long_term.compactor.partial_block_deletion_delay (by default a partial block is abandoned only after 48h)`,
        );
      return checkCompactionConverged({
        history,
        tenants,
        noPartialBlocks,
        largestRangeMs: ranges === undefined ? DEFAULT_LARGEST_RANGE_MS : Math.max(...ranges),
        epochMs: ctx.epochMs,
      });
    }
    case 'sources_covered_before_marked':
      readObject(spec.options, where, []);
      return checkSourcesCoveredBeforeMarked({ history, compactors, epochMs: ctx.epochMs });
    case 'one_compactor_per_tenant': {
      const o = readObject(spec.options, where, ['transition']);
      const transitionMs = readDuration(
        o.transition,
        `${where}.transition`,
        config.heartbeatTimeoutMs + DEFAULT_TRANSITION_EXTRA_MS,
      );
      if (lt?.compactor.shardingEnabled !== true && compactors.size > 1)
        throw new ScenarioError(
          `${where}: several compactors without workload.long_term.compactor.sharding_enabled all own every tenant`,
        );
      return checkOneCompactorPerTenant({
        history,
        compactors,
        tenants,
        windows: transitionWindows(ctx, compactors, config, transitionMs),
        epochMs: ctx.epochMs,
        endMs: ctx.endMs,
      });
    }
    case 'bucket_index_matches_listing': {
      readObject(spec.options, where, []);
      return checkBucketIndexMatchesListing({
        history,
        tenants,
        // The cleaner's listing precedes its write by up to a cleanup; the store lists late.
        settleMs: (lt?.cleanupIntervalMs ?? 0) + ctx.services.config.objectStore.listDelayMs,
        epochMs: ctx.epochMs,
      });
    }
    default:
      return undefined;
  }
}

/**
 * When the compactor ring may disagree about owners: from each change of a compactor (its
 * start at the epoch or later, stop, crash, power loss, restart), each partition that cuts
 * a compactor off the ring (from the KV service, or from anyone with memberlist) and each
 * heal, for `transitionMs` (heartbeat timeout, ring propagation, an upload in flight).
 */
export function transitionWindows(
  ctx: Pick<WorkloadContext, 'epochMs' | 'nodeEvents' | 'faultEvents'>,
  compactors: ReadonlySet<string>,
  config: Pick<StrataWorkloadConfig, 'ringStore'>,
  transitionMs: number,
): TransitionWindow[] {
  const out: TransitionWindow[] = [];
  const add = (at: number, why: string): void => {
    out.push({ from: at, until: at + transitionMs, why });
  };
  add(ctx.epochMs, 'cluster start');
  for (const e of ctx.nodeEvents) if (compactors.has(e.node)) add(e.at, `${e.kind} ${e.node}`);
  for (const f of ctx.faultEvents) {
    const cutsCompactor =
      (f.kind === 'partition' || f.kind === 'partition_one_way') &&
      f.names.some((n) => compactors.has(n)) &&
      (config.ringStore === 'memberlist' || f.names.includes('kv'));
    if (cutsCompactor || f.kind === 'heal' || f.kind === 'heal_partition')
      add(f.at, `${f.kind} ${f.names.join(',')}`);
  }
  return out;
}
