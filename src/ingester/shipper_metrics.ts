// The shipper's metrics under Cortex's names (the sums of the per-tenant Thanos shipper
// counters Cortex exports as `cortex_ingester_shipper_*`), and the oldest unshipped block
// gauge operators alert on: a block that stays unshipped is data that exists only on this
// ingester's disk.
import type { Counter } from 'prom-client';
import { Gauge } from 'prom-client';
import { registeredCounter, type MetricsRegistry } from '../runtime/index.js';
import { ulidTime } from '../tsdb/index.js';

export interface ShipperMetrics {
  /** Syncs of a tenant's block directory, failed or not. */
  readonly dirSyncs: Counter;
  /** Syncs that did not ship everything they should have. */
  readonly dirSyncFailures: Counter;
  readonly uploads: Counter;
  readonly uploadFailures: Counter;
  /** Block directories whose meta.json could not be read (the block cannot be shipped). */
  readonly corruptedBlocks: Counter;
}

/** What the oldest-unshipped gauge looks at: every tenant's loaded blocks and their state. */
export interface UnshippedBlocksView {
  /** The tenants with a database. */
  tenantIds(): readonly string[];
  /** The ULIDs of a tenant's loaded blocks. */
  blockIds(tenant: string): readonly string[];
  /** Whether the block is recorded as shipped (always false with shipping off). */
  isShipped(tenant: string, ulid: string): boolean;
}

/**
 * Registers the shipper counters (reusing them when the registry already has them, as a
 * restarted ingester on the same registry does).
 */
export function shipperMetrics(registry: MetricsRegistry): ShipperMetrics {
  const counter = (name: string, help: string): Counter => registeredCounter(registry, name, help);
  return {
    dirSyncs: counter('cortex_ingester_shipper_dir_syncs_total', 'Total number of TSDB dir syncs'),
    dirSyncFailures: counter(
      'cortex_ingester_shipper_dir_sync_failures_total',
      'Total number of failed TSDB dir syncs',
    ),
    uploads: counter(
      'cortex_ingester_shipper_uploads_total',
      'Total number of uploaded TSDB blocks',
    ),
    uploadFailures: counter(
      'cortex_ingester_shipper_upload_failures_total',
      'Total number of TSDB block upload failures',
    ),
    corruptedBlocks: counter(
      'cortex_ingester_shipper_corrupted_blocks_total',
      'Total number of TSDB blocks corrupted',
    ),
  };
}

/**
 * `cortex_ingester_oldest_unshipped_block_timestamp_seconds`: the creation time (the ULID's
 * timestamp, whole seconds) of the oldest loaded block not shipped yet, 0 when every block
 * is shipped. Registered once per registry; the newest view wins (a restarted ingester).
 */
export function registerOldestUnshippedGauge(
  registry: MetricsRegistry,
  view: UnshippedBlocksView,
): void {
  const current = { view };
  const name = 'cortex_ingester_oldest_unshipped_block_timestamp_seconds';
  const existing = registry.getSingleMetric(name);
  if (existing !== undefined) registry.removeSingleMetric(name);
  new Gauge({
    name,
    help: 'Unix timestamp of the oldest TSDB block not shipped to the storage yet. 0 if ingester has no blocks or all blocks have been shipped.',
    registers: [registry],
    collect() {
      this.set(oldestUnshippedSeconds(current.view));
    },
  });
}

/**
 * Cortex takes the minimum over tenants of each tenant's oldest unshipped ULID time; a
 * tenant with nothing unshipped does not pull the minimum to 0 here (in Cortex it can, by
 * map iteration order, which makes the gauge flap).
 */
export function oldestUnshippedSeconds(view: UnshippedBlocksView): number {
  let oldest = 0;
  for (const tenant of view.tenantIds())
    for (const ulid of view.blockIds(tenant)) {
      if (view.isShipped(tenant, ulid)) continue;
      const t = ulidTime(ulid);
      if (oldest === 0 || t < oldest) oldest = t;
    }
  return Math.floor(oldest / 1000);
}
