import type { RandomStream } from '../../src/runtime/index.js';
import { KV_SERVICE, OBJECT_STORE_SERVICE } from '../runtime/index.js';
import type {
  FaultAction,
  RandomFaultProfile,
  Scenario,
  ScheduledFault,
} from './scenario_types.js';
import {
  describeMemcachedFault,
  isMemcachedFault,
  memcachedLeftActive,
} from './memcached_faults.js';
import { generateMemcachedFaults } from './memcached_random_faults.js';
import { arrivals, pick } from './poisson.js';

/** The full, resolved fault schedule of one run: explicit entries plus generated ones, by time. */
export interface FaultPlan {
  faults: ScheduledFault[];
  /** When the last fault event happens (ms after the epoch); 0 without faults. */
  quietAtMs: number;
  /**
   * Faults never ended by the schedule (a partition without heal, a node left down, …).
   * Liveness after `quietAtMs` cannot be expected while one of these holds; the plan warns.
   */
  activeAtEnd: string[];
}

/**
 * Resolves the fault schedule for a seed. Random faults are drawn from the `faults` stream,
 * one forked stream per fault kind, so adding, removing or retuning one kind never shifts the
 * draws of another. Each random fault brings its own end (restart, heal of its partition,
 * end of outage or spike) so faults stay within what the system is promised to survive.
 */
export function resolveFaultPlan(scenario: Scenario, faultsStream: RandomStream): FaultPlan {
  const generated = generateRandomFaults(
    scenario.faults,
    scenario.nodes.map((n) => n.name),
    faultsStream,
  );
  const all = [...scenario.schedule, ...generated]
    .filter((f) => f.atMs <= scenario.durationMs)
    .map((f, i) => ({ f, i }))
    .sort((x, y) => x.f.atMs - y.f.atMs || x.i - y.i)
    .map(({ f }) => f);
  return {
    faults: all,
    quietAtMs: all.reduce((max, f) => Math.max(max, f.atMs), 0),
    activeAtEnd: faultsLeftActive(all),
  };
}

/** Replays the schedule symbolically and lists what is still broken after the last entry. */
function faultsLeftActive(faults: readonly ScheduledFault[]): string[] {
  const partitions = new Map<string, string>();
  const down = new Map<string, string>();
  const services = new Set<string>();
  let multiplier = 1;
  let errorBurst: string | undefined;
  let throttle: string | undefined;
  let loss: string | undefined;
  for (const { action: a } of faults) {
    switch (a.kind) {
      case 'partition':
      case 'partition_one_way':
        partitions.set(a.id, describeFaultAction(a));
        break;
      case 'heal_partition':
        partitions.delete(a.id);
        break;
      case 'heal':
        partitions.clear();
        services.clear();
        multiplier = 1;
        errorBurst = undefined;
        throttle = undefined;
        loss = undefined;
        break;
      case 'message_loss':
        loss = a.rate === undefined ? undefined : describeFaultAction(a);
        break;
      case 'objstore_errors':
        errorBurst = a.rate > 0 ? describeFaultAction(a) : undefined;
        break;
      case 'objstore_throttle':
        throttle = a.limit === undefined ? undefined : describeFaultAction(a);
        break;
      case 'crash':
      case 'power_loss':
      case 'stop':
        down.set(a.node, describeFaultAction(a));
        break;
      case 'restart':
      case 'start':
        down.delete(a.node);
        break;
      case 'latency_spike':
        multiplier = a.multiplier;
        break;
      case 'service_down':
        services.add(a.service);
        break;
      case 'service_up':
        services.delete(a.service);
        break;
      default:
        break;
    }
  }
  return [
    ...[...partitions].map(([id, what]) => `${what} (${id})`),
    ...[...down.values()].map((what) => `${what} without restart`),
    ...[...services].map((s) => `${s} unavailable`),
    ...(multiplier === 1 ? [] : [`latency x${multiplier}`]),
    ...(errorBurst === undefined ? [] : [errorBurst]),
    ...(throttle === undefined ? [] : [throttle]),
    ...(loss === undefined ? [] : [loss]),
    ...memcachedLeftActive(faults),
  ];
}

