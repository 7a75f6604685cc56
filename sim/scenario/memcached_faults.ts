import {
  ScenarioError,
  readDuration,
  readObject,
  readString,
  readStringList,
} from '../fields/index.js';
import type { SimMemcachedConfig, SimServices, WrongValuesMode } from '../runtime/index.js';
import type { FaultAction, MemcachedFaultAction } from './scenario_types.js';

/**
 * Scenario support for the simulated memcached servers and DNS: the `memcached` section, the
 * `memcached_*` schedule actions (parsed, checked, described, applied) and what the plan warns
 * about when the schedule leaves a server broken. Kept apart from the generic fault code so
 * that the cache faults read as one piece.
 */
export const MEMCACHED_ACTIONS = [
  'memcached_down',
  'memcached_up',
  'memcached_slow',
  'memcached_wrong_values',
  'memcached_dns',
] as const;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const MODES: readonly WrongValuesMode[] = ['garbage', 'other_key', 'off'];

/** Reads the `memcached` section; server names must not clash with nodes or services. */
export function parseMemcachedSection(
  value: unknown,
  taken: ReadonlySet<string>,
): SimMemcachedConfig | undefined {
  if (value === undefined || value === null) return undefined;
  const where = 'memcached';
  const o = readObject(value, where, ['servers', 'dns', 'dns_update_interval']);
  const servers = readStringList(o.servers, `${where}.servers`);
  if (servers.length === 0) throw new ScenarioError(`${where}.servers: at least one server`);
  servers.forEach((s, i) => {
    const w = `${where}.servers[${i}]`;
    if (!NAME.test(s)) throw new ScenarioError(`${w}: invalid server name ${JSON.stringify(s)}`);
    if (taken.has(s)) throw new ScenarioError(`${w}: ${s} is already a node or service name`);
    if (servers.indexOf(s) !== i) throw new ScenarioError(`${w}: duplicate server ${s}`);
  });
  const dnsFields = readObject(o.dns, `${where}.dns`, Object.keys(o.dns ?? {}));
  const dns: Record<string, string[]> = {};
  for (const [name, hosts] of Object.entries(dnsFields)) {
    // DNS names have dots, which key paths cannot carry: errors point at `memcached.dns`.
    const w = `${where}.dns`;
    if (servers.includes(name) || !NAME.test(name))
      throw new ScenarioError(`${w}: ${JSON.stringify(name)} cannot be a DNS name here`);
    dns[name] = readStringList(hosts, w).map((h) => knownServer(h, servers, `${w} (${name})`));
  }
  const interval = readDuration(o.dns_update_interval, `${where}.dns_update_interval`, 0);
  if (o.dns_update_interval !== undefined && interval <= 0)
    throw new ScenarioError(`${where}.dns_update_interval: must be positive`);
  return { servers, dns, ...(interval > 0 ? { dnsUpdateIntervalMs: interval } : {}) };
}

function knownServer(s: string, servers: readonly string[], where: string): string {
  if (!servers.includes(s))
    throw new ScenarioError(
      `${where}: unknown memcached server ${JSON.stringify(s)} (servers: ${servers.join(', ')})`,
    );
  return s;
}

/** Parses one `memcached_*` schedule action (the scenario must declare a `memcached` section). */
export function parseMemcachedAction(
  kind: (typeof MEMCACHED_ACTIONS)[number],
  v: unknown,
  where: string,
  config: SimMemcachedConfig | undefined,
): MemcachedFaultAction {
  if (config === undefined)
    throw new ScenarioError(`${where}: no memcached servers (declare a \`memcached\` section)`);
  const server = (x: unknown, w: string): string =>
    knownServer(readString(x, w), config.servers, w);
  switch (kind) {
    case 'memcached_down':
    case 'memcached_up':
      return { kind, server: server(v, where) };
    case 'memcached_slow': {
      const o = readObject(v, where, ['server', 'delay']);
      return {
        kind,
        server: server(o.server, `${where}.server`),
        delayMs: readDuration(o.delay, `${where}.delay`),
      };
    }
    case 'memcached_wrong_values': {
      const o = readObject(v, where, ['server', 'mode']);
      const mode = readString(o.mode, `${where}.mode`) as WrongValuesMode;
      if (!MODES.includes(mode))
        throw new ScenarioError(
          `${where}.mode: unknown mode ${JSON.stringify(o.mode)} (modes: ${MODES.join(', ')})`,
        );
      return { kind, server: server(o.server, `${where}.server`), mode };
    }
    case 'memcached_dns': {
      const o = readObject(v, where, ['name', 'servers']);
      const name = readString(o.name, `${where}.name`);
      if (config.dns[name] === undefined)
        throw new ScenarioError(
          `${where}.name: unknown DNS name ${JSON.stringify(name)} (names: ${Object.keys(config.dns).join(', ')})`,
        );
      const servers = readStringList(o.servers, `${where}.servers`).map((s, i) =>
        server(s, `${where}.servers[${i}]`),
      );
      return { kind, name, servers };
    }
  }
}

