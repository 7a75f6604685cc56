// The ingester's block shipping (Cortex's shipBlocksLoop/shipBlocks): one Shipper per
// tenant, a loop running them every `ship_interval` (±1% jitter) at most `ship_concurrency`
// tenants at a time, on-demand runs for `/ingester/flush` and the shutdown flush, and the
// per-tenant "is this block shipped" answer retention needs before it may delete a block.
// Runs never overlap (a tenant's Shipper must not sync twice at once): ticks and on-demand
// requests queue one behind the other, as Cortex's single loop goroutine serves them.
import { tenantDeletionMarkExists } from '../bucket/index.js';
import type {
  Bucket,
  Clock,
  FileSystem,
  Logger,
  MetricsRegistry,
  Random,
  Timer,
} from '../runtime/index.js';
import { TENANT_EXTERNAL_LABEL } from '../tsdb/index.js';
import { forEachBounded } from './bounded.js';
import { BlockDiscovery, type BlockDiscoveryConfig } from './block_discovery.js';
import { Shipper } from './shipper.js';
import { shipperMetrics, type ShipperMetrics } from './shipper_metrics.js';

/** Cortex's ship_interval default: 1m. */
export const DEFAULT_SHIP_INTERVAL = 60_000;
/** Cortex's ship_concurrency default. */
export const DEFAULT_SHIP_CONCURRENCY = 10;
/** How often a tenant's deletion mark is looked for at most (Cortex DeletionMarkCheckInterval). */
export const DELETION_MARK_CHECK_INTERVAL = 3_600_000;
/** The external label naming the ingester that shipped a block (Cortex IngesterIDExternalLabel). */
export const INGESTER_ID_EXTERNAL_LABEL = '__ingester_id__';

/** What the tenants' databases need from shipping: the shipped state of their blocks. */
export interface BlockShipState {
  /** A tenant's database opened in `dir`: load its record of shipped blocks. */
  openTenant(tenant: string, dir: string): Promise<void>;
  /** Whether the block is recorded as being in the bucket. */
  isShipped(tenant: string, ulid: string): boolean;
  /** Whether queriers have had time to find the shipped block in the bucket (block_discovery.ts). */
  isDiscoverable(tenant: string, ulid: string): boolean;
  /** The tenant's database was closed and deleted: forget what was known of it. */
  forgetTenant?(tenant: string): void;
}

export interface BlockShippingConfig {
  /** `tsdb.ship_interval`, ms; must be > 0 (0 means: build no BlockShipping at all). */
  readonly interval: number;
  /** `tsdb.ship_concurrency`: tenants shipping at once. */
  readonly concurrency: number;
  /** Written as `__ingester_id__` into every block shipped. */
  readonly ingesterId: string;
  /** Ship compaction level > 1 blocks too (Cortex default true). */
  readonly uploadCompacted?: boolean;
  /** How queriers find blocks; a block is kept locally until they can (block_discovery.ts). */
  readonly discovery: BlockDiscoveryConfig;
}

export interface BlockShippingDeps {
  readonly bucket: Bucket;
  readonly fs: FileSystem;
  readonly clock: Clock;
  /** The loop's jitter comes from the `ingester-shipper` stream. */
  readonly random: Random;
  readonly logger: Logger;
  readonly metrics: MetricsRegistry;
  /** Tenants with an open database now. */
  readonly tenants: () => readonly string[];
  /** The instance's ring state (undefined before the lifecycler exists). */
  readonly ringState: () => string | undefined;
}

interface DeletionCheck {
  found: boolean;
  lastCheck: number | undefined;
}

export class BlockShipping implements BlockShipState {
  private readonly shippers = new Map<string, Shipper>();
  private readonly deletion = new Map<string, DeletionCheck>();
  private readonly metrics: ShipperMetrics;
  private readonly logger: Logger;
  private readonly discovery: BlockDiscovery;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: Timer | undefined;
  private closed = false;

