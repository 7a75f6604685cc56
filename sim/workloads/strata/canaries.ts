/**
 * The deliberately broken builds of the mutation canaries (`sim/canaries/`), as the Strata
 * workload applies them to a node: each breaks a component from outside the product, by
 * wrapping a part of the node's Env or by changing the node's configuration the way a
 * careless operator could, never through a switch in production code. The workload config
 * selects them (`broken_ingester`, `broken_querier`); `STRATA_SIM_CANARY` only reaches the
 * canary runner, which sets those keys.
 */
import type { Config } from '../../../src/config/index.js';
import type { Env } from '../../../src/runtime/index.js';
import { ScenarioError, readString } from '../../fields/index.js';
import { DoubleApplyRetryTransport, DropLastWalPageFileSystem } from './canaries_ingester.js';
import type { StrataOptions } from '../../../src/app/index.js';
import { IgnoreIngesterTransport } from './canaries_querier.js';
import { fifoRequestQueue } from './canaries_frontend.js';

export const BROKEN_QUERIER_MODES = [
  'none',
  /**
   * Keeps every replica's copy of a sample when merging ingester answers: the one breakage
   * that sits inside a component, behind `Strata.create`'s sim-only `simCanaries` option.
   */
  'skip_dedup',
  /** Takes one ingester's answers (`broken_ignored_ingester`) as empty successes. */
  'ignore_ingester',
] as const;

export type BrokenQuerierMode = (typeof BROKEN_QUERIER_MODES)[number];

export interface BrokenQuerier {
  mode: BrokenQuerierMode;
  /** The ingester node `ignore_ingester` ignores. */
  ignoredIngester: string;
}

/** A year: an out-of-order window no sample of a run ever falls outside. */
const UNBOUNDED_WINDOW_MS = 365 * 24 * 3_600_000;

export function parseBrokenQuerier(mode: unknown, ignored: unknown, where: string): BrokenQuerier {
  const m = readString(mode, `${where}.broken_querier`, 'none');
  if (!(BROKEN_QUERIER_MODES as readonly string[]).includes(m))
    throw new ScenarioError(
      `${where}.broken_querier: unknown mode ${JSON.stringify(m)} (known: ${BROKEN_QUERIER_MODES.join(', ')})`,
    );
  const ignoredIngester = readString(ignored, `${where}.broken_ignored_ingester`, '');
  if (m === 'ignore_ingester' && ignoredIngester === '')
    throw new ScenarioError(
      `${where}.broken_ignored_ingester: ignore_ingester needs the ingester node to ignore`,
    );
  return { mode: m as BrokenQuerierMode, ignoredIngester };
}

/** The workload settings the canaries read (the workload config has them). */
export interface CanarySettings {
  readonly brokenIngester: string;
  readonly brokenQuerier: BrokenQuerier;
  /** `workload.frontend` (its `broken` mode), when the scenario runs a query-frontend. */
  readonly frontend?: { readonly broken: string } | undefined;
}

/** Plan lines for the canaries' broken modes (none for a correct build). */
export function describeCanaryModes(c: CanarySettings): string[] {
  const lines: string[] = [];
  const bug = (what: string): void => void lines.push(`  [DELIBERATE BUG: ${what}]`);
  switch (c.brokenIngester) {
    case 'drop_last_wal_page':
      bug("ingesters drop_last_wal_page, each restart's WAL replay loses the last 32 KiB page");
      break;
    case 'double_apply_retry':
      bug('ingesters double_apply_retry, a push seen before is applied again 1ms later');
      break;
    case 'ignore_ingestion_window':
      bug('ingesters ignore_ingestion_window, every sample is taken however old');
      break;
    default:
      break;
  }
  if (c.brokenQuerier.mode === 'skip_dedup')
    bug("queriers skip_dedup, reads keep every replica's copy of each sample");
  if (c.brokenQuerier.mode === 'ignore_ingester')
    bug(`queriers ignore_ingester, ${c.brokenQuerier.ignoredIngester}'s answers count as empty`);
  return lines;
}

/** The `Strata.create` options of the canaries that need a sim-only hook in a component. */
export function canaryStrataOptions(
  target: string,
  c: CanarySettings,
): Pick<StrataOptions, 'simCanaries'> {
  if (target === 'querier' && c.brokenQuerier.mode === 'skip_dedup')
    return { simCanaries: { skipReplicaDedupOnRead: true } };
  // The frontend's queue is built by the frontend; the canary hands it an unfair one.
  if ((target === 'query-frontend' || target === 'all') && c.frontend?.broken === 'fifo_queue')
    return { simCanaries: { frontendQueue: fifoRequestQueue } };
  return {};
}

/**
 * The node's Env with the canaries' broken modes applied for its role; may change `config`
 * (the node's own copy) where the breakage is a setting. A correct build gets `env` back.
 */
export function applyCanaryModes(target: string, config: Config, env: Env, c: CanarySettings): Env {
  if (target === 'ingester') {
    switch (c.brokenIngester) {
      case 'drop_last_wal_page':
        return {
          ...env,
          fs: new DropLastWalPageFileSystem(
            env.fs,
            env.logger.child({ bug: 'drop_last_wal_page' }),
          ),
        };
      case 'double_apply_retry':
        return {
          ...env,
          transport: new DoubleApplyRetryTransport(
            env.transport,
            env.logger.child({ bug: 'double_apply_retry' }),
          ),
        };
      case 'ignore_ingestion_window':
        // Every tenant without an override of its own takes any sample, however old: the
        // out-of-order path with an unbounded window is the §11 floor switched off.
        config.limits.out_of_order_time_window = UNBOUNDED_WINDOW_MS;
        return env;
      default:
        return env;
    }
  }
  if (target === 'querier') {
    switch (c.brokenQuerier.mode) {
      case 'ignore_ingester':
        return {
          ...env,
          transport: new IgnoreIngesterTransport(env.transport, c.brokenQuerier.ignoredIngester),
        };
      default:
        return env;
    }
  }
  return env;
}
