/**
 * The querier's HTTP routes: the Prometheus query API over the tenant's ingester Queryable
 * with the querier's engines and lookback, and Cortex's `/api/v1/user_stats` (also under the
 * legacy prefix as `<legacy>/user_stats`, and under the Prometheus prefix).
 */
import { registerPrometheusApi } from '../api/index.js';
import {
  InternalError,
  registerPrefixedRoute,
  tenantOf,
  writeBody,
  type HttpServer,
  type RouteHandler,
} from '../server/index.js';
import { isAbortError } from '../runtime/index.js';
import type { Querier } from './querier.js';
import { encodeUserStats } from './user_stats.js';

const MODULE = 'querier';
const DESCRIPTION = "The tenant's realtime ingestion rate and series count (JSON)";

export function registerQuerierRoutes(http: HttpServer, querier: Querier): void {
  registerPrometheusApi(http, {
    queryable: (tenant, signal) => querier.queryable(tenant, signal),
    engines: querier.engines,
    buildInfo: querier.deps.buildInfo,
    clock: querier.deps.clock,
    logger: querier.deps.logger,
    lookbackDelta: querier.config.lookbackDeltaMs,
    metadata: {
      metricMetadata: (tenant, signal) => querier.ingesters.metricsMetadata(tenant, signal),
    },
    module: MODULE,
  });

  const handler = userStatsHandler(querier);
  // Cortex serves it at the root, not under the Prometheus prefix.
  http.registerRoute({
    methods: ['GET'],
    path: '/api/v1/user_stats',
    module: MODULE,
    description: DESCRIPTION,
    tenant: true,
    handler,
  });
  registerPrefixedRoute(http, 'legacy', {
    methods: ['GET'],
    path: '/user_stats',
    module: MODULE,
    description: `${DESCRIPTION} (legacy path)`,
    tenant: true,
    handler,
  });
  registerPrefixedRoute(http, 'prometheus', {
    methods: ['GET'],
    path: '/api/v1/user_stats',
    module: MODULE,
    description: DESCRIPTION,
    tenant: true,
    hidden: true,
    handler,
  });
}

/** Cortex's UserStatsHandler: the JSON on success, the error as a plain-text 500. */
function userStatsHandler(querier: Querier): RouteHandler {
  return async (req, res) => {
    const controller = new AbortController();
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort();
    };
    res.once('close', onClose);
    try {
      const stats = await querier.userStats(tenantOf(res), controller.signal);
      writeBody(res, 200, 'application/json', encodeUserStats(stats));
    } catch (err) {
      if (isAbortError(err)) throw err;
      throw new InternalError(err instanceof Error ? err.message : String(err), { cause: err });
    } finally {
      res.off('close', onClose);
    }
  };
}