  constructor(
    private readonly config: BlockShippingConfig,
    private readonly deps: BlockShippingDeps,
  ) {
    for (const [name, v] of [
      ['ship interval', config.interval],
      ['ship concurrency', config.concurrency],
    ] as const)
      if (!Number.isSafeInteger(v) || v <= 0)
        throw new RangeError(`${name} must be a positive integer, got ${v}`);
    this.metrics = shipperMetrics(deps.metrics);
    this.logger = deps.logger.child({ module: 'ingester-shipper' });
    this.discovery = new BlockDiscovery(config.discovery, {
      bucket: deps.bucket,
      clock: deps.clock,
      logger: this.logger,
    });
  }

  async openTenant(tenant: string, dir: string): Promise<void> {
    const shipper = new Shipper(
      {
        tenant,
        dir,
        labels: {
          [TENANT_EXTERNAL_LABEL]: tenant,
          [INGESTER_ID_EXTERNAL_LABEL]: this.config.ingesterId,
        },
        uploadCompacted: this.config.uploadCompacted ?? true,
      },
      { fs: this.deps.fs, bucket: this.deps.bucket, logger: this.logger, metrics: this.metrics },
    );
    await shipper.load();
    this.shippers.set(tenant, shipper);
  }

  isShipped(tenant: string, ulid: string): boolean {
    return this.shippers.get(tenant)?.isShipped(ulid) ?? false;
  }

  isDiscoverable(tenant: string, ulid: string): boolean {
    return this.discovery.isDiscoverable(tenant, ulid);
  }

  /**
   * Whether a shipping run found the tenant's deletion mark (Cortex's deletionMarkFound):
   * its blocks are no longer shipped and its database is to be closed and deleted.
   */
  isMarkedForDeletion(tenant: string): boolean {
    return this.deletion.get(tenant)?.found === true;
  }

  /**
   * Forgets a tenant whose database was closed and deleted: its shipper, the deletion mark
   * seen and the discovery state. A later database of the tenant starts afresh, and its
   * first shipping run looks for the mark again (Cortex's new userTSDB does the same).
   */
  forgetTenant(tenant: string): void {
    this.shippers.delete(tenant);
    this.deletion.delete(tenant);
    this.discovery.forget(tenant);
  }

  /**
   * Runs `fn` between shipping runs, so no shipper is reading a tenant's directory meanwhile
   * (Cortex does not close a TSDB while it ships). Rejects as `fn` does.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Starts the loop: every ship interval ±1%, drawn once (dskit DurationWithJitter). */
  start(signal?: AbortSignal): void {
    if (this.timer !== undefined || this.closed || signal?.aborted === true) return;
    const period = jittered(this.config.interval, this.deps.random.stream('ingester-shipper'));
    this.timer = this.deps.clock.every(period, () => this.ship());
    signal?.addEventListener('abort', () => this.stop(), { once: true });
  }

