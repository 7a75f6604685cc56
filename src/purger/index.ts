/**
 * The purger: tenant deletion for blocks storage (Cortex's TenantDeletionAPI). It writes the
 * tenant deletion mark and reports whether the tenant's blocks are gone; the compactor's
 * cleaner does the deleting, ingesters stop shipping and drop the tenant's TSDB. It must
 * never delete anything itself, and never reach the clock or the bucket except through the
 * deps it is given.
 */
export {
  TenantDeletionApi,
  registerPurgerRoutes,
  type DeleteTenantStatus,
  type TenantDeletionApiConfig,
  type TenantDeletionApiDeps,
} from './api.js';
