/**
 * Registers the query API on the shared HTTP server under the Prometheus prefix
 * (`/prometheus`, alias `/mon`) and the legacy prefix (`/api/prom`, alias `/api/mon`), with
 * the methods Prometheus (and the reference) allow on each endpoint.
 */
import type { Request } from 'express';
import {
  type HttpMethod,
  type HttpServer,
  registerPrefixedRoute,
  type ApiPrefix,
} from '../server/index.js';
import { type ApiContext, type ApiEndpoint, wrap } from './handler.js';
import { buildInfo, metricMetadata, queryExemplars } from './misc_handlers.js';
import { formatQuery, instantQuery, parseQuery, rangeQuery } from './query_handlers.js';
import { labelNames, labelValues, series } from './series_handlers.js';
import type { PrometheusApiDeps } from './types.js';

const GET_POST: readonly HttpMethod[] = ['GET', 'POST'];
const GET: readonly HttpMethod[] = ['GET'];

interface Endpoint {
  readonly path: string;
  readonly methods: readonly HttpMethod[];
  readonly description: string;
  readonly endpoint: ApiEndpoint;
}

function routeParam(req: Request, name: string): string {
  const v: unknown = (req.params as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : '';
}

function endpoints(deps: PrometheusApiDeps): Endpoint[] {
  return [
    {
      path: '/api/v1/query',
      methods: GET_POST,
      description: 'PromQL instant query (X-PromQL-EngineType selects the engine)',
      endpoint: (ctx) => instantQuery(ctx, deps),
    },
    {
      path: '/api/v1/query_range',
      methods: GET_POST,
      description: 'PromQL range query (X-PromQL-EngineType selects the engine)',
      endpoint: (ctx) => rangeQuery(ctx, deps),
    },
    {
      path: '/api/v1/query_exemplars',
      methods: GET_POST,
      description: 'Exemplars of the series a query selects',
      endpoint: (ctx) => queryExemplars(ctx, deps),
    },
    {
      path: '/api/v1/format_query',
      methods: GET_POST,
      description: 'A PromQL expression, prettified',
      endpoint: formatQuery,
    },
    {
      path: '/api/v1/parse_query',
      methods: GET_POST,
      description: 'A PromQL expression as a JSON syntax tree (experimental)',
      endpoint: parseQuery,
    },
    {
      path: '/api/v1/series',
      methods: GET_POST,
      description: 'Series matching match[] selectors between start and end',
      endpoint: (ctx) => series(ctx, deps),
    },
    {
      path: '/api/v1/labels',
      methods: GET_POST,
      description: 'Label names between start and end',
      endpoint: (ctx) => labelNames(ctx, deps),
    },
    {
      path: '/api/v1/label/:name/values',
      methods: GET,
      description: 'Values of one label between start and end',
      endpoint: (ctx: ApiContext) => labelValues(ctx, deps, routeParam(ctx.req, 'name')),
    },
    {
      path: '/api/v1/metadata',
      methods: GET,
      description: 'Metric metadata (type, unit, help)',
      endpoint: (ctx) => metricMetadata(ctx, deps),
    },
    {
      path: '/api/v1/status/buildinfo',
      methods: GET,
      description: 'Build information',
      endpoint: () => Promise.resolve(buildInfo(deps.buildInfo)),
    },
  ];
}

/** Registers every query API endpoint under both prefixes (and their neutral aliases). */
export function registerPrometheusApi(server: HttpServer, deps: PrometheusApiDeps): void {
  const module = deps.module ?? 'querier';
  const prefixes: readonly ApiPrefix[] = ['prometheus', 'legacy'];
  for (const e of endpoints(deps)) {
    const handler = wrap(e.endpoint, { logger: deps.logger });
    for (const which of prefixes) {
      registerPrefixedRoute(server, which, {
        methods: e.methods,
        path: e.path,
        module,
        description: which === 'legacy' ? `${e.description} (legacy path)` : e.description,
        tenant: true,
        handler,
      });
    }
  }
}
