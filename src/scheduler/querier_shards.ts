import { createSeededRandom } from '../runtime/index.js';

/**
 * The queriers of a tenant's shuffle shard (`-frontend.max-queriers-per-tenant`): undefined
 * means every querier. Every frontend and scheduler computes the same shard for the same
 * tenant and the same set of connected queriers, because the draw is seeded by the tenant ID
 * alone and runs over the queriers' IDs in sorted order (Cortex's shuffleQueriersForUser).
 * Cortex seeds Go's math/rand with an md5 of the tenant; the draw here uses Strata's own
 * seeded generator, so the shards agree among Strata's frontends, not with Cortex's.
 */
export function tenantQueriers(
  tenant: string,
  maxQueriers: number,
  sortedQueriers: readonly string[],
): ReadonlySet<string> | undefined {
  if (maxQueriers <= 0 || sortedQueriers.length <= maxQueriers) return undefined;
  const rnd = createSeededRandom(`tenant-queriers/${tenant}`).stream('shard');
  const pool = [...sortedQueriers];
  const chosen = new Set<string>();
  while (chosen.size < maxQueriers) {
    const i = rnd.int(pool.length);
    chosen.add(pool[i] as string);
    pool[i] = pool[pool.length - 1] as string;
    pool.pop();
  }
  return chosen;
}
