// When queriers can find a shipped block. Cortex deletes a shipped block locally once it is
// past retention, whatever happened to it since the upload; a block shipped late (a flush
// of old data, a backlog after an outage) would then vanish from queries until the bucket
// index lists it and queriers and store-gateways reload — up to a cleanup interval and
// several sync intervals later, during which its samples are in neither place that answers.
// Strata keeps such a block until it is discoverable: listed in the tenant's bucket index
// (or, without the index, shipped) for `consistency_delay + 3 × sync_interval` — the window
// after which Cortex's querier consistency check itself expects store-gateways to hold it —
// plus `update_on_error_interval` and the minute of the querier's index check: a querier
// that found no index (or failed to read it) just before the block was listed looks again
// only that much later.
import { BucketIndexNotFoundError, readBucketIndex } from '../bucket/index.js';
import type { Bucket, Clock, Logger } from '../runtime/index.js';

export interface BlockDiscoveryConfig {
  /** `tsdb.bucket_store.bucket_index.enabled`: queriers find blocks through the index. */
  readonly bucketIndexEnabled: boolean;
  /** `tsdb.bucket_store.sync_interval`, ms. */
  readonly syncIntervalMs: number;
  /** `tsdb.bucket_store.consistency_delay`, ms. */
  readonly consistencyDelayMs: number;
  /** `tsdb.bucket_store.bucket_index.update_on_error_interval`, ms. */
  readonly updateOnErrorIntervalMs: number;
}

/** How often a querier checks whether a tenant's bucket index changed (Cortex: 1m, fixed). */
export const QUERIER_INDEX_CHECK_MS = 60_000;

/** The reference's defaults: the bucket index on, a 5m sync interval, no consistency delay. */
export const DEFAULT_BLOCK_DISCOVERY: BlockDiscoveryConfig = {
  bucketIndexEnabled: true,
  syncIntervalMs: 5 * 60_000,
  consistencyDelayMs: 0,
  updateOnErrorIntervalMs: 60_000,
};

export interface BlockDiscoveryDeps {
  readonly bucket: Bucket;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Blocks shipped and not yet long enough where queriers look, per tenant. */
export class BlockDiscovery {
  /** tenant → block → when it was first seen where queriers look (ms). */
  private readonly seen = new Map<string, Map<string, number>>();
  /** Tenants warned about blocks missing from their index (said once per block). */
  private readonly warned = new Map<string, Set<string>>();

  constructor(
    private readonly config: BlockDiscoveryConfig,
    private readonly deps: BlockDiscoveryDeps,
  ) {}

  /** How long a block must have been findable before it is taken as found. */
  get graceMs(): number {
    return (
      this.config.consistencyDelayMs +
      3 * Math.max(0, this.config.syncIntervalMs) +
      Math.max(0, this.config.updateOnErrorIntervalMs) +
      QUERIER_INDEX_CHECK_MS
    );
  }

  /** Whether queriers have had time to find the shipped block (see the file comment). */
  isDiscoverable(tenant: string, ulid: string): boolean {
    const since = this.seen.get(tenant)?.get(ulid);
    return since !== undefined && this.deps.clock.now() - since >= this.graceMs;
  }

  /**
   * Notes where queriers can find the tenant's `shipped` blocks now: with the bucket index,
   * the ones it lists (read once per call, only while some shipped block is not yet
   * noted); without it, all of them. Failures leave the blocks unnoted (kept) and are logged.
   */
  async refresh(tenant: string, shipped: ReadonlySet<string>): Promise<void> {
    let seen = this.seen.get(tenant);
    if (seen === undefined) {
      seen = new Map();
      this.seen.set(tenant, seen);
    }
    for (const ulid of [...seen.keys()]) if (!shipped.has(ulid)) seen.delete(ulid);
    const pending = [...shipped].filter((u) => !seen.has(u));
    if (pending.length === 0) return;
    const now = this.deps.clock.now();
    if (!this.config.bucketIndexEnabled) {
      for (const u of pending) seen.set(u, now);
      return;
    }
    let listed: Set<string>;
    try {
      listed = new Set(
        (await readBucketIndex(this.deps.bucket, tenant)).blocks.map((b) => b.block_id),
      );
    } catch (err) {
      if (!(err instanceof BucketIndexNotFoundError))
        this.deps.logger.warn(
          'failed to read the bucket index to see which shipped blocks queriers can find',
          {
            tenant,
            err: err instanceof Error ? err.message : String(err),
          },
        );
      listed = new Set();
    }
    let warned = this.warned.get(tenant);
    for (const u of pending) {
      if (listed.has(u)) {
        seen.set(u, now);
        continue;
      }
      warned ??= new Set();
      this.warned.set(tenant, warned);
      if (warned.has(u)) continue;
      warned.add(u);
      this.deps.logger.debug(
        'shipped block is not in the bucket index yet: kept locally until queriers can find it (the compactor writes the index)',
        { tenant, block: u },
      );
    }
  }

  /** Forgets a tenant (its database closed). */
  forget(tenant: string): void {
    this.seen.delete(tenant);
    this.warned.delete(tenant);
  }
}
