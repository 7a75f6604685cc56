import {
  FakeMemcached,
  MemcachedClient,
  memcachedProtocol,
  type Dialer,
} from '../../src/cache/index.js';
import type {
  Cache,
  CacheSpec,
  Clock,
  Logger,
  MetricsRegistry,
  Random,
  RandomStream,
} from '../../src/runtime/index.js';
import { SimDnsRecords, SimResolver } from './sim_dns.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';

/** The port every simulated memcached listens on (memcached's default). */
export const MEMCACHED_PORT = 11211;

/** A scenario's `memcached` section: the servers, the DNS names over them, re-resolution. */
export interface SimMemcachedConfig {
  /** Server names; each is also its network address, so partitions may name it. */
  servers: string[];
  /** A records: `name -> servers` (what `dns+name:11211` resolves to). */
  dns: Record<string, string[]>;
  /** How often clients resolve their addresses again (default: the product's 30 s). */
  dnsUpdateIntervalMs?: number;
}

/** What a server answers wrongly: nothing, bytes that are not memcached, or another key's item. */
export type WrongValuesMode = 'off' | 'garbage' | 'other_key';

/** The server's side of one connection, as the server needs to know it. */
export interface ServerConnection {
  /** The server went away: the connection resets (the client hears an RST). */
  reset(): void;
}

/**
 * One simulated memcached process. Requests are served by `FakeMemcached` (`src/cache`), the
 * same binary-protocol server the client's unit tests use, with TTLs in virtual time. Faults:
 * `crash` (data lost, connections reset, new ones refused until `restart`), `slowMs` (every
 * answer is held that long), wrong values (`garbage` replaces an answer with random bytes from
 * the `memcached` stream; `other_key` answers a hit with another stored key's name and value),
 * `wipe` (cache loss: every item gone, the server stays up).
 */
export class SimMemcachedServer {
  readonly port = MEMCACHED_PORT;
  private readonly store: FakeMemcached;
  private running = true;
  private readonly connections = new Set<ServerConnection>();
  private slow = 0;
  private wrong: WrongValuesMode = 'off';
  /** Requests served and answers mangled, for tests and the report. */
  readonly stats = { requests: 0, garbled: 0, crashes: 0, wipes: 0 };

  constructor(
    readonly name: string,
    private readonly deps: { clock: Clock; random: RandomStream },
  ) {
    this.store = new FakeMemcached(`${name}:${MEMCACHED_PORT}`, deps.clock);
  }

  get up(): boolean {
    return this.running;
  }

  get slowMs(): number {
    return this.slow;
  }

  get wrongValues(): WrongValuesMode {
    return this.wrong;
  }

  /** Keys stored now (expired ones included until read). */
  get itemCount(): number {
    return this.store.items.size;
  }

  /** The value stored under `key`, if live (for tests: what the server really holds). */
  peek(key: string): Uint8Array | undefined {
    return this.store.get(key);
  }

  crash(): void {
    if (!this.running) return;
    this.running = false;
    this.stats.crashes++;
    this.store.items.clear();
    const open = [...this.connections];
    this.connections.clear();
    for (const conn of open) conn.reset();
  }

  restart(): void {
    this.running = true;
  }

  wipe(): void {
    this.stats.wipes++;
    this.store.items.clear();
  }

