import type { Cache } from '../runtime/cache.js';
import { throwIfAborted, type Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/logger.js';
import { newMetricsRegistry, type MetricsRegistry } from '../runtime/metrics.js';
import { MemcachedError, withTimeout, type Dialer, type FailureReason } from './connection.js';
import { ConnectionPool } from './connection_pool.js';
import { AddressDiscovery, type Resolver } from './discovery.js';
import { AsyncQueue, Gate } from './limits.js';
import { MemcachedMetrics, type Operation } from './memcached_metrics.js';
import {
  encodeDelete,
  encodeSet,
  expirationFor,
  legalKey,
  Opcode,
  Status,
} from './memcached_protocol.js';
import { fetchBatch } from './get_multi.js';
import { ServerSelector } from './server_selector.js';

export interface MemcachedClientConfig {
  /** Labels the metrics and logs (`index-cache`, `frontend-cache`, ...). */
  name: string;
  /** Static `host:port`, `dns+host:port`, `dnssrv+name` or `dnssrvnoa+name`. */
  addresses: readonly string[];
  /** Bound of each operation (dial included); beyond it the operation is a miss. */
  timeoutMs: number;
  maxIdleConnections: number;
  maxAsyncConcurrency: number;
  maxAsyncBufferSize: number;
  /** Concurrent get connections; 0 = unlimited. */
  maxGetMultiConcurrency: number;
  /** Keys per get request; 0 = unlimited. */
  maxGetMultiBatchSize: number;
  /** Values larger than this are not stored; 0 = no maximum. */
  maxItemSize: number;
  /** How often DNS addresses are resolved again (Thanos/Cortex: 30 s). */
  dnsUpdateIntervalMs?: number;
}

export interface MemcachedClientDeps {
  clock: Clock;
  logger: Logger;
  resolver: Resolver;
  dialer: Dialer;
  registry?: MetricsRegistry;
}

export const DEFAULT_DNS_UPDATE_INTERVAL_MS = 30_000;
/** How often one kind of failure may be logged per client; the counters see every one. */
const LOG_EVERY_MS = 10_000;
const encoder = new TextEncoder();

/**
 * The memcached Cache: keys spread over servers by jump hash, gets batched and bounded,
 * sets asynchronous and shed when their buffer is full. A server that is down, slow or
 * answers garbage costs a miss and a counted failure, never an error or a wrong value.
 */
export class MemcachedClient implements Cache {
  readonly name: string;
  private readonly metrics: MemcachedMetrics;
  private readonly discovery: AddressDiscovery;
  private readonly pool: ConnectionPool;
  private readonly gate: Gate;
  private readonly sets: AsyncQueue;
  private readonly ready: Promise<void>;
  private readonly lastLogged = new Map<string, number>();
  private selector = new ServerSelector([]);
  private resolved = false;

  constructor(
    private readonly config: MemcachedClientConfig,
    private readonly deps: MemcachedClientDeps,
  ) {
    this.name = config.name;
    for (const [key, v] of Object.entries(config)) {
      if (typeof v === 'number' && !(Number.isFinite(v) && v >= 0)) {
        throw new RangeError(`memcached cache ${config.name}: ${key} must be >= 0, got ${v}`);
      }
    }
    if (!(config.timeoutMs > 0)) {
      throw new RangeError(`memcached cache ${config.name}: timeout must be positive`);
    }
    this.metrics = new MemcachedMetrics(deps.registry ?? newMetricsRegistry(), this.name);
    const maxBodyBytes = (config.maxItemSize > 0 ? config.maxItemSize : 1 << 30) + 1024;
    this.pool = new ConnectionPool(deps.dialer, {
      maxIdle: config.maxIdleConnections,
      timeoutMs: config.timeoutMs,
      maxBodyBytes,
      clock: deps.clock,
    });
    this.gate = new Gate(config.maxGetMultiConcurrency);
    this.sets = new AsyncQueue(config.maxAsyncConcurrency, config.maxAsyncBufferSize);
    const labels = { name: this.name };
    this.discovery = new AddressDiscovery(
      config.addresses,
      {
        resolver: deps.resolver,
        clock: deps.clock,
        logger: deps.logger,
        onLookup: (failed) => {
          this.metrics.dnsLookups.inc(labels);
          if (failed) this.metrics.dnsFailures.inc(labels);
        },
      },
      (servers) => {
        this.selector = new ServerSelector(servers);
        this.pool.retain(servers);
        this.metrics.servers.set(labels, servers.length);
        this.deps.logger.info('memcached servers updated', { name: this.name, servers });
      },
    );
    this.ready = this.discovery
      .start(config.dnsUpdateIntervalMs ?? DEFAULT_DNS_UPDATE_INTERVAL_MS)
      .then(() => {
        this.resolved = true;
      });
  }

  /** The servers keys are spread over, naturally sorted. */
  get servers(): readonly string[] {
    return this.selector.servers;
  }

  /** Resolves when every set accepted so far has been sent (or failed). */
  flush(): Promise<void> {
    return this.sets.idle();
  }

  async getMulti(keys: readonly string[], signal?: AbortSignal): Promise<Map<string, Uint8Array>> {
    throwIfAborted(signal);
    const hits = new Map<string, Uint8Array>();
    if (keys.length === 0) return hits;
    this.metrics.requests.inc({ name: this.name }, keys.length);
    await this.awaitReady();
    const byServer = new Map<string, string[]>();
    for (const key of new Set(keys)) {
      if (!legalKey(key)) continue;
      const server = this.selector.pick(key);
      if (server === undefined) continue;
      const list = byServer.get(server) ?? [];
      list.push(key);
      byServer.set(server, list);
    }
    const batches: Array<[string, string[]]> = [];
    const size = this.config.maxGetMultiBatchSize;
    for (const [server, serverKeys] of byServer) {
      if (size <= 0) batches.push([server, serverKeys]);
      else {
        for (let i = 0; i < serverKeys.length; i += size) {
          batches.push([server, serverKeys.slice(i, i + size)]);
        }
      }
    }
    const results = await Promise.all(
      batches.map(([server, batch]) =>
        this.gate.run(() => this.getBatch(server, batch), signal).catch(() => undefined),
      ),
    );
    for (const found of results) for (const [k, v] of found ?? []) hits.set(k, v);
    this.metrics.hits.inc({ name: this.name }, hits.size);
    return hits;
  }

  setMulti(entries: ReadonlyMap<string, Uint8Array>, ttlMs: number): void {
    for (const [key, value] of entries) {
      if (this.config.maxItemSize > 0 && value.length > this.config.maxItemSize) {
        this.metrics.skipped.inc({ name: this.name, operation: 'set', reason: 'max-item-size' });
        continue;
      }
      const copy = value.slice();
      const accepted = this.sets.enqueue(() => this.set(key, copy, ttlMs));
      if (!accepted) {
        this.metrics.skipped.inc({
          name: this.name,
          operation: 'set',
          reason: 'async-buffer-full',
        });
        this.logLimited('set', 'async-buffer-full', 'memcached async buffer full; set dropped', {
          key,
        });
      }
    }
  }

  async delete(key: string): Promise<void> {
    if (!legalKey(key)) return;
    await this.awaitReady();
    const server = this.selector.pick(key);
    if (server === undefined) return;
    await this.operate('delete', server, 0, (conn) =>
      conn.roundTrip(
        encodeDelete(encoder.encode(key), 1),
        (frame) => {
          if (frame.opcode !== Opcode.Delete || frame.opaque !== 1) throw unexpected(frame.opcode);
          if (frame.status !== Status.NoError && frame.status !== Status.KeyNotFound) {
            throw new MemcachedError(
              'server-error',
              `delete: status 0x${frame.status.toString(16)}`,
            );
          }
          return true;
        },
        this.config.timeoutMs,
        this.deps.clock,
      ),
    );
  }

  async close(): Promise<void> {
    this.discovery.stop();
    await this.sets.close();
    this.pool.close();
  }

  private async set(key: string, value: Uint8Array, ttlMs: number): Promise<void> {
    if (!legalKey(key)) {
      this.fail('set', new MemcachedError('malformed-key', `illegal key ${JSON.stringify(key)}`));
      return;
    }
    await this.awaitReady();
    const server = this.selector.pick(key);
    if (server === undefined) return;
    const request = encodeSet(encoder.encode(key), value, {
      expiration: expirationFor(ttlMs, this.deps.clock.now()),
      opaque: 1,
    });
    await this.operate('set', server, value.length, (conn) =>
      conn.roundTrip(
        request,
        (frame) => {
          if (frame.opcode !== Opcode.Set || frame.opaque !== 1) throw unexpected(frame.opcode);
          if (frame.status !== Status.NoError) {
            throw new MemcachedError('server-error', `set: status 0x${frame.status.toString(16)}`);
          }
          return true;
        },
        this.config.timeoutMs,
        this.deps.clock,
      ),
    );
  }

  private async getBatch(server: string, keys: string[]): Promise<Map<string, Uint8Array>> {
    let bytes = 0;
    const found = await this.operate('getmulti', server, undefined, async (conn) => {
      const hits = await fetchBatch(conn, keys, this.config.timeoutMs, this.deps.clock);
      for (const v of hits.values()) bytes += v.length;
      return hits;
    });
    if (found !== undefined) {
      this.metrics.dataSize.observe({ name: this.name, operation: 'getmulti' }, bytes);
    }
    return found ?? new Map();
  }

  /**
   * One counted operation on a pooled connection of `server`: a failure is counted and
   * logged (rate-limited) and yields undefined; the connection goes back only if intact.
   */
  private async operate<T>(
    operation: Operation,
    server: string,
    dataBytes: number | undefined,
    fn: (conn: Awaited<ReturnType<ConnectionPool['acquire']>>) => Promise<T>,
  ): Promise<T | undefined> {
    const labels = { name: this.name, operation };
    const start = this.deps.clock.now();
    this.metrics.operations.inc(labels);
    try {
      const conn = await this.pool.acquire(server);
      try {
        const result = await fn(conn);
        this.metrics.duration.observe(labels, (this.deps.clock.now() - start) / 1000);
        if (dataBytes !== undefined) this.metrics.dataSize.observe(labels, dataBytes);
        return result;
      } finally {
        this.pool.release(conn);
      }
    } catch (err) {
      this.fail(operation, err, server);
      return undefined;
    }
  }

  private fail(operation: Operation, err: unknown, server?: string): void {
    const reason: FailureReason = err instanceof MemcachedError ? err.reason : 'other';
    this.metrics.failures.inc({ name: this.name, operation, reason });
    this.logLimited(operation, reason, 'memcached operation failed', {
      server,
      err: err instanceof Error ? err.message : String(err),
    });
  }

  private logLimited(operation: string, reason: string, msg: string, fields: object): void {
    const key = `${operation}/${reason}`;
    const now = this.deps.clock.now();
    const last = this.lastLogged.get(key);
    if (last !== undefined && now - last < LOG_EVERY_MS) return;
    this.lastLogged.set(key, now);
    this.deps.logger.warn(msg, { name: this.name, operation, reason, ...fields });
  }

  /** Waits for the first address resolution, but never longer than one operation timeout. */
  private async awaitReady(): Promise<void> {
    if (this.resolved) return;
    await withTimeout(
      this.deps.clock,
      this.ready,
      this.config.timeoutMs,
      () => new Error('dns'),
    ).catch(() => undefined);
  }
}

function unexpected(opcode: number): MemcachedError {
  return new MemcachedError('other', `unexpected response opcode 0x${opcode.toString(16)}`);
}
