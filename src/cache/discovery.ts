import type { Clock, Timer } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';

/**
 * DNS as the cache client needs it. The real process implements it with `node:dns`; the
 * simulator with its own records, so it can make servers appear, vanish or fail to resolve.
 */
export interface Resolver {
  /** The A and AAAA addresses of `host` (IP literals resolve to themselves). */
  lookupHost(host: string): Promise<string[]>;
  /** The SRV records of `name`. */
  lookupSrv(name: string): Promise<{ target: string; port: number }[]>;
}

/** One configured address: how to turn it into `host:port` server addresses. */
export type AddressSpec =
  | { kind: 'static'; raw: string; host: string; port: number }
  | { kind: 'dns'; raw: string; host: string; port: number }
  | { kind: 'dnssrv'; raw: string; name: string }
  | { kind: 'dnssrvnoa'; raw: string; name: string };

/**
 * Parses one configured address: `dns+host:port`, `dnssrv+name`, `dnssrvnoa+name` or a
 * static `host:port`. Throws an error naming the value when it cannot be used.
 */
export function parseAddress(raw: string): AddressSpec {
  const value = raw.trim();
  const fail = (why: string): never => {
    throw new Error(`memcached address ${JSON.stringify(raw)}: ${why}`);
  };
  const plus = value.indexOf('+');
  const prefix = plus > 0 && /^[a-z]+$/.test(value.slice(0, plus)) ? value.slice(0, plus) : '';
  const rest = prefix === '' ? value : value.slice(plus + 1);
  if (rest === '') fail('empty address');
  switch (prefix) {
    case '': {
      const { host, port } = splitHostPort(rest, fail);
      return { kind: 'static', raw, host, port };
    }
    case 'dns': {
      const { host, port } = splitHostPort(rest, fail);
      return { kind: 'dns', raw, host, port };
    }
    case 'dnssrv':
    case 'dnssrvnoa':
      if (/[\s/:]/.test(rest)) fail('an SRV name has no port, path or spaces');
      return { kind: prefix, raw, name: rest };
    default:
      return fail(`unknown prefix "${prefix}+" (use dns+, dnssrv+ or dnssrvnoa+)`);
  }
}

function splitHostPort(s: string, fail: (why: string) => never): { host: string; port: number } {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(s) ?? /^([^:[\]\s/]+):(\d+)$/.exec(s);
  if (m === null) return fail('expected host:port (a port is required)');
  const port = Number(m[2]);
  if (!(port > 0 && port < 65536)) fail(`port ${m[2]} out of range`);
  return { host: m[1]!, port };
}

/** `host:port`, with IPv6 literals bracketed. */
export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Splits a server address made by joinHostPort. */
export function splitServer(server: string): { host: string; port: number } {
  const i = server.lastIndexOf(':');
  const host = server.slice(0, i);
  return {
    host: host.startsWith('[') ? host.slice(1, -1) : host,
    port: Number(server.slice(i + 1)),
  };
}

export interface DiscoveryDeps {
  resolver: Resolver;
  clock: Clock;
  logger: Logger;
  /** Counts each lookup and each failed one (`cortex_dns_lookups_total`, `..._failures_total`). */
  onLookup?: (failed: boolean) => void;
}

/**
 * Keeps the server list of a set of configured addresses, re-resolving every `intervalMs`
 * on the clock. An address whose lookup fails keeps its previous servers (as Thanos' DNS
 * provider does), so a DNS hiccup does not empty the cache.
 */
export class AddressDiscovery {
  private readonly specs: AddressSpec[];
  private readonly last = new Map<string, string[]>();
  private timer: Timer | undefined;
  private current: string[] = [];

  constructor(
    addresses: readonly string[],
    private readonly deps: DiscoveryDeps,
    private readonly onChange: (servers: string[]) => void,
  ) {
    this.specs = addresses.filter((a) => a.trim() !== '').map(parseAddress);
  }

  /** True when every address is static: nothing to look up, ever. */
  get isStatic(): boolean {
    return this.specs.every((s) => s.kind === 'static');
  }

  /** Resolves once now and then every `intervalMs` until stop(). */
  start(intervalMs: number): Promise<void> {
    if (this.isStatic) {
      // Known at once: the first operations must not wait for (or miss on) a lookup.
      this.current = [...new Set(this.specs.map((s) => this.staticServer(s)))];
      this.onChange(this.current);
      return Promise.resolve();
    }
    const first = this.resolve();
    if (!this.isStatic) this.timer = this.deps.clock.every(intervalMs, () => this.resolve());
    return first;
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  get servers(): readonly string[] {
    return this.current;
  }

  async resolve(): Promise<void> {
    const all = await Promise.all(this.specs.map((spec) => this.resolveOne(spec)));
    const servers = [...new Set(all.flat())];
    const changed =
      servers.length !== this.current.length || servers.some((s, i) => s !== this.current[i]);
    this.current = servers;
    if (changed) this.onChange(servers);
  }

  private async resolveOne(spec: AddressSpec): Promise<string[]> {
    if (spec.kind === 'static') return [this.staticServer(spec)];
    try {
      const found = await this.lookup(spec);
      this.deps.onLookup?.(false);
      this.last.set(spec.raw, found);
      return found;
    } catch (err) {
      this.deps.onLookup?.(true);
      const previous = this.last.get(spec.raw) ?? [];
      this.deps.logger.warn('memcached address lookup failed; keeping the previous servers', {
        address: spec.raw,
        previous: previous.length,
        err: err instanceof Error ? err.message : String(err),
      });
      return previous;
    }
  }

  private staticServer(spec: AddressSpec): string {
    if (spec.kind !== 'static') throw new Error(`not a static address: ${spec.raw}`);
    return joinHostPort(spec.host, spec.port);
  }

  private async lookup(spec: Exclude<AddressSpec, { kind: 'static' }>): Promise<string[]> {
    const { resolver } = this.deps;
    switch (spec.kind) {
      case 'dns':
        return (await resolver.lookupHost(spec.host)).map((ip) => joinHostPort(ip, spec.port));
      case 'dnssrvnoa':
        return (await resolver.lookupSrv(spec.name)).map((r) => joinHostPort(r.target, r.port));
      case 'dnssrv': {
        const records = await resolver.lookupSrv(spec.name);
        const per = await Promise.all(
          records.map(async (r) =>
            (await resolver.lookupHost(r.target)).map((ip) => joinHostPort(ip, r.port)),
          ),
        );
        return per.flat();
      }
    }
  }
}
