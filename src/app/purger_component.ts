/**
 * The purger as a module: the tenant deletion endpoints (`/purger/delete_tenant`,
 * `/purger/delete_tenant_status`) over this process's `purger` bucket client. It runs
 * nothing in the background; the compactor's cleaner carries the deletion out.
 */
import { TenantDeletionApi, registerPurgerRoutes } from '../purger/index.js';
import { BasicService, type Service } from '../services/index.js';
import { openComponentBucket, withClosedBucket } from './bucket.js';
import type { StrataContext } from './context.js';

export function purgerService(ctx: StrataContext): Service {
  const { env } = ctx;
  const http = ctx.need(ctx.http, 'server', 'purger');
  const bucket = openComponentBucket(ctx, 'purger');
  const api = new TenantDeletionApi({}, { bucket, clock: env.clock, logger: env.logger });
  registerPurgerRoutes(http, api);
  return withClosedBucket(new BasicService('purger'), () => bucket.close());
}
