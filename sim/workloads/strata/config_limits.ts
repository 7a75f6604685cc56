import type { Config } from '../../../src/config/index.js';
import type { Env } from '../../../src/runtime/index.js';
import {
  ScenarioError,
  formatDuration,
  readArray,
  readDuration,
  readNumber,
  readObject,
  readString,
} from '../../fields/index.js';
import type { TenantSpec } from './tenant_spec.js';
import { RUNTIME_CONFIG_DIR, RUNTIME_CONFIG_PATH } from './node_paths.js';

/** Deliberately broken rate limiting, for proving that the limits checks catch it. */
export const BROKEN_LIMITS_MODES = [
  'none',
  /** The distributor reads every `ingestion_burst_size` doubled: one burst too many passes. */
  'off_by_one_burst',
] as const;

export type BrokenLimitsMode = (typeof BROKEN_LIMITS_MODES)[number];

/** The limits a phase puts in force for every tenant (runtime-config overrides). */
export interface LimitSet {
  ingestionRate: number;
  ingestionBurstSize: number;
  maxSeriesPerUser: number;
  maxSeriesPerMetric: number;
  maxLabelNamesPerSeries: number;
  maxLabelNameLength: number;
  maxLabelValueLength: number;
}

export interface LimitsPhase {
  /** Offset after the epoch at which the harness writes this phase's runtime config. */
  atMs: number;
  limits: LimitSet;
}

export interface LimitsScenarioConfig {
  /** `runtime_config.period` (`-runtime-config.reload-period`). */
  reloadPeriodMs: number;
  /**
   * How long after each later phase's `at` the limits writer stays quiet: long enough for
   * every node to reload the file and the distributor's rate limiter to re-read the limits
   * (it does every 10s), so every push is judged against exactly one set of limits.
   */
  quietMs: number;
  /** Phases in time order; the first at 0s. */
  phases: LimitsPhase[];
  /** New ordinary series per scrape (up to `maxSeries`). */
  grow: number;
  maxSeries: number;
  /** Every `burstEvery` scrapes, `burstRun` scrapes in a row carry several samples per series. */
  burstEvery: number;
  burstRun: number;
  /**
   * `ingestion_rate_strategy`: `local` (each distributor allows the rate) or `global` (each
   * allows the rate divided by the healthy distributors of the distributor ring).
   */
  strategy: 'local' | 'global';
  broken: BrokenLimitsMode;
}

/** The distributor's rate limiter re-reads a tenant's limits this often (Cortex: 10s). */
export const RATE_LIMIT_RECHECK_MS = 10_000;

const LIMIT_KEYS: Readonly<Record<string, keyof LimitSet>> = {
  ingestion_rate: 'ingestionRate',
  ingestion_burst_size: 'ingestionBurstSize',
  max_global_series_per_user: 'maxSeriesPerUser',
  max_global_series_per_metric: 'maxSeriesPerMetric',
  max_label_names_per_series: 'maxLabelNamesPerSeries',
  max_label_name_length: 'maxLabelNameLength',
  max_label_value_length: 'maxLabelValueLength',
};

export function parseLimitsConfig(value: unknown, where: string): LimitsScenarioConfig | undefined {
  if (value === undefined) return undefined;
  const o = readObject(value, where, [
    'reload_period',
    'quiet',
    'phases',
    'grow',
    'max_series',
    'burst_every',
    'burst_run',
    'strategy',
    'broken',
  ]);
  const reloadPeriodMs = readDuration(o.reload_period, `${where}.reload_period`, 2_000);
  if (reloadPeriodMs <= 0) throw new ScenarioError(`${where}.reload_period: must be positive`);
  const minQuiet = reloadPeriodMs + RATE_LIMIT_RECHECK_MS + 1_000;
  const quietMs = readDuration(o.quiet, `${where}.quiet`, minQuiet);
  if (quietMs < minQuiet)
    throw new ScenarioError(
      `${where}.quiet: must cover the reload period plus the rate limiter's 10s re-read plus 1s (${formatDuration(minQuiet)}), got ${formatDuration(quietMs)}`,
    );
  const phases = readArray(o.phases, `${where}.phases`).map((raw, i): LimitsPhase => {
    const w = `${where}.phases[${i}]`;
    const p = readObject(raw, w, ['at', ...Object.keys(LIMIT_KEYS)]);
    const limits = {} as LimitSet;
    for (const [key, field] of Object.entries(LIMIT_KEYS)) {
      if (p[key] === undefined) throw new ScenarioError(`${w}: missing required key ${key}`);
      limits[field] = readNumber(p[key], `${w}.${key}`, 0, {
        min: key === 'ingestion_rate' ? 0 : 1,
        integer: key !== 'ingestion_rate',
      });
    }
    return { atMs: readDuration(p.at, `${w}.at`), limits };
  });
  if (phases.length === 0) throw new ScenarioError(`${where}.phases: needs at least one phase`);
  if (phases[0]!.atMs !== 0) throw new ScenarioError(`${where}.phases[0].at: must be 0s`);
  phases.forEach((p, i) => {
    if (i > 0 && p.atMs < phases[i - 1]!.atMs + quietMs)
      throw new ScenarioError(
        `${where}.phases[${i}].at: must come at least quiet (${formatDuration(quietMs)}) after the previous phase`,
      );
  });
  const strategy = readString(o.strategy, `${where}.strategy`, 'local');
  if (strategy !== 'local' && strategy !== 'global')
    throw new ScenarioError(
      `${where}.strategy: unknown strategy ${JSON.stringify(strategy)} (known: local, global)`,
    );
  const broken = readString(o.broken, `${where}.broken`, 'none');
  if (!(BROKEN_LIMITS_MODES as readonly string[]).includes(broken))
    throw new ScenarioError(
      `${where}.broken: unknown mode ${JSON.stringify(broken)} (known: ${BROKEN_LIMITS_MODES.join(', ')})`,
    );
  return {
    reloadPeriodMs,
    quietMs,
    phases,
    grow: readNumber(o.grow, `${where}.grow`, 2, { min: 0, integer: true }),
    maxSeries: readNumber(o.max_series, `${where}.max_series`, 60, { min: 1, integer: true }),
    burstEvery: readNumber(o.burst_every, `${where}.burst_every`, 8, { min: 1, integer: true }),
    burstRun: readNumber(o.burst_run, `${where}.burst_run`, 3, { min: 0, integer: true }),
    strategy,
    broken: broken as BrokenLimitsMode,
  };
}

