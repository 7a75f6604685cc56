import { formatDuration } from '../fields/index.js';
import { describeLatency, type SimRuntimeConfig } from '../runtime/index.js';
import { findWorkload } from '../workloads/index.js';
import { describeFaultAction, type FaultPlan } from './fault_plan.js';
import type { RandomFaultProfile, Scenario } from './scenario_types.js';
import { formatMemcachedRandomFaults, formatMemcachedSection } from './memcached_random_faults.js';

const pct = (p: number): string => `${+(p * 100).toFixed(3)}%`;

/** The resolved plan as printed before a run: topology, every knob, the full fault schedule. */
export function formatPlan(
  scenario: Scenario,
  seed: number,
  durationMs: number,
  plan: FaultPlan,
): string[] {
  const r = scenario.runtime;
  const lines = [
    `scenario ${scenario.name} (${scenario.source})${scenario.description === '' ? '' : `: ${scenario.description.trim()}`}`,
    `seed ${seed} | epoch ${new Date(scenario.epochMs).toISOString()} | duration ${formatDuration(durationMs)}`,
    `topology: ${scenario.nodes.map((n) => `${n.name} runs ${n.run}${n.clockSkewMs === 0 ? '' : ` (clock skew ${n.clockSkewMs}ms)`}${n.startAtMs === 0 ? '' : ` (starts at +${formatDuration(n.startAtMs)})`}`).join('; ')}`,
    ...formatRuntime(r),
    `random faults: ${formatRandomFaults(scenario.faults)}`,
  ];
  const workload = findWorkload(scenario.workload.kind);
  if (workload !== undefined)
    lines.push(...workload.describe(scenario.workload.config).map((l) => `workload: ${l}`));
  lines.push(
    plan.faults.length === 0
      ? 'fault schedule: none'
      : `fault schedule (${plan.faults.length} events, faults over at +${formatDuration(plan.quietAtMs)}):`,
  );
  for (const f of plan.faults) {
    lines.push(
      `  +${formatDuration(f.atMs).padEnd(10)} ${describeFaultAction(f.action).padEnd(44)} (${f.origin})`,
    );
  }
  lines.push(
    `checks: ${scenario.checks
      .map((c) =>
        Object.keys(c.options).length === 0 ? c.name : `${c.name} ${JSON.stringify(c.options)}`,
      )
      .join(', ')}`,
  );
  return lines;
}

function formatRuntime(r: SimRuntimeConfig): string[] {
  return [
    `network: latency ${describeLatency(r.network.latency)}; loss ${pct(r.network.loss)}; duplication ${pct(r.network.duplication)}`,
    `disk: op latency ${describeLatency(r.disk.opLatency)}; fsync ${describeLatency(r.disk.syncLatency)}; torn writes ${r.disk.tornWrites ? 'on' : 'off'}`,
    `object store: latency ${describeLatency(r.objectStore.latency)}; errors ${pct(r.objectStore.errorRate)}; list delay ${formatDuration(r.objectStore.listDelayMs)}; ` +
      `throttle ${r.objectStore.opsPerSecond > 0 ? `${r.objectStore.opsPerSecond} ops/s burst ${r.objectStore.burst}` : 'off'}`,
    `kv: latency ${describeLatency(r.kv.latency)}; errors ${pct(r.kv.errorRate)} | cache: latency ${describeLatency(r.cache.latency)}; errors ${pct(r.cache.errorRate)}; max ${r.cache.maxSizeBytes} bytes`,
    ...formatMemcachedSection(r.memcached),
  ];
}

function formatRandomFaults(p: RandomFaultProfile): string {
  const parts: string[] = [];
  const rate = (n: number): string => `${n}/min`;
  if (p.crash !== undefined)
    parts.push(
      `crash ${rate(p.crash.perMinute)} of [${p.crash.nodes.join(',')}] down ${formatDuration(p.crash.downForMs)}`,
    );
  if (p.powerLoss !== undefined)
    parts.push(
      `power loss ${rate(p.powerLoss.perMinute)} of [${p.powerLoss.nodes.join(',')}] down ${formatDuration(p.powerLoss.downForMs)}`,
    );
  if (p.partition !== undefined)
    parts.push(
      `partition ${rate(p.partition.perMinute)} for ${formatDuration(p.partition.lastsMs)}`,
    );
  if (p.partitionOneWay !== undefined)
    parts.push(
      `one-way partition ${rate(p.partitionOneWay.perMinute)} for ${formatDuration(p.partitionOneWay.lastsMs)}`,
    );
  if (p.latencySpike !== undefined)
    parts.push(
      `latency x${p.latencySpike.multiplier} ${rate(p.latencySpike.perMinute)} for ${formatDuration(p.latencySpike.lastsMs)}`,
    );
  if (p.cacheWipe !== undefined) parts.push(`cache wipe ${rate(p.cacheWipe.perMinute)}`);
  if (p.kvUnavailable !== undefined)
    parts.push(
      `kv outage ${rate(p.kvUnavailable.perMinute)} for ${formatDuration(p.kvUnavailable.lastsMs)}`,
    );
  if (p.objstoreUnavailable !== undefined)
    parts.push(
      `object store outage ${rate(p.objstoreUnavailable.perMinute)} for ${formatDuration(p.objstoreUnavailable.lastsMs)}`,
    );
  if (p.clockSkew !== undefined)
    parts.push(
      `clock skew ${rate(p.clockSkew.perMinute)} of [${p.clockSkew.nodes.join(',')}] up to ±${formatDuration(p.clockSkew.maxMs)}`,
    );
  parts.push(...formatMemcachedRandomFaults(p.memcached));
  if (parts.length === 0) return 'none';
  return `${parts.join('; ')} (between +${formatDuration(p.fromMs)} and +${formatDuration(p.untilMs)})`;
}
