/**
 * The store-gateway's operator pages: `/store-gateway/ring` (the ring status page with
 * "forget", when sharding is on), `/store-gateway/tenants` (the tenants in the bucket, with
 * what this gateway holds of each) and `/store-gateway/tenant/{tenant}/blocks` (see
 * blocks_page.ts). The app registers them; they answer 503 until the gateway exists.
 */
import { parseForm } from '../api/index.js';
import { listTenants } from '../bucket/index.js';
import { ringPageRequest, serveRingPage, type ReadRing, type RingInstance } from '../ring/index.js';
import type { Logger } from '../runtime/index.js';
import {
  BadDataError,
  UnavailableError,
  escapeHtml,
  htmlPage,
  tenantIdProblem,
  type HttpServer,
} from '../server/index.js';
import { iso, loadBlockRows, renderBlocksPage } from './blocks_page.js';
import { STORE_GATEWAY_RING_KEY, type HealthOptions } from './sharding.js';
import { isHeartbeatHealthy } from '../ring/index.js';
import type { StoreGateway } from './store_gateway.js';

/** The gateway of this process, once built (pages are registered before modules start). */
export type StoreGatewaySource = () => StoreGateway | undefined;

const MODULE = 'store-gateway';
/** meta.json reads in flight while rendering a blocks page. */
const PAGE_READ_CONCURRENCY = 16;

export function registerStoreGatewayPages(
  http: HttpServer,
  gateway: StoreGatewaySource,
  logger: Logger,
): void {
  registerStoreGatewayRingPage(http, gateway, logger);
  registerStoreGatewayTenantPages(http, gateway);
}

/** `/store-gateway/ring`: Cortex's ring page; a message when there is no ring. */
export function registerStoreGatewayRingPage(
  http: HttpServer,
  gateway: StoreGatewaySource,
  logger: Logger,
): void {
  http.registerRoute({
    methods: ['GET', 'POST'],
    path: '/store-gateway/ring',
    module: MODULE,
    description: 'Store-gateway ring status; forget unhealthy instances',
    tenant: false,
    handler: async (req, res) => {
      const g = serving(gateway);
      const ring = g.ring;
      const kv = g.ringKV;
      const message = !g.shardingEnabled
        ? 'Store gateway has no ring because sharding is disabled.'
        : g.state !== 'Running' || ring === undefined || kv === undefined
          ? 'Store gateway is not running yet.'
          : undefined;
      if (message !== undefined) {
        res
          .status(200)
          .type('html')
          .send(
            htmlPage(
              'Store gateway ring',
              `<h1>Store gateway ring</h1>\n<p>${escapeHtml(message)}</p>`,
            ),
          );
        return;
      }
      const out = await serveRingPage(
        healthAware(ring as ReadRing, g.ringHeartbeatTimeoutMs, () => g.nowMs()),
        { kv: kv as NonNullable<typeof kv>, key: STORE_GATEWAY_RING_KEY, nowMs: g.nowMs(), logger },
        await ringPageRequest(req.method, req.query, () => parseForm(req)),
      );
      res.status(out.status).set(out.headers).send(out.body);
    },
  });
}

/** `/store-gateway/tenants` and `/store-gateway/tenant/{tenant}/blocks`. */
export function registerStoreGatewayTenantPages(
  http: HttpServer,
  gateway: StoreGatewaySource,
): void {
  http.registerRoute({
    methods: ['GET'],
    path: '/store-gateway/tenants',
    module: MODULE,
    description: 'Tenants in the blocks bucket, with links to their blocks',
    tenant: false,
    handler: async (_req, res) => {
      const g = serving(gateway);
      const tenants = await listTenants(g.bucket);
      res
        .status(200)
        .type('html')
        .send(renderTenantsPage(tenants, g, g.nowMs()));
    },
  });
  http.registerRoute({
    methods: ['GET'],
    path: '/store-gateway/tenant/:tenant/blocks',
    module: MODULE,
    description: "A tenant's blocks in the bucket: table and timeline",
    tenant: false,
    handler: async (req, res) => {
      const g = serving(gateway);
      const tenant = String(req.params['tenant'] ?? '');
      const problem = tenantIdProblem(tenant);
      if (problem !== undefined) throw new BadDataError(problem);
      const held = new Map(g.stores.blocks(tenant).map((b) => [b.meta.ulid, { open: b.open }]));
      const rows = await loadBlockRows(g.bucket, tenant, held, PAGE_READ_CONCURRENCY);
      res
        .status(200)
        .type('html')
        .send(renderBlocksPage(tenant, rows, g.nowMs()));
    },
  });
}

/** The tenants page (exported for tests). */
export function renderTenantsPage(
  tenants: readonly string[],
  g: Pick<StoreGateway, 'stores'>,
  nowMs: number,
): string {
  const rows = tenants.map((t) => {
    const blocks = g.stores.blocks(t).length;
    const href = `tenant/${encodeURIComponent(t)}/blocks`;
    return `<tr><td><a href="${escapeHtml(href)}">${escapeHtml(t)}</a></td><td>${blocks}</td></tr>`;
  });
  return htmlPage(
    'Store-gateway: bucket tenants',
    `<h1>Store-gateway: bucket tenants</h1>
<p>Current time: ${escapeHtml(iso(nowMs))}. Tenants: ${tenants.length}.</p>
<table>
<thead><tr><th>Tenant</th><th>Blocks held by this store-gateway</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`,
  );
}

function serving(source: StoreGatewaySource): StoreGateway {
  const g = source();
  if (g === undefined)
    throw new UnavailableError('the store-gateway is not running in this process');
  return g;
}

/**
 * The store-gateway ring client checks no heartbeats (sharding.ts); the status page must,
 * to show dead instances as unhealthy and offer to forget them.
 */
function healthAware(ring: ReadRing, heartbeatTimeoutMs: number, now: () => number): ReadRing {
  const health = (): HealthOptions => ({ heartbeatTimeoutMs, nowMs: now() });
  const isHealthy = (inst: RingInstance): boolean =>
    isHeartbeatHealthy(inst, health().heartbeatTimeoutMs, health().nowMs);
  return {
    get ringName() {
      return ring.ringName;
    },
    get replicationFactor() {
      return ring.replicationFactor;
    },
    get heartbeatTimeoutMs() {
      return heartbeatTimeoutMs;
    },
    get: (key, op) => ring.get(key, op),
    getAllHealthy: (op) => ring.getAllHealthy(op),
    getReplicationSetForOperation: (op) => ring.getReplicationSetForOperation(op),
    instancesCount: () => ring.instancesCount(),
    healthyInstancesCount: () =>
      Object.entries(ring.desc().ingesters).filter(([id, d]) => isHealthy({ ...d, id })).length,
    desc: () => ring.desc(),
    ownership: () => ring.ownership(),
    isHealthy,
  };
}
