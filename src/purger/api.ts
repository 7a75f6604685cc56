/**
 * Tenant deletion through the blocks bucket (Cortex's TenantDeletionAPI):
 * `POST /purger/delete_tenant` writes `__markers__/<tenant>/tenant-deletion-mark.json` with
 * the deletion time now and answers 200 with an empty body; `GET
 * /purger/delete_tenant_status` answers `{"tenant_id":…,"blocks_deleted":…}`, true once no
 * block directory is left under the tenant's prefix. The deletion itself is the compactor's
 * (its cleaner deletes the blocks, then the markers and the mark); ingesters stop shipping
 * and drop the tenant's TSDB once they see the mark.
 */
import { writeTenantDeletionMark } from '../bucket/index.js';
import type { Bucket, Clock, Logger } from '../runtime/index.js';
import { InternalError, tenantOf, writeBody, type HttpServer } from '../server/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';

/** The API has no settings of its own (the bucket comes from the `tsdb` block). */
export type TenantDeletionApiConfig = Readonly<Record<string, never>>;

export interface TenantDeletionApiDeps {
  /** The blocks bucket (the `purger` component's client). */
  readonly bucket: Bucket;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Cortex's DeleteTenantStatusResponse. */
export interface DeleteTenantStatus {
  readonly tenant_id: string;
  readonly blocks_deleted: boolean;
}

export class TenantDeletionApi {
  private readonly logger: Logger;

  constructor(
    _config: TenantDeletionApiConfig,
    private readonly deps: TenantDeletionApiDeps,
  ) {
    this.logger = deps.logger.child({ module: 'purger' });
  }

  /**
   * Marks the tenant for deletion now. As in Cortex the mark is written afresh: asking again
   * restarts the clock (a `finished_time` already recorded is dropped, so the compactor's
   * tenant cleanup delay starts over once it has checked the tenant again).
   */
  async deleteTenant(tenant: string): Promise<void> {
    try {
      await writeTenantDeletionMark(this.deps.bucket, tenant, {
        deletion_time: Math.floor(this.deps.clock.now() / 1000),
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.logger.error('failed to write tenant deletion mark', { user: tenant, err: message });
      // Cortex's text: the bucket error wrapped (it names the object).
      throw new InternalError(`upload tenant deletion mark: ${message}`, { cause: err });
    }
    this.logger.info('tenant deletion mark in blocks storage created', { user: tenant });
  }

  /**
   * Whether the tenant's blocks are gone: Cortex lists the tenant's prefix (one level) and
   * answers false at the first entry named like a block ID, whether or not the tenant was
   * ever marked; partial blocks count as blocks.
   */
  async deleteTenantStatus(tenant: string): Promise<DeleteTenantStatus> {
    const prefix = `${tenant}/`;
    let entries: string[];
    try {
      entries = await this.deps.bucket.list(prefix);
    } catch (err) {
      throw new InternalError(err instanceof Error ? err.message : String(err), { cause: err });
    }
    const hasBlock = entries.some((e) =>
      isCanonicalUlid(e.slice(prefix.length).replace(/\/$/, '')),
    );
    return { tenant_id: tenant, blocks_deleted: !hasBlock };
  }
}

const MODULE = 'purger';

/** Registers Cortex's two purger endpoints (both act for the request's tenant). */
export function registerPurgerRoutes(http: HttpServer, api: TenantDeletionApi): void {
  http.registerRoute({
    methods: ['POST'],
    path: '/purger/delete_tenant',
    module: MODULE,
    description: "Request deletion of all the tenant's data in blocks storage (experimental)",
    tenant: true,
    handler: async (_req, res) => {
      await api.deleteTenant(tenantOf(res));
      // Cortex answers with the status alone: no body, no content type.
      res.status(200).end();
    },
  });
  http.registerRoute({
    methods: ['GET'],
    path: '/purger/delete_tenant_status',
    module: MODULE,
    description: "Status of the tenant's deletion: whether its blocks are gone (experimental)",
    tenant: true,
    handler: async (_req, res) => {
      const status = await api.deleteTenantStatus(tenantOf(res));
      writeBody(res, 200, 'application/json', JSON.stringify(status));
    },
  });
}