/**
 * Schedule sanity for up/down: a `memcached_down` of a server certainly down, or an
 * `memcached_up` of one certainly up, would do nothing, so it is refused. `down` tracks the
 * servers the schedule has taken down so far (with what did it).
 */
export function checkMemcachedEntry(
  a: FaultAction,
  down: Map<string, string>,
  where: string,
  when: string,
): void {
  if (a.kind !== 'memcached_down' && a.kind !== 'memcached_up') return;
  const since = down.get(a.server);
  if (a.kind === 'memcached_down' && since !== undefined)
    throw new ScenarioError(
      `${where}.memcached_down: server ${JSON.stringify(a.server)} is already down ${when} (${since})`,
    );
  if (a.kind === 'memcached_up' && since === undefined)
    throw new ScenarioError(
      `${where}.memcached_up: server ${JSON.stringify(a.server)} is already up ${when}, so this would do nothing`,
    );
  if (a.kind === 'memcached_down') down.set(a.server, `memcached_down ${when}`);
  else down.delete(a.server);
}

export function describeMemcachedFault(a: MemcachedFaultAction): string {
  switch (a.kind) {
    case 'memcached_down':
      return `memcached ${a.server} crashes (data lost, connections refused)`;
    case 'memcached_up':
      return `memcached ${a.server} restarts (empty)`;
    case 'memcached_slow':
      return a.delayMs > 0
        ? `memcached ${a.server} answers ${a.delayMs}ms late`
        : `memcached ${a.server} answers on time again`;
    case 'memcached_wrong_values':
      return a.mode === 'off'
        ? `memcached ${a.server} answers correctly again`
        : `memcached ${a.server} answers wrong values (${a.mode.replace('_', ' ')})`;
    case 'memcached_dns':
      return `DNS ${a.name} -> [${a.servers.join(', ')}]`;
  }
}

export function applyMemcachedFault(a: MemcachedFaultAction, services: SimServices): void {
  const cluster = services.memcached;
  if (cluster === undefined) throw new Error(`${a.kind}: the scenario has no memcached servers`);
  switch (a.kind) {
    case 'memcached_down':
      cluster.server(a.server).crash();
      return;
    case 'memcached_up':
      cluster.server(a.server).restart();
      return;
    case 'memcached_slow':
      cluster.server(a.server).setSlow(a.delayMs);
      return;
    case 'memcached_wrong_values':
      cluster.server(a.server).setWrongValues(a.mode);
      return;
    case 'memcached_dns':
      cluster.dns.set(a.name, a.servers);
      return;
  }
}

/** What a schedule leaves broken on the memcached servers, for the plan's warning. */
export function memcachedLeftActive(faults: readonly { action: FaultAction }[]): string[] {
  const broken = new Map<string, string>();
  for (const { action: a } of faults) {
    if (a.kind === 'memcached_down') broken.set(`${a.server}/down`, describeMemcachedFault(a));
    if (a.kind === 'memcached_up') broken.delete(`${a.server}/down`);
    if (a.kind === 'memcached_slow') {
      if (a.delayMs > 0) broken.set(`${a.server}/slow`, describeMemcachedFault(a));
      else broken.delete(`${a.server}/slow`);
    }
    if (a.kind === 'memcached_wrong_values') {
      if (a.mode !== 'off') broken.set(`${a.server}/wrong`, describeMemcachedFault(a));
      else broken.delete(`${a.server}/wrong`);
    }
  }
  return [...broken.values()];
}

export function isMemcachedFault(a: FaultAction): a is MemcachedFaultAction {
  return (MEMCACHED_ACTIONS as readonly string[]).includes(a.kind);
}
