import { DEFAULT_DNS_UPDATE_INTERVAL_MS } from '../../src/cache/index.js';
import type { RandomStream } from '../../src/runtime/index.js';
import {
  ScenarioError,
  formatDuration,
  readDuration,
  readNumber,
  readObject,
  readString,
  readStringList,
  type Fields,
} from '../fields/index.js';
import type { SimMemcachedConfig } from '../runtime/index.js';
import { arrivals, pick } from './poisson.js';
import type { FaultAction, MemcachedRandomFaults, RandomFaultProfile } from './scenario_types.js';

/** The `faults` keys of random memcached faults. */
export const MEMCACHED_RANDOM_KEYS = [
  'memcached_down',
  'memcached_slow',
  'memcached_wrong_values',
  'memcached_flap',
] as const;

/**
 * Reads the random memcached faults of the `faults` section (`per_minute` rates, like the
 * other random faults; each brings its own end). Undefined when there are none.
 */
export function parseMemcachedRandomFaults(
  o: Fields,
  config: SimMemcachedConfig | undefined,
): MemcachedRandomFaults | undefined {
  const present = MEMCACHED_RANDOM_KEYS.filter((k) => o[k] !== undefined);
  if (present.length === 0) return undefined;
  if (config === undefined)
    throw new ScenarioError(
      `faults.${present[0]}: no memcached servers (declare a \`memcached\` section)`,
    );
  const rate = (f: Fields, w: string): number =>
    readNumber(f.per_minute, `${w}.per_minute`, 0, { min: 0 });
  const servers = (v: unknown, w: string): string[] => {
    const list = v === undefined ? [...config.servers] : readStringList(v, w);
    list.forEach((s, i) => {
      if (!config.servers.includes(s))
        throw new ScenarioError(
          `${w}[${i}]: unknown memcached server ${JSON.stringify(s)} (servers: ${config.servers.join(', ')})`,
        );
    });
    return list;
  };
  const out: MemcachedRandomFaults = {};
  if (o.memcached_down !== undefined) {
    const w = 'faults.memcached_down';
    const f = readObject(o.memcached_down, w, ['per_minute', 'servers', 'down_for']);
    out.down = {
      perMinute: rate(f, w),
      servers: servers(f.servers, `${w}.servers`),
      downForMs: readDuration(f.down_for, `${w}.down_for`, 5_000),
    };
  }
  if (o.memcached_slow !== undefined) {
    const w = 'faults.memcached_slow';
    const f = readObject(o.memcached_slow, w, ['per_minute', 'servers', 'delay', 'lasts']);
    out.slow = {
      perMinute: rate(f, w),
      servers: servers(f.servers, `${w}.servers`),
      delayMs: readDuration(f.delay, `${w}.delay`, 1_000),
      lastsMs: readDuration(f.lasts, `${w}.lasts`, 5_000),
    };
  }
  if (o.memcached_wrong_values !== undefined) {
    const w = 'faults.memcached_wrong_values';
    const f = readObject(o.memcached_wrong_values, w, ['per_minute', 'servers', 'mode', 'lasts']);
    const mode = readString(f.mode, `${w}.mode`, 'garbage');
    if (mode !== 'garbage' && mode !== 'other_key')
      throw new ScenarioError(
        `${w}.mode: unknown mode ${JSON.stringify(mode)} (modes: garbage, other_key)`,
      );
    out.wrongValues = {
      perMinute: rate(f, w),
      servers: servers(f.servers, `${w}.servers`),
      mode,
      lastsMs: readDuration(f.lasts, `${w}.lasts`, 5_000),
    };
  }
  if (o.memcached_flap !== undefined) {
    const w = 'faults.memcached_flap';
    const f = readObject(o.memcached_flap, w, ['per_minute', 'name', 'lasts']);
    const names = Object.keys(config.dns);
    const name = readString(f.name, `${w}.name`, names[0]);
    if (config.dns[name] === undefined)
      throw new ScenarioError(
        `${w}.name: unknown DNS name ${JSON.stringify(name)} (names: ${names.join(', ')})`,
      );
    out.flap = {
      perMinute: rate(f, w),
      name,
      members: [...config.dns[name]],
      lastsMs: readDuration(f.lasts, `${w}.lasts`, 5_000),
    };
  }
  return out;
}

/** Servers random `memcached_down` faults may take down (their state is never certain). */
export function randomlyDownedServers(profile: RandomFaultProfile): Set<string> {
  const down = profile.memcached?.down;
  return new Set(down !== undefined && down.perMinute > 0 ? down.servers : []);
}