  setSlow(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`memcached ${this.name}: slow delay must be >= 0`);
    this.slow = ms;
  }

  setWrongValues(mode: WrongValuesMode): void {
    this.wrong = mode;
    this.store.fault = mode === 'other_key' ? 'other-key' : 'none';
  }

  /** A connection arrives: accepted (and tracked) while the server runs. */
  accept(conn: ServerConnection): boolean {
    if (!this.running) return false;
    this.connections.add(conn);
    return true;
  }

  /** True while `conn` is a live connection of this server (not reset by a crash). */
  owns(conn: ServerConnection): boolean {
    return this.connections.has(conn);
  }

  close(conn: ServerConnection): void {
    this.connections.delete(conn);
  }

  /** Serves whole request frames; returns the answer bytes (possibly mangled) to send back. */
  serve(frames: Uint8Array): Uint8Array {
    this.stats.requests++;
    const answer = memcachedProtocol.concat(this.store.handle(frames));
    if (this.wrong !== 'garbage' || answer.length === 0) return answer;
    this.stats.garbled++;
    const junk = new Uint8Array(answer.length);
    for (let i = 0; i < junk.length; i++) junk[i] = Math.floor(this.deps.random.next() * 256);
    // Never a valid response magic first: garbage must not be able to pass for an answer.
    if (junk[0] === memcachedProtocol.RESPONSE_MAGIC) junk[0] = 0;
    return junk;
  }
}

/** The cluster's memcached servers and the DNS records naming them. */
export class SimMemcachedCluster {
  readonly dns: SimDnsRecords;
  private readonly servers = new Map<string, SimMemcachedServer>();

  constructor(
    readonly config: SimMemcachedConfig,
    deps: { clock: Clock; random: Random },
  ) {
    const random = deps.random.stream('memcached');
    for (const name of config.servers) {
      this.servers.set(name, new SimMemcachedServer(name, { clock: deps.clock, random }));
    }
    this.dns = new SimDnsRecords((host) => this.servers.has(host), MEMCACHED_PORT);
    for (const [name, hosts] of Object.entries(config.dns)) this.dns.set(name, hosts);
  }

  names(): string[] {
    return [...this.servers.keys()];
  }

  server(name: string): SimMemcachedServer {
    const s = this.servers.get(name);
    if (s === undefined) {
      throw new Error(
        `no simulated memcached ${JSON.stringify(name)} (servers: ${this.names().join(', ')})`,
      );
    }
    return s;
  }

  /** The server listening at `host:port`, if any. */
  serverAt(host: string, port: number): SimMemcachedServer | undefined {
    return port === MEMCACHED_PORT ? this.servers.get(host) : undefined;
  }

  /** The cache-loss fault on every server. */
  wipe(): void {
    for (const s of this.servers.values()) s.wipe();
  }
}

export interface SimMemcachedClientDeps {
  kernel: SimKernel;
  owner: Incarnation;
  clock: Clock;
  logger: Logger;
  metrics: MetricsRegistry;
  cluster: SimMemcachedCluster;
  dialer: Dialer;
}

/**
 * The product's own memcached client (jump hash, discovery, batching, timeouts, failure =
 * miss) for a `memcached` cache spec, over the simulated network and DNS.
 */
export function openSimMemcachedClient(
  name: string,
  spec: Extract<CacheSpec, { backend: 'memcached' }>,
  deps: SimMemcachedClientDeps,
): Cache {
  return new MemcachedClient(
    {
      name,
      addresses: spec.addresses,
      timeoutMs: spec.timeoutMs,
      maxIdleConnections: spec.maxIdleConnections,
      maxAsyncConcurrency: spec.maxAsyncConcurrency,
      maxAsyncBufferSize: spec.maxAsyncBufferSize,
      maxGetMultiConcurrency: spec.maxGetMultiConcurrency,
      maxGetMultiBatchSize: spec.maxGetMultiBatchSize,
      maxItemSize: spec.maxItemSize,
      ...(deps.cluster.config.dnsUpdateIntervalMs === undefined
        ? {}
        : { dnsUpdateIntervalMs: deps.cluster.config.dnsUpdateIntervalMs }),
    },
    {
      clock: deps.clock,
      logger: deps.logger.child({ module: 'memcached', cache: name }),
      resolver: new SimResolver(deps.cluster.dns, { kernel: deps.kernel, owner: deps.owner }),
      dialer: deps.dialer,
      registry: deps.metrics,
    },
  );
}
