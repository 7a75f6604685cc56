import type { RandomStream } from '../../../src/runtime/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import {
  ScenarioError,
  formatDuration,
  readDuration,
  readObject,
  readStringList,
} from '../../fields/index.js';
import type { CheckResult, CheckSpec, WorkloadContext } from '../workload.js';
import {
  checkHaFailover,
  checkHaOneReplicaAtATime,
  checkHaReads,
  defaultMaxGapMs,
  type HaCheckContext,
} from './checks_ha.js';
import { checkLimitsAcceptedSet, checkLimitsEnforced } from './checks_limits.js';
import { LIMIT_KINDS, LimitsModel, type LimitKind } from './checks_limits_model.js';
import type { StrataWorkloadConfig } from './config.js';
import { haReplicaOf } from './config_ha.js';
import { haWriter } from './ha_writer.js';
import type { WriteLedger } from './ledger.js';
import { limitsWriter } from './limits_writer.js';
import type { ReadLog } from './read_log.js';

/** The checks of the `ha-tracker` and `limits` scenarios. */
export const HA_LIMITS_CHECKS = [
  'ha_one_replica_at_a_time',
  'ha_failover',
  'ha_reads_match',
  'limits_enforced',
  'limits_accepted_set',
] as const;

/**
 * The process of a writer node when it is an HA replica (`ha_tracker.clusters`) or the
 * scenario probes limits (`limits`); undefined for the ordinary writer.
 */
export function haLimitsWriter(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  ctx: WorkloadContext,
  ledger: WriteLedger,
  streamFor: (tenant: string) => RandomStream,
): SimProcess | undefined {
  const distributors = ctx.nodesByRole.get('distributor') ?? [];
  const now = (): number => ctx.kernel.now();
  const replica = haReplicaOf(config.ha, env.nodeName);
  if (replica !== undefined && config.ha !== undefined)
    return haWriter(env, config, config.ha, {
      ledger,
      distributors,
      epochMs: ctx.epochMs,
      now,
      streamFor,
      replica,
    });
  if (config.limits !== undefined)
    return limitsWriter(env, config, config.limits, {
      ledger,
      distributors,
      epochMs: ctx.epochMs,
      now,
      streamFor,
    });
  return undefined;
}

function fail(name: string, detail: string): CheckResult {
  return { name, verdict: 'fail', detail };
}

/** Judges one of HA_LIMITS_CHECKS; undefined for any other check. */
export function judgeHaLimitsCheck(
  spec: CheckSpec,
  config: StrataWorkloadConfig,
  ctx: WorkloadContext,
  ledger: WriteLedger,
  reads: ReadLog,
): CheckResult | undefined {
  const tenants = config.tenants.map((t) => t.name);
  const where = `checks.${spec.name}`;
  if (spec.name.startsWith('ha_')) {
    const ha = config.ha;
    if (ha === undefined) return fail(spec.name, 'needs workload.ha_tracker');
    const hc: HaCheckContext = {
      ledger,
      reads,
      ha,
      tenants,
      epochMs: ctx.epochMs,
      intervalMs: config.scrape.intervalMs,
      timeoutMs: config.remoteWrite.timeoutMs,
      scrapeStartMs: config.scrape.startMs,
      scrapeStopMs: config.scrape.stopMs,
    };
    switch (spec.name) {
      case 'ha_one_replica_at_a_time':
        readObject(spec.options, where, []);
        return checkHaOneReplicaAtATime(hc);
      case 'ha_failover': {
        const o = readObject(spec.options, where, ['expect_failover']);
        const expectFailover = readStringList(o.expect_failover, `${where}.expect_failover`);
        for (const c of expectFailover)
          if (!ha.clusters.has(c))
            throw new ScenarioError(`${where}.expect_failover: unknown cluster ${c}`);
        return checkHaFailover(hc, { expectFailover });
      }
      case 'ha_reads_match': {
        const o = readObject(spec.options, where, ['max_gap']);
        return checkHaReads(hc, {
          maxGapMs: readDuration(
            o.max_gap,
            `${where}.max_gap`,
            defaultMaxGapMs(ha, config.scrape.intervalMs),
          ),
        });
      }
    }
    return undefined;
  }
  if (spec.name.startsWith('limits_')) {
    const l = config.limits;
    if (l === undefined) return fail(spec.name, 'needs workload.limits');
    const distributors = (ctx.nodesByRole.get('distributor') ?? []).length;
    const changed = distributorCountChange(config, ctx);
    if (changed !== undefined)
      return fail(
        spec.name,
        `the limits model holds the healthy distributors at ${distributors} under the global strategy, but ${changed}: not supported`,
      );
    const isLimitsWriter = (w: string): boolean => haReplicaOf(config.ha, w) === undefined;
    const model = new LimitsModel(ledger, l, ctx.epochMs, isLimitsWriter, distributors);
    const lc = { ledger, reads, model, tenants, epochMs: ctx.epochMs, isLimitsWriter };
    switch (spec.name) {
      case 'limits_enforced': {
        const o = readObject(spec.options, where, ['expect']);
        const expect =
          o.expect === undefined ? LIMIT_KINDS : readStringList(o.expect, `${where}.expect`);
        for (const k of expect)
          if (!(LIMIT_KINDS as readonly string[]).includes(k))
            throw new ScenarioError(
              `${where}.expect: unknown limit ${k} (known: ${LIMIT_KINDS.join(', ')})`,
            );
        return checkLimitsEnforced(lc, { expect: expect as LimitKind[] });
      }
      case 'limits_accepted_set':
        readObject(spec.options, where, []);
        return checkLimitsAcceptedSet(lc);
    }
  }
  return undefined;
}

/**
 * Under the global strategy with several distributors the model divides the rate by a fixed
 * count: each rate limiter sizes a tenant's bucket at its first push and re-reads the count
 * only every 10s, so a distributor that starts after the first scrape, crashes, stops or is
 * partitioned would make the model wrong rather than the product. Names the first such event.
 */
function distributorCountChange(
  config: StrataWorkloadConfig,
  ctx: WorkloadContext,
): string | undefined {
  const names = new Set(ctx.nodesByRole.get('distributor') ?? []);
  if (config.limits?.strategy !== 'global' || names.size < 2) return undefined;
  const at = (ms: number): string => `+${formatDuration(ms - ctx.epochMs)}`;
  // A distributor joins within one KV round trip; a second's margin before the first scrape.
  const lastStart = ctx.epochMs + config.scrape.startMs - 1_000;
  for (const e of ctx.nodeEvents)
    if (names.has(e.node) && !(e.kind === 'start' && e.at <= lastStart))
      return `${e.node} has a ${e.kind} at ${at(e.at)}`;
  for (const f of ctx.faultEvents) {
    const named = f.names.find((n) => names.has(n));
    if (named !== undefined) return `${named} is named by a ${f.kind} at ${at(f.at)}`;
  }
  return undefined;
}
