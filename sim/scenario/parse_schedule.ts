import {
  ScenarioError,
  readArray,
  readDuration,
  readNumber,
  readObject,
  readProbability,
  readString,
  readStringList,
} from '../fields/index.js';
import { CACHE_SERVICE, KV_SERVICE, OBJECT_STORE_SERVICE } from '../runtime/index.js';
import { checkSchedule, type ScheduleContext, type ScheduleEntry } from './check_schedule.js';
import { MEMCACHED_ACTIONS, parseMemcachedAction } from './memcached_faults.js';
import type { FaultAction, ScheduledFault } from './scenario_types.js';

/** The shared services a schedule may name (partitions, outages). */
export const SERVICES = [OBJECT_STORE_SERVICE, KV_SERVICE, CACHE_SERVICE];

/** A duration that may be negative (`-2s`), for clock skews. */
export function readSignedDuration(value: unknown, where: string): number {
  if (typeof value === 'string' && value.trim().startsWith('-'))
    return -readDuration(value.trim().slice(1), where);
  if (typeof value === 'number') return Math.round(value);
  return readDuration(value, where, 0);
}

const SCHEDULE_ACTIONS = [
  'partition',
  'partition_one_way',
  'heal',
  'crash',
  'power_loss',
  'restart',
  'stop',
  'start',
  'latency_spike',
  'clock_skew',
  'cache_wipe',
  'service_down',
  'service_up',
  'objstore_errors',
  'objstore_throttle',
  'crash_mid_block_upload',
  'message_loss',
  ...MEMCACHED_ACTIONS,
] as const;

export function parseSchedule(
  value: unknown,
  nodes: ReadonlySet<string>,
  ctx: ScheduleContext,
): ScheduledFault[] {
  const entries = readArray(value, 'schedule').map((raw, i): ScheduleEntry => {
    const where = `schedule[${i}]`;
    const o = readObject(raw, where, ['at', ...SCHEDULE_ACTIONS]);
    const atMs = readDuration(o.at, `${where}.at`);
    const actions = SCHEDULE_ACTIONS.filter((a) => o[a] !== undefined);
    if (actions.length !== 1) {
      throw new ScenarioError(
        `${where}: need exactly one action (${SCHEDULE_ACTIONS.join(', ')}), got ${actions.length === 0 ? 'none' : actions.join(' and ')}`,
      );
    }
    const kind = actions[0]!;
    const action = isMemcachedAction(kind)
      ? parseMemcachedAction(kind, o[kind], `${where}.${kind}`, ctx.memcached)
      : parseAction(kind, o[kind], `${where}.${kind}`, endpoints(nodes, ctx), `schedule:${i}`);
    return { fault: { atMs, action, origin: 'schedule' }, index: i, atText: JSON.stringify(o.at) };
  });
  // Stable by time: entries at the same instant keep their file order.
  const ordered = entries.sort((x, y) => x.fault.atMs - y.fault.atMs || x.index - y.index);
  checkSchedule(ordered, ctx);
  return ordered.map((e) => e.fault);
}

function isMemcachedAction(kind: string): kind is (typeof MEMCACHED_ACTIONS)[number] {
  return (MEMCACHED_ACTIONS as readonly string[]).includes(kind);
}

/** Nodes, plus the memcached servers where partitions may name them. */
function endpoints(nodes: ReadonlySet<string>, ctx: ScheduleContext): EndpointNames {
  return { nodes, servers: ctx.memcached?.servers ?? [] };
}

interface EndpointNames {
  nodes: ReadonlySet<string>;
  servers: readonly string[];
}