/**
 * Generates the random memcached faults of a seed, each kind from its own fork of the
 * `faults` stream; a flap's end restores the name's declared members.
 */
export function generateMemcachedFaults(
  profile: RandomFaultProfile,
  faults: RandomStream,
): { atMs: number; action: FaultAction; kind: string }[] {
  const m = profile.memcached;
  if (m === undefined) return [];
  const { fromMs, untilMs } = profile;
  const out: { atMs: number; action: FaultAction; kind: string }[] = [];
  if (m.down !== undefined && m.down.servers.length > 0) {
    const s = faults.fork('memcached_down');
    for (const t of arrivals(s, m.down.perMinute, fromMs, untilMs)) {
      const server = pick(s, m.down.servers);
      out.push({ atMs: t, action: { kind: 'memcached_down', server }, kind: 'memcached_down' });
      const up = { kind: 'memcached_up' as const, server };
      out.push({ atMs: t + m.down.downForMs, action: up, kind: 'memcached_down' });
    }
  }
  if (m.slow !== undefined && m.slow.servers.length > 0) {
    const s = faults.fork('memcached_slow');
    const { delayMs, lastsMs } = m.slow;
    for (const t of arrivals(s, m.slow.perMinute, fromMs, untilMs)) {
      const server = pick(s, m.slow.servers);
      const kind = 'memcached_slow' as const;
      out.push({ atMs: t, action: { kind, server, delayMs }, kind });
      out.push({ atMs: t + lastsMs, action: { kind, server, delayMs: 0 }, kind });
    }
  }
  if (m.wrongValues !== undefined && m.wrongValues.servers.length > 0) {
    const s = faults.fork('memcached_wrong_values');
    const { mode, lastsMs } = m.wrongValues;
    for (const t of arrivals(s, m.wrongValues.perMinute, fromMs, untilMs)) {
      const server = pick(s, m.wrongValues.servers);
      const kind = 'memcached_wrong_values' as const;
      out.push({ atMs: t, action: { kind, server, mode }, kind });
      out.push({ atMs: t + lastsMs, action: { kind, server, mode: 'off' }, kind });
    }
  }
  if (m.flap !== undefined) {
    const s = faults.fork('memcached_flap');
    const { name, lastsMs, members: declared } = m.flap;
    for (const t of arrivals(s, m.flap.perMinute, fromMs, untilMs)) {
      if (declared.length === 0) break;
      const gone = pick(s, declared);
      const kind = 'memcached_dns' as const;
      const left = declared.filter((x) => x !== gone);
      out.push({ atMs: t, action: { kind, name, servers: left }, kind: 'memcached_flap' });
      out.push({
        atMs: t + lastsMs,
        action: { kind, name, servers: declared },
        kind: 'memcached_flap',
      });
    }
  }
  return out;
}

/** The random memcached faults, for the plan's summary line. */
export function formatMemcachedRandomFaults(m: MemcachedRandomFaults | undefined): string[] {
  if (m === undefined) return [];
  const parts: string[] = [];
  if (m.down !== undefined)
    parts.push(
      `memcached down ${m.down.perMinute}/min of [${m.down.servers.join(',')}] for ${m.down.downForMs}ms`,
    );
  if (m.slow !== undefined)
    parts.push(
      `memcached slow +${m.slow.delayMs}ms ${m.slow.perMinute}/min for ${m.slow.lastsMs}ms`,
    );
  if (m.wrongValues !== undefined)
    parts.push(
      `memcached ${m.wrongValues.mode} ${m.wrongValues.perMinute}/min for ${m.wrongValues.lastsMs}ms`,
    );
  if (m.flap !== undefined)
    parts.push(`DNS ${m.flap.name} flaps ${m.flap.perMinute}/min for ${m.flap.lastsMs}ms`);
  return parts;
}

/** The `memcached` section, for the plan (nothing without one). */
export function formatMemcachedSection(m: SimMemcachedConfig | undefined): string[] {
  if (m === undefined) return [];
  const dns = Object.entries(m.dns).map(([name, hosts]) => `${name} -> [${hosts.join(',')}]`);
  const every = formatDuration(m.dnsUpdateIntervalMs ?? DEFAULT_DNS_UPDATE_INTERVAL_MS);
  return [
    `memcached: servers [${m.servers.join(',')}]; DNS ${dns.join(', ')}; re-resolved every ${every}`,
  ];
}
