import {
  ScenarioError,
  readArray,
  readBoolean,
  readDuration,
  readLatency,
  readNumber,
  readObject,
  readProbability,
  readString,
  readStringList,
  type Fields,
} from '../fields/index.js';
import {
  defaultSimRuntimeConfig,
  type SimMemcachedConfig,
  type SimRuntimeConfig,
} from '../runtime/index.js';
import { findWorkload, workloadKinds } from '../workloads/index.js';
import { parseMemcachedSection } from './memcached_faults.js';
import { MEMCACHED_RANDOM_KEYS, parseMemcachedRandomFaults } from './memcached_random_faults.js';
import { SERVICES, parseSchedule, readSignedDuration } from './parse_schedule.js';
import type { ScheduleContext } from './check_schedule.js';
import { parseScenarioSource } from './source_lines.js';
import type { CheckSpec, NodeTopology, RandomFaultProfile, Scenario } from './scenario_types.js';

export const DEFAULT_EPOCH_MS = Date.UTC(2026, 0, 1);

/** Checks every run gets, whatever the workload. */
export const BUILTIN_CHECKS = ['no_simulation_errors'] as const;

/**
 * Parses and validates a scenario file (YAML). Strict: unknown keys, unknown node names,
 * unknown checks, impossible schedules and malformed values are errors, rejected before any
 * run, as `<file>:<line>:<col>: <key path>: <message naming the value>`. `source` is how the
 * CLI names the scenario (builtin name or path), for replay commands; `file` is the file to
 * point at in errors (defaults to `source`).
 */
export function parseScenario(text: string, source: string, file = source): Scenario {
  const yaml = parseScenarioSource(text, file);
  try {
    return readScenario(yaml.data, source);
  } catch (err) {
    // The one place positions are added: readers only know key paths.
    if (!(err instanceof ScenarioError)) throw err;
    const at = err.path === undefined ? undefined : yaml.position(err.path);
    throw new ScenarioError(`${at ?? file}: ${err.message}`, err.path);
  }
}

function readScenario(doc: unknown, source: string): Scenario {
  const top = readObject(doc, '', [
    'name',
    'description',
    'seed',
    'epoch',
    'duration',
    'topology',
    'network',
    'disk',
    'object_store',
    'kv',
    'cache',
    'memcached',
    'faults',
    'schedule',
    'workload',
    'checks',
  ]);
  const name = readString(top.name, 'name');
  const durationMs = readDuration(top.duration, 'duration');
  if (durationMs <= 0) throw new ScenarioError(`duration: must be positive, got ${durationMs}ms`);
  const nodes = parseTopology(top.topology);
  const nodeNames = new Set(nodes.map((n) => n.name));

  const workloadFields = readObject(top.workload, 'workload', Object.keys(top.workload ?? {}));
  const kind = readString(workloadFields.kind, 'workload.kind');
  const workload = findWorkload(kind);
  if (workload === undefined)
    throw new ScenarioError(
      `workload.kind: unknown workload ${JSON.stringify(kind)} (known: ${workloadKinds().join(', ')})`,
    );
  const { kind: _kind, ...workloadRest } = workloadFields;
  const workloadConfig = workload.parseConfig(workloadRest, 'workload');
  const byRole = new Map<string, string[]>();
  for (const n of nodes) {
    if (!workload.roles.includes(n.run)) {
      throw new ScenarioError(
        `topology.nodes: node ${n.name} runs unknown role ${JSON.stringify(n.run)} (roles of ${kind}: ${workload.roles.join(', ')})`,
      );
    }
    byRole.set(n.run, [...(byRole.get(n.run) ?? []), n.name]);
  }
  workload.validateTopology(byRole, 'topology');

  const checks = parseChecks(top.checks, [...workload.checks, ...BUILTIN_CHECKS]);
  const memcached = parseMemcachedSection(top.memcached, new Set([...nodeNames, ...SERVICES]));
  const faults = parseRandomFaults(top.faults, nodeNames, durationMs, memcached);
  const scheduleContext: ScheduleContext = {
    durationMs,
    durationText: JSON.stringify(top.duration),
    nodes,
    faults,
    memcached,
  };
  return {
    name,
    description: readString(top.description, 'description', ''),
    seed: readNumber(top.seed, 'seed', 1, { min: 0, integer: true }),
    epochMs: parseEpoch(top.epoch),
    durationMs,
    nodes,
    runtime: { ...parseRuntime(top), ...(memcached === undefined ? {} : { memcached }) },
    faults,
    schedule: parseSchedule(top.schedule, nodeNames, scheduleContext),
    workload: { kind, config: workloadConfig },
    checks,
    source,
  };
}

function parseEpoch(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_EPOCH_MS;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  const text = readString(value, 'epoch');
  const ms = Date.parse(text);
  if (!Number.isFinite(ms) || !/^\d{4}-\d\d-\d\dT/.test(text)) {
    throw new ScenarioError(
      `epoch: expected an RFC 3339 time like 2026-01-01T00:00:00Z or milliseconds, got ${JSON.stringify(value)}`,
    );
  }
  return ms;
}