function parseAction(
  kind: Exclude<(typeof SCHEDULE_ACTIONS)[number], (typeof MEMCACHED_ACTIONS)[number]>,
  v: unknown,
  where: string,
  names: EndpointNames,
  id: string,
): FaultAction {
  const nodes = names.nodes;
  const node = (x: unknown, w: string): string => {
    const n = readString(x, w);
    if (!nodes.has(n))
      throw new ScenarioError(
        `${w}: unknown node ${JSON.stringify(n)} (nodes: ${[...nodes].join(', ')})`,
      );
    return n;
  };
  const endpoint = (x: unknown, w: string): string => {
    const n = readString(x, w);
    if (!nodes.has(n) && !SERVICES.includes(n) && !names.servers.includes(n)) {
      const servers = names.servers.length > 0 ? `; memcached: ${names.servers.join(', ')}` : '';
      throw new ScenarioError(
        `${w}: unknown node or service ${JSON.stringify(n)} (nodes: ${[...nodes].join(', ')}; services: ${SERVICES.join(', ')}${servers})`,
      );
    }
    return n;
  };
  const service = (x: unknown, w: string): string => {
    const s = readString(x, w);
    if (!SERVICES.includes(s))
      throw new ScenarioError(
        `${w}: unknown service ${JSON.stringify(s)} (services: ${SERVICES.join(', ')})`,
      );
    return s;
  };
  const flag = (): void => {
    if (v !== true) throw new ScenarioError(`${where}: expected true, got ${JSON.stringify(v)}`);
  };
  switch (kind) {
    case 'partition': {
      const groups = readArray(v, where).map((g, gi) =>
        readStringList(g, `${where}[${gi}]`).map((n, ni) => endpoint(n, `${where}[${gi}][${ni}]`)),
      );
      if (groups.length < 2)
        throw new ScenarioError(`${where}: need at least two groups, got ${groups.length}`);
      return { kind, groups, id };
    }
    case 'partition_one_way': {
      const o = readObject(v, where, ['from', 'to']);
      return {
        kind,
        from: endpoint(o.from, `${where}.from`),
        to: endpoint(o.to, `${where}.to`),
        id,
      };
    }
    case 'heal':
      flag();
      return { kind };
    case 'cache_wipe':
      flag();
      return { kind };
    case 'crash':
    case 'power_loss':
    case 'restart':
    case 'stop':
    case 'start':
      return { kind, node: node(v, where) };
    case 'latency_spike':
      return { kind, multiplier: readNumber(v, where, 1, { min: 1 }) };
    case 'clock_skew': {
      const o = readObject(v, where, ['node', 'by']);
      return {
        kind,
        node: node(o.node, `${where}.node`),
        skewMs: readSignedDuration(o.by, `${where}.by`),
      };
    }
    case 'service_down':
    case 'service_up':
      return { kind, service: service(v, where) };
    case 'objstore_errors':
      // A probability: the object store's injected error rate from now on (0 ends a burst).
      return { kind, rate: readProbability(v, where, 0) };
    case 'crash_mid_block_upload': {
      const o = readObject(v, where, ['nodes', 'nth']);
      const nodes = readStringList(o.nodes, `${where}.nodes`).map((n, i) =>
        node(n, `${where}.nodes[${i}]`),
      );
      if (nodes.length === 0) throw new ScenarioError(`${where}.nodes: at least one node`);
      return {
        kind,
        nodes,
        nth: readNumber(o.nth, `${where}.nth`, 1, { min: 1, integer: true }),
      };
    }
    case 'message_loss':
      // A probability per message from now on; `off` goes back to the configured network.loss.
      return v === 'off' ? { kind } : { kind, rate: readProbability(v, where, 0) };
    case 'objstore_throttle': {
      if (v === 'off') return { kind };
      const o = readObject(v, where, ['ops_per_second', 'burst']);
      if (o.ops_per_second === undefined)
        throw new ScenarioError(`${where}.ops_per_second: required (or \`off\`)`);
      return {
        kind,
        limit: {
          opsPerSecond: readNumber(o.ops_per_second, `${where}.ops_per_second`, 0, {
            min: 0.001,
          }),
          burst: readNumber(o.burst, `${where}.burst`, 1, { min: 1 }),
        },
      };
    }
  }
}