export function generateRandomFaults(
  profile: RandomFaultProfile,
  nodes: readonly string[],
  faults: RandomStream,
): ScheduledFault[] {
  const out: ScheduledFault[] = [];
  const { fromMs, untilMs } = profile;
  const add = (atMs: number, action: FaultAction, kind: string): void => {
    out.push({ atMs, action, origin: `random:${kind}` });
  };

  if (profile.crash !== undefined && profile.crash.nodes.length > 0) {
    const s = faults.fork('crash');
    const { nodes: targets, downForMs } = profile.crash;
    for (const t of arrivals(s, profile.crash.perMinute, fromMs, untilMs)) {
      const node = pick(s, targets);
      add(t, { kind: 'crash', node }, 'crash');
      add(t + downForMs, { kind: 'restart', node }, 'crash');
    }
  }
  if (profile.powerLoss !== undefined && profile.powerLoss.nodes.length > 0) {
    const s = faults.fork('power_loss');
    const { nodes: targets, downForMs } = profile.powerLoss;
    for (const t of arrivals(s, profile.powerLoss.perMinute, fromMs, untilMs)) {
      const node = pick(s, targets);
      add(t, { kind: 'power_loss', node }, 'power_loss');
      add(t + downForMs, { kind: 'restart', node }, 'power_loss');
    }
  }
  if (profile.partition !== undefined && nodes.length > 1) {
    const s = faults.fork('partition');
    arrivals(s, profile.partition.perMinute, fromMs, untilMs).forEach((t, i) => {
      // A random non-trivial split: each node joins side A or B, at least one on each side.
      const members = [...nodes];
      const first = members.splice(s.int(members.length), 1);
      const sideA = [...first];
      const sideB: string[] = [];
      for (const n of members) (s.next() < 0.5 ? sideA : sideB).push(n);
      if (sideB.length === 0) sideB.push(sideA.pop()!);
      const id = `random:partition:${i}`;
      add(t, { kind: 'partition', groups: [sideA, sideB], id }, 'partition');
      add(t + profile.partition!.lastsMs, { kind: 'heal_partition', id }, 'partition');
    });
  }
  if (profile.partitionOneWay !== undefined && nodes.length > 1) {
    const s = faults.fork('partition_one_way');
    arrivals(s, profile.partitionOneWay.perMinute, fromMs, untilMs).forEach((t, i) => {
      const from = pick(s, nodes);
      const others = nodes.filter((n) => n !== from);
      const to = pick(s, others);
      const id = `random:partition_one_way:${i}`;
      add(t, { kind: 'partition_one_way', from, to, id }, 'partition_one_way');
      add(
        t + profile.partitionOneWay!.lastsMs,
        { kind: 'heal_partition', id },
        'partition_one_way',
      );
    });
  }
  if (profile.latencySpike !== undefined) {
    const s = faults.fork('latency_spike');
    for (const t of arrivals(s, profile.latencySpike.perMinute, fromMs, untilMs)) {
      add(
        t,
        { kind: 'latency_spike', multiplier: profile.latencySpike.multiplier },
        'latency_spike',
      );
      add(
        t + profile.latencySpike.lastsMs,
        { kind: 'latency_spike', multiplier: 1 },
        'latency_spike',
      );
    }
  }
  if (profile.cacheWipe !== undefined) {
    const s = faults.fork('cache_wipe');
    for (const t of arrivals(s, profile.cacheWipe.perMinute, fromMs, untilMs))
      add(t, { kind: 'cache_wipe' }, 'cache_wipe');
  }
  for (const [key, service] of [
    ['kvUnavailable', KV_SERVICE],
    ['objstoreUnavailable', OBJECT_STORE_SERVICE],
  ] as const) {
    const f = profile[key];
    if (f === undefined) continue;
    const kind = key === 'kvUnavailable' ? 'kv_unavailable' : 'objstore_unavailable';
    const s = faults.fork(kind);
    for (const t of arrivals(s, f.perMinute, fromMs, untilMs)) {
      add(t, { kind: 'service_down', service }, kind);
      add(t + f.lastsMs, { kind: 'service_up', service }, kind);
    }
  }
  if (profile.clockSkew !== undefined && profile.clockSkew.nodes.length > 0) {
    const s = faults.fork('clock_skew');
    const { nodes: targets, maxMs } = profile.clockSkew;
    for (const t of arrivals(s, profile.clockSkew.perMinute, fromMs, untilMs)) {
      const node = pick(s, targets);
      add(
        t,
        { kind: 'clock_skew', node, skewMs: Math.round((s.next() * 2 - 1) * maxMs) },
        'clock_skew',
      );
    }
  }
  // Memcached faults draw from forks of their own: adding them shifts no other kind.
  for (const f of generateMemcachedFaults(profile, faults)) add(f.atMs, f.action, f.kind);
  return out;
}

export function describeFaultAction(a: FaultAction): string {
  if (isMemcachedFault(a)) return describeMemcachedFault(a);
  switch (a.kind) {
    case 'partition':
      return `partition ${a.groups.map((g) => `[${g.join(',')}]`).join(' | ')}`;
    case 'partition_one_way':
      return `partition one-way ${a.from} -> ${a.to}`;
    case 'heal_partition':
      return `heal ${a.id}`;
    case 'heal':
      return 'heal all (partitions, latency, services)';
    case 'crash':
    case 'power_loss':
    case 'restart':
    case 'stop':
    case 'start':
      return `${a.kind.replace('_', ' ')} ${a.node}`;
    case 'latency_spike':
      return a.multiplier === 1 ? 'latency back to normal' : `latency x${a.multiplier}`;
    case 'clock_skew':
      return `clock skew ${a.node} ${a.skewMs >= 0 ? '+' : ''}${a.skewMs}ms`;
    case 'cache_wipe':
      return 'wipe caches';
    case 'service_down':
      return `${a.service} unavailable`;
    case 'service_up':
      return `${a.service} available again`;
    case 'objstore_errors':
      return a.rate > 0
        ? `object store errors ${+(a.rate * 100).toFixed(3)}%`
        : 'object store errors back to normal';
    case 'objstore_throttle':
      return a.limit === undefined
        ? 'object store throttling back to normal'
        : `object store throttled to ${a.limit.opsPerSecond} ops/s burst ${a.limit.burst}`;
    case 'message_loss':
      return a.rate === undefined
        ? 'message loss back to the configured rate'
        : `message loss ${+(a.rate * 100).toFixed(3)}%`;
    case 'crash_mid_block_upload':
      return `crash whichever of ${a.nodes.join(', ')} makes the ${ordinal(a.nth)} block upload from now on, in its middle (after the index, before meta.json)`;
  }
}

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${['th', 'st', 'nd', 'rd'][n % 10] ?? 'th'}`;
}
