// Which tenants' databases the ingester closes and deletes, and the loop that does it
// (Cortex's closeAndDeleteIdleUserTSDBs / shouldCloseTSDB). Every `interval` each open
// tenant is checked, in this order:
//
// 1. a tenant whose deletion mark a shipping run found is closed and deleted at once,
//    unshipped blocks and in-memory series included: its data is meant to go;
// 2. otherwise, only with `close_idle_tsdb_timeout` > 0: a tenant without pushes for longer
//    than the timeout, with an empty head and every block shipped and findable by queriers,
//    is closed and deleted (nothing is lost: the bucket has it all).
//
// Local data that is not in the bucket is never deleted for any other reason. Closing waits
// for shipping runs (no shipper reads a directory going away), then for the tenant's pushes
// and head compactions, and checks again before it closes. The check results are counted
// under Cortex's `cortex_ingester_idle_tsdb_checks_total{result}`.
import type { Counter } from 'prom-client';
import {
  registeredCounter,
  type Clock,
  type Logger,
  type MetricsRegistry,
  type Timer,
} from '../runtime/index.js';
import type { TSDB } from '../tsdb/index.js';
import type { TenantRemoval } from './tenant_removal.js';

/** Cortex's DefaultCloseIdleTSDBInterval. */
export const DEFAULT_CLOSE_IDLE_TSDB_INTERVAL_MS = 5 * 60_000;

/** Cortex's tsdbCloseCheckResult values (the metric's `result` label). */
export type TsdbCloseCheckResult =
  | 'idle'
  | 'shipping_disabled'
  | 'not_idle'
  | 'not_compacted'
  | 'not_shipped'
  | 'check_failed'
  | 'close_failed'
  | 'not_active'
  | 'data_removal_failed'
  | 'tenant_marked_for_deletion'
  | 'idle_closed';

/** Every label value but `idle` (reported as `idle_closed` once closed), as Cortex pre-creates them. */
const REPORTED_RESULTS: readonly TsdbCloseCheckResult[] = [
  'shipping_disabled',
  'not_idle',
  'not_compacted',
  'not_shipped',
  'check_failed',
  'close_failed',
  'not_active',
  'data_removal_failed',
  'tenant_marked_for_deletion',
  'idle_closed',
];

function shouldClose(r: TsdbCloseCheckResult): boolean {
  return r === 'idle' || r === 'tenant_marked_for_deletion';
}

export interface IdleTsdbCloserConfig {
  /** `tsdb.close_idle_tsdb_timeout`, ms; 0 closes only tenants marked for deletion. */
  readonly idleTimeoutMs: number;
  /** How often the tenants are checked (default 5m, Cortex's). */
  readonly intervalMs?: number;
}

/** What the closer needs from the tenants' databases (TenantDBs). */
export interface ClosableTenants {
  tenantIds(): string[];
  get(tenant: string): TSDB | undefined;
  lastUpdate(tenant: string): number | undefined;
  closeAndRemove(tenant: string, stillWanted: () => boolean): Promise<TenantRemoval>;
}

/** What the closer needs from shipping (BlockShipping). */
export interface ClosableShipping {
  isMarkedForDeletion(tenant: string): boolean;
  isShipped(tenant: string, ulid: string): boolean;
  isDiscoverable(tenant: string, ulid: string): boolean;
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

export interface IdleTsdbCloserDeps {
  readonly dbs: ClosableTenants;
  readonly shipping: ClosableShipping;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /** Called once a tenant's database is gone (the ingester forgets its metadata). */
  readonly onRemoved?: (tenant: string) => void;
}

export class IdleTsdbCloser {
  private readonly checks: Counter<'result'>;
  private timer: Timer | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly config: IdleTsdbCloserConfig,
    private readonly deps: IdleTsdbCloserDeps,
  ) {
    const interval = config.intervalMs ?? DEFAULT_CLOSE_IDLE_TSDB_INTERVAL_MS;
    if (!(interval > 0))
      throw new RangeError(`close idle TSDB interval must be > 0, got ${interval}ms`);
    this.checks = registeredCounter(
      deps.metrics,
      'cortex_ingester_idle_tsdb_checks_total',
      'The total number of various results for idle TSDB checks.',
      ['result'],
    );
    for (const r of REPORTED_RESULTS) this.checks.inc({ result: r }, 0);
  }

  /** Starts the loop (every interval; a pass still running skips the tick). */
  start(signal?: AbortSignal): void {
    if (this.timer !== undefined || signal?.aborted === true) return;
    const interval = this.config.intervalMs ?? DEFAULT_CLOSE_IDLE_TSDB_INTERVAL_MS;
    this.timer = this.deps.clock.every(interval, async () => {
      if (this.running !== undefined) return;
      this.running = this.closeIdle(signal).then(
        () => {
          this.running = undefined;
        },
        (err: unknown) => {
          this.running = undefined;
          this.deps.logger.error('closing idle TSDBs failed', { err: String(err) });
        },
      );
      await this.running;
    });
    signal?.addEventListener('abort', () => void this.stop(), { once: true });
  }

  /** Stops the loop and waits for a pass under way. */
  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every open tenant; returns each tenant's result (for tests). */
  async closeIdle(signal?: AbortSignal): Promise<Map<string, TsdbCloseCheckResult>> {
    const results = new Map<string, TsdbCloseCheckResult>();
    for (const tenant of this.deps.dbs.tenantIds()) {
      if (signal?.aborted === true) break;
      const result = await this.closeIfIdle(tenant);
      this.checks.inc({ result });
      results.set(tenant, result);
    }
    return results;
  }

  /** Cortex's shouldCloseTSDB, plus Strata's rule that closed data must be findable in the bucket. */
  check(tenant: string): TsdbCloseCheckResult {
    const { dbs, shipping, clock } = this.deps;
    if (shipping.isMarkedForDeletion(tenant)) return 'tenant_marked_for_deletion';
    const db = dbs.get(tenant);
    const lastUpdate = dbs.lastUpdate(tenant);
    if (db === undefined || lastUpdate === undefined) return 'not_active';
    const timeout = this.config.idleTimeoutMs;
    if (!(timeout > 0) || !(clock.now() - lastUpdate > timeout)) return 'not_idle';
    if (db.head.seriesCount() > 0) return 'not_compacted';
    for (const b of db.blocks()) {
      const ulid = b.meta.ulid;
      if (!shipping.isShipped(tenant, ulid) || !shipping.isDiscoverable(tenant, ulid)) {
        return 'not_shipped';
      }
    }
    return 'idle';
  }

  private async closeIfIdle(tenant: string): Promise<TsdbCloseCheckResult> {
    const first = this.check(tenant);
    if (!shouldClose(first)) return first;
    let last = first;
    const removal = await this.deps.shipping.exclusive(() =>
      this.deps.dbs.closeAndRemove(tenant, () => {
        last = this.check(tenant);
        return shouldClose(last);
      }),
    );
    if (removal === 'declined') return last;
    if (removal === 'not_active' || removal === 'close_failed') return removal;
    // Closed and forgotten, even when its directory could not be deleted.
    this.deps.onRemoved?.(tenant);
    if (removal === 'data_removal_failed') return removal;
    if (last === 'tenant_marked_for_deletion') {
      this.deps.logger.info('deleted local TSDB, user marked for deletion', { user: tenant });
      return 'tenant_marked_for_deletion';
    }
    this.deps.logger.info('deleted local TSDB, due to being idle', { user: tenant });
    return 'idle_closed';
  }
}