/** The phase in force at `offsetMs` after the epoch (the last one started by then). */
export function phaseAt(l: LimitsScenarioConfig, offsetMs: number): LimitsPhase {
  let current = l.phases[0]!;
  for (const p of l.phases) if (p.atMs <= offsetMs) current = p;
  return current;
}

/** The end of the quiet window covering `offsetMs`, if one does. */
export function quietEndAt(l: LimitsScenarioConfig, offsetMs: number): number | undefined {
  for (const [i, p] of l.phases.entries())
    if (i > 0 && offsetMs >= p.atMs - 1_000 && offsetMs < p.atMs + l.quietMs)
      return p.atMs + l.quietMs;
  return undefined;
}

/** True when `offsetMs` falls in a quiet window (a later phase's reload may be pending). */
export function inQuietWindow(l: LimitsScenarioConfig, offsetMs: number): boolean {
  return quietEndAt(l, offsetMs) !== undefined;
}

/**
 * The node settings: the runtime-config file with the scenario's reload period and the rate
 * strategy; with `global`, the distributors count each other in the distributor ring (on the
 * cluster's in-memory KV, the node name as instance id, the workload's heartbeats).
 */
export function applyLimits(
  config: Config,
  l: LimitsScenarioConfig,
  nodeName: string,
  heartbeatPeriodMs: number,
): void {
  config.runtime_config.file = RUNTIME_CONFIG_PATH;
  config.runtime_config.period = l.reloadPeriodMs;
  config.limits.ingestion_rate_strategy = l.strategy;
  const ring = config.distributor.ring;
  ring.kvstore.store = 'inmemory';
  ring.instance_id = nodeName;
  ring.heartbeat_period = heartbeatPeriodMs;
}

/** The runtime-config file of a phase: its limits for every tenant (and any out-of-order window). */
export function limitsRuntimeYaml(tenants: readonly TenantSpec[], limits: LimitSet): string {
  const body = tenants
    .map((t) => {
      const lines = Object.entries(LIMIT_KEYS).map(
        ([key, field]) => `    ${key}: ${limits[field]}\n`,
      );
      if (t.outOfOrderWindowMs > 0)
        lines.push(`    out_of_order_time_window: ${formatDuration(t.outOfOrderWindowMs)}\n`);
      return `  ${JSON.stringify(t.name)}:\n${lines.join('')}`;
    })
    .join('');
  return `overrides:\n${body}`;
}

/**
 * Writes the runtime-config file of the phase in force now (before the process starts) and
 * rewrites it at each later phase's `at`, as an operator editing the file would: written
 * beside the file, then renamed over it, so no reload reads half a file. The timers die
 * with the incarnation; a restart writes the phase then in force.
 */
export async function writeLimitsRuntimeConfig(
  env: Env,
  l: LimitsScenarioConfig,
  tenants: readonly TenantSpec[],
  epochMs: number,
  now: () => number,
): Promise<void> {
  const write = async (limits: LimitSet): Promise<void> => {
    await env.fs.mkdir(RUNTIME_CONFIG_DIR, { recursive: true });
    await env.fs.writeFile(`${RUNTIME_CONFIG_PATH}.tmp`, limitsRuntimeYaml(tenants, limits));
    await env.fs.rename(`${RUNTIME_CONFIG_PATH}.tmp`, RUNTIME_CONFIG_PATH);
  };
  await write(phaseAt(l, now() - epochMs).limits);
  for (const p of l.phases)
    if (epochMs + p.atMs > now())
      env.clock.setTimer(epochMs + p.atMs - now(), () => {
        void write(p.limits).catch((err: unknown) =>
          env.logger.warn('writing the runtime config failed', { err: String(err) }),
        );
      });
}

export function describeLimits(l: LimitsScenarioConfig): string[] {
  const lines = [
    `  limits: ${l.strategy} rate strategy, runtime config reloaded every ${formatDuration(l.reloadPeriodMs)}, writer quiet ${formatDuration(l.quietMs)} from 1s before each change; the writer ignores scrape.series: ${l.grow} new series per scrape up to ${l.maxSeries}, bursts of ${l.burstRun} scrape(s) every ${l.burstEvery}`,
    ...l.phases.map(
      (p) =>
        `    from +${formatDuration(p.atMs)}: rate ${p.limits.ingestionRate}/s burst ${p.limits.ingestionBurstSize}, series ${p.limits.maxSeriesPerUser}/user ${p.limits.maxSeriesPerMetric}/metric, labels ${p.limits.maxLabelNamesPerSeries} names, name ${p.limits.maxLabelNameLength}B, value ${p.limits.maxLabelValueLength}B`,
    ),
  ];
  if (l.broken === 'off_by_one_burst')
    lines.push('  [DELIBERATE BUG: the distributor rate limiter allows one burst too many]');
  return lines;
}
