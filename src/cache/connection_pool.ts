import type { Clock } from '../runtime/clock.js';
import { MemcachedConnection, type Dialer } from './connection.js';
import { splitServer } from './discovery.js';

/**
 * Connections per server: an operation takes an idle one or dials a new one, and gives it
 * back when done; at most `maxIdle` idle connections are kept per server
 * (`max_idle_connections`), broken ones are never reused.
 */
export class ConnectionPool {
  private readonly idle = new Map<string, MemcachedConnection[]>();
  private closed = false;

  constructor(
    private readonly dialer: Dialer,
    private readonly opts: {
      maxIdle: number;
      timeoutMs: number;
      maxBodyBytes: number;
      clock: Clock;
    },
  ) {}

  async acquire(server: string): Promise<MemcachedConnection> {
    const list = this.idle.get(server);
    while (list !== undefined && list.length > 0) {
      const conn = list.pop()!;
      if (!conn.broken) return conn;
    }
    const { host, port } = splitServer(server);
    return MemcachedConnection.open(this.dialer, { address: server, host, port }, this.opts);
  }

  release(conn: MemcachedConnection): void {
    if (conn.broken) return;
    const list = this.idle.get(conn.server) ?? [];
    if (this.closed || list.length >= this.opts.maxIdle) {
      conn.destroy();
      return;
    }
    list.push(conn);
    this.idle.set(conn.server, list);
  }

  idleCount(server: string): number {
    return this.idle.get(server)?.filter((c) => !c.broken).length ?? 0;
  }

  /** Closes the idle connections of servers no longer in `servers`. */
  retain(servers: readonly string[]): void {
    const keep = new Set(servers);
    for (const [server, list] of this.idle) {
      if (keep.has(server)) continue;
      for (const conn of list) conn.destroy();
      this.idle.delete(server);
    }
  }

  close(): void {
    this.closed = true;
    this.retain([]);
  }
}
