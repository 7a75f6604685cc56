/**
 * Which tenants a blocks bucket holds (Cortex's users scanner): every top-level directory
 * except the global markers directory, plus tenants that only have a global deletion mark
 * left. A tenant with a deletion mark (global, or the legacy copy under its own prefix) is
 * "deleting"; the others are active.
 */
import type { Bucket } from '../runtime/index.js';
import { GLOBAL_MARKERS_DIR, USER_INDEX_FILE } from './layout.js';
import { tenantDeletionMarkExists } from './markers.js';

export interface TenantScan {
  /** Sorted. */
  active: string[];
  /** Tenants with a deletion mark, whose data the cleaner removes. Sorted. */
  deleting: string[];
}

/** Names at the bucket root that are never tenants (Cortex rejects them as tenant IDs). */
const NOT_TENANTS: ReadonlySet<string> = new Set([GLOBAL_MARKERS_DIR, USER_INDEX_FILE]);

/** Tenant IDs present in the bucket, each once, sorted. */
export async function listTenants(bucket: Bucket): Promise<string[]> {
  const tenants = new Set<string>();
  for (const entry of await bucket.list('')) {
    // Objects at the root (user-index.json.gz, stray files) are not tenants.
    if (!entry.endsWith('/')) continue;
    const tenant = entry.slice(0, -1);
    if (!NOT_TENANTS.has(tenant)) tenants.add(tenant);
  }
  const markers = `${GLOBAL_MARKERS_DIR}/`;
  for (const entry of await bucket.list(markers)) {
    if (!entry.endsWith('/')) continue;
    const tenant = entry.slice(markers.length, -1);
    if (tenant !== '' && !NOT_TENANTS.has(tenant)) tenants.add(tenant);
  }
  return [...tenants].sort();
}

/** Every tenant of the bucket, split into active and deleting. */
export async function scanTenants(bucket: Bucket): Promise<TenantScan> {
  const scan: TenantScan = { active: [], deleting: [] };
  for (const tenant of await listTenants(bucket)) {
    if (await tenantDeletionMarkExists(bucket, tenant)) scan.deleting.push(tenant);
    else scan.active.push(tenant);
  }
  return scan;
}