function parseTopology(value: unknown): NodeTopology[] {
  const o = readObject(value, 'topology', ['nodes']);
  const list = readArray(o.nodes, 'topology.nodes');
  if (list.length === 0) throw new ScenarioError('topology.nodes: at least one node is required');
  const seen = new Set<string>();
  return list.map((raw, i) => {
    const where = `topology.nodes[${i}]`;
    const n = readObject(raw, where, ['name', 'run', 'clock_skew', 'start_at']);
    const name = readString(n.name, `${where}.name`);
    if (!/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name))
      throw new ScenarioError(`${where}.name: invalid node name ${JSON.stringify(name)}`);
    if (SERVICES.includes(name))
      throw new ScenarioError(`${where}.name: ${name} is reserved for a shared service`);
    if (seen.has(name)) throw new ScenarioError(`${where}.name: duplicate node name ${name}`);
    seen.add(name);
    return {
      name,
      run: readString(n.run, `${where}.run`),
      clockSkewMs: readSignedDuration(n.clock_skew, `${where}.clock_skew`),
      startAtMs: readDuration(n.start_at, `${where}.start_at`, 0),
    };
  });
}

function parseRuntime(top: Fields): SimRuntimeConfig {
  const d = defaultSimRuntimeConfig();
  const net = readObject(top.network, 'network', ['latency', 'loss', 'duplication']);
  const disk = readObject(top.disk, 'disk', ['latency', 'fsync_latency', 'torn_writes']);
  const os = readObject(top.object_store, 'object_store', [
    'latency',
    'error_rate',
    'list_delay',
    'ops_per_second',
    'burst',
  ]);
  const kv = readObject(top.kv, 'kv', ['latency', 'error_rate']);
  const cache = readObject(top.cache, 'cache', ['latency', 'error_rate', 'max_size_bytes']);
  return {
    network: {
      latency: readLatency(net.latency, 'network.latency', d.network.latency),
      loss: readProbability(net.loss, 'network.loss', d.network.loss),
      duplication: readProbability(net.duplication, 'network.duplication', d.network.duplication),
    },
    disk: {
      opLatency: readLatency(disk.latency, 'disk.latency', d.disk.opLatency),
      syncLatency: readLatency(disk.fsync_latency, 'disk.fsync_latency', d.disk.syncLatency),
      tornWrites: readBoolean(disk.torn_writes, 'disk.torn_writes', d.disk.tornWrites),
    },
    objectStore: {
      latency: readLatency(os.latency, 'object_store.latency', d.objectStore.latency),
      errorRate: readProbability(os.error_rate, 'object_store.error_rate', d.objectStore.errorRate),
      listDelayMs: readDuration(
        os.list_delay,
        'object_store.list_delay',
        d.objectStore.listDelayMs,
      ),
      opsPerSecond: readNumber(
        os.ops_per_second,
        'object_store.ops_per_second',
        d.objectStore.opsPerSecond,
        { min: 0 },
      ),
      burst: readNumber(os.burst, 'object_store.burst', d.objectStore.burst, { min: 1 }),
    },
    kv: {
      latency: readLatency(kv.latency, 'kv.latency', d.kv.latency),
      errorRate: readProbability(kv.error_rate, 'kv.error_rate', d.kv.errorRate),
    },
    cache: {
      latency: readLatency(cache.latency, 'cache.latency', d.cache.latency),
      errorRate: readProbability(cache.error_rate, 'cache.error_rate', d.cache.errorRate),
      maxSizeBytes: readNumber(cache.max_size_bytes, 'cache.max_size_bytes', d.cache.maxSizeBytes, {
        min: 1,
        integer: true,
      }),
    },
  };
}