  /** Stops the loop; a run in progress finishes (`close` waits for it). */
  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /**
   * Ships the given tenants (all with a database when omitted), after any run in progress.
   * Never rejects: failures are counted and logged per tenant.
   */
  ship(tenants?: readonly string[]): Promise<void> {
    const run = this.queue.then(() => this.shipNow(tenants));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stops the loop and waits for queued runs; later requests are ignored. */
  async close(): Promise<void> {
    this.stop();
    await this.queue;
    this.closed = true;
  }

  private async shipNow(tenants: readonly string[] | undefined): Promise<void> {
    if (this.closed) return;
    // A JOINING instance may still be receiving another's data; Cortex ships nothing then.
    const state = this.deps.ringState();
    if (state === 'PENDING' || state === 'JOINING') {
      this.logger.info(
        'TSDB blocks shipping has been skipped because of the current ingester state',
        { state },
      );
      return;
    }
    const allowed = tenants === undefined ? undefined : new Set(tenants);
    const selected = this.deps
      .tenants()
      .filter((t) => (allowed === undefined || allowed.has(t)) && this.shippers.has(t));
    await forEachBounded(selected, this.config.concurrency, (t) => this.shipTenant(t));
  }

  private async shipTenant(tenant: string): Promise<void> {
    const shipper = this.shippers.get(tenant);
    if (shipper === undefined || (await this.deletionMarked(tenant))) return;
    try {
      const r = await shipper.sync();
      if (r.failed > 0 || r.corrupted > 0)
        this.logger.warn('shipper failed to synchronize TSDB blocks with the storage', {
          tenant,
          uploaded: r.uploaded,
          failed: r.failed,
          corrupted: r.corrupted,
        });
      else
        this.logger.debug('shipper successfully synchronized TSDB blocks with storage', {
          tenant,
          uploaded: r.uploaded,
        });
      await this.discovery.refresh(tenant, shipper.shippedBlocks());
    } catch (err) {
      // Listing the tenant's directory failed: nothing was shipped, the next run retries.
      this.metrics.dirSyncs.inc();
      this.metrics.dirSyncFailures.inc();
      this.logger.warn('shipper failed to synchronize TSDB blocks with the storage', {
        tenant,
        err: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /**
   * Whether the tenant is being deleted (its tenant deletion mark, or the legacy copy, is in
   * the bucket): such a tenant's blocks are no longer shipped. The bucket is asked at most
   * once per DELETION_MARK_CHECK_INTERVAL per tenant, and a found mark is remembered; a
   * failed check ships anyway (the shipper would then likely fail too).
   */
  private async deletionMarked(tenant: string): Promise<boolean> {
    let check = this.deletion.get(tenant);
    if (check === undefined) {
      check = { found: false, lastCheck: undefined };
      this.deletion.set(tenant, check);
    }
    if (check.found) return true;
    const now = this.deps.clock.now();
    if (check.lastCheck !== undefined && now - check.lastCheck <= DELETION_MARK_CHECK_INTERVAL)
      return false;
    // Set before asking: a failing bucket is not asked again at every run either.
    check.lastCheck = now;
    try {
      check.found = await tenantDeletionMarkExists(this.deps.bucket, tenant);
    } catch (err) {
      this.logger.warn('failed to check for tenant deletion mark before shipping blocks', {
        tenant,
        err: err instanceof Error ? err.message : String(err),
      });
      return false;
    }
    if (check.found)
      this.logger.info('tenant deletion mark exists, not shipping blocks', { tenant });
    return check.found;
  }
}

/** The ingester's settings for shipping; undefined ones take Cortex's defaults. */
export interface IngesterShippingOptions {
  /** `tsdb.ship_interval`, ms; 0 disables shipping. */
  readonly interval: number | undefined;
  readonly concurrency: number | undefined;
  readonly ingesterId: string;
  readonly uploadCompacted: boolean | undefined;
  readonly discovery: BlockDiscoveryConfig;
}

/**
 * The ingester's BlockShipping, or undefined when shipping is off: no bucket, or a ship
 * interval of 0 (Cortex builds no shipper then either).
 */
export function newIngesterShipping(
  opts: IngesterShippingOptions,
  deps: Omit<BlockShippingDeps, 'bucket'> & { readonly bucket: Bucket | undefined },
): BlockShipping | undefined {
  const interval = opts.interval ?? DEFAULT_SHIP_INTERVAL;
  if (deps.bucket === undefined || interval <= 0) return undefined;
  return new BlockShipping(
    {
      interval,
      concurrency: opts.concurrency ?? DEFAULT_SHIP_CONCURRENCY,
      ingesterId: opts.ingesterId,
      discovery: opts.discovery,
      ...(opts.uploadCompacted === undefined ? {} : { uploadCompacted: opts.uploadCompacted }),
    },
    { ...deps, bucket: deps.bucket },
  );
}

/**
 * Says once, at startup, that this ingester keeps every block: with nothing shipping them,
 * retention never deletes one, and the data directory only grows.
 */
export function warnShippingDisabled(logger: Logger, hasBucket: boolean): void {
  logger.warn(
    'shipping disabled: blocks are kept locally forever and never deleted by retention_period; the data directory grows without bound until shipping is enabled',
    { reason: hasBucket ? 'tsdb.ship_interval is 0' : 'no blocks bucket configured' },
  );
}

/** `ms` ± up to 1% (dskit DurationWithJitter(ms, 0.01)), at least 1 ms. */
export function jittered(ms: number, random: { int(maxExclusive: number): number }): number {
  const variance = Math.floor(ms * 0.01);
  if (variance <= 0) return ms;
  return Math.max(1, ms + random.int(2 * variance) - variance);
}