function parseRandomFaults(
  value: unknown,
  nodes: ReadonlySet<string>,
  durationMs: number,
  memcached: SimMemcachedConfig | undefined,
): RandomFaultProfile {
  const where = 'faults';
  const o = readObject(value, where, [
    'from',
    'until',
    'crash',
    'power_loss',
    'partition',
    'partition_one_way',
    'latency_spike',
    'cache_wipe',
    'kv_unavailable',
    'objstore_unavailable',
    'clock_skew',
    ...MEMCACHED_RANDOM_KEYS,
  ]);
  const rate = (f: Fields, w: string): number =>
    readNumber(f.per_minute, `${w}.per_minute`, 0, { min: 0 });
  const nodeList = (v: unknown, w: string): string[] => {
    const list = v === undefined ? [...nodes] : readStringList(v, w);
    for (const [i, n] of list.entries())
      if (!nodes.has(n))
        throw new ScenarioError(
          `${w}[${i}]: unknown node ${JSON.stringify(n)} (nodes: ${[...nodes].join(', ')})`,
        );
    return list;
  };
  const profile: RandomFaultProfile = {
    fromMs: readDuration(o.from, `${where}.from`, 0),
    untilMs: readDuration(o.until, `${where}.until`, Math.floor(durationMs / 2)),
  };
  if (o.crash !== undefined) {
    const f = readObject(o.crash, `${where}.crash`, ['per_minute', 'nodes', 'down_for']);
    profile.crash = {
      perMinute: rate(f, `${where}.crash`),
      nodes: nodeList(f.nodes, `${where}.crash.nodes`),
      downForMs: readDuration(f.down_for, `${where}.crash.down_for`, 2_000),
    };
  }
  if (o.power_loss !== undefined) {
    const f = readObject(o.power_loss, `${where}.power_loss`, ['per_minute', 'nodes', 'down_for']);
    profile.powerLoss = {
      perMinute: rate(f, `${where}.power_loss`),
      nodes: nodeList(f.nodes, `${where}.power_loss.nodes`),
      downForMs: readDuration(f.down_for, `${where}.power_loss.down_for`, 3_000),
    };
  }
  if (o.partition !== undefined) {
    const f = readObject(o.partition, `${where}.partition`, ['per_minute', 'lasts']);
    profile.partition = {
      perMinute: rate(f, `${where}.partition`),
      lastsMs: readDuration(f.lasts, `${where}.partition.lasts`, 5_000),
    };
  }
  if (o.partition_one_way !== undefined) {
    const f = readObject(o.partition_one_way, `${where}.partition_one_way`, [
      'per_minute',
      'lasts',
    ]);
    profile.partitionOneWay = {
      perMinute: rate(f, `${where}.partition_one_way`),
      lastsMs: readDuration(f.lasts, `${where}.partition_one_way.lasts`, 5_000),
    };
  }
  if (o.latency_spike !== undefined) {
    const f = readObject(o.latency_spike, `${where}.latency_spike`, [
      'per_minute',
      'multiplier',
      'lasts',
    ]);
    profile.latencySpike = {
      perMinute: rate(f, `${where}.latency_spike`),
      multiplier: readNumber(f.multiplier, `${where}.latency_spike.multiplier`, 10, { min: 1 }),
      lastsMs: readDuration(f.lasts, `${where}.latency_spike.lasts`, 5_000),
    };
  }
  if (o.cache_wipe !== undefined) {
    const f = readObject(o.cache_wipe, `${where}.cache_wipe`, ['per_minute']);
    profile.cacheWipe = { perMinute: rate(f, `${where}.cache_wipe`) };
  }
  if (o.kv_unavailable !== undefined) {
    const f = readObject(o.kv_unavailable, `${where}.kv_unavailable`, ['per_minute', 'lasts']);
    profile.kvUnavailable = {
      perMinute: rate(f, `${where}.kv_unavailable`),
      lastsMs: readDuration(f.lasts, `${where}.kv_unavailable.lasts`, 5_000),
    };
  }
  if (o.objstore_unavailable !== undefined) {
    const f = readObject(o.objstore_unavailable, `${where}.objstore_unavailable`, [
      'per_minute',
      'lasts',
    ]);
    profile.objstoreUnavailable = {
      perMinute: rate(f, `${where}.objstore_unavailable`),
      lastsMs: readDuration(f.lasts, `${where}.objstore_unavailable.lasts`, 5_000),
    };
  }
  if (o.clock_skew !== undefined) {
    const f = readObject(o.clock_skew, `${where}.clock_skew`, ['per_minute', 'nodes', 'max']);
    profile.clockSkew = {
      perMinute: rate(f, `${where}.clock_skew`),
      nodes: nodeList(f.nodes, `${where}.clock_skew.nodes`),
      maxMs: readDuration(f.max, `${where}.clock_skew.max`, 5_000),
    };
  }
  const mc = parseMemcachedRandomFaults(o, memcached);
  if (mc !== undefined) profile.memcached = mc;
  return profile;
}

function parseChecks(value: unknown, known: readonly string[]): CheckSpec[] {
  const list =
    value === undefined ? known.map((name) => name as unknown) : readArray(value, 'checks');
  const specs = list.map((raw, i): CheckSpec => {
    const where = `checks[${i}]`;
    if (typeof raw === 'string') return { name: raw, options: {} };
    const o = readObject(raw, where, known);
    const keys = Object.keys(o);
    if (keys.length !== 1)
      throw new ScenarioError(
        `${where}: expected a check name or { <check>: { options } }, got ${JSON.stringify(raw)}`,
      );
    const name = keys[0]!;
    return { name, options: readObject(o[name], `${where}.${name}`, Object.keys(o[name] ?? {})) };
  });
  for (const [i, spec] of specs.entries()) {
    if (!known.includes(spec.name))
      throw new ScenarioError(
        `checks[${i}]: unknown check ${JSON.stringify(spec.name)} (known: ${known.join(', ')})`,
      );
  }
  // The simulator's own check always runs.
  for (const name of BUILTIN_CHECKS)
    if (!specs.some((s) => s.name === name)) specs.push({ name, options: {} });
  return specs;
}
