/**
 * The endpoints every Strata process serves whatever its targets (reference "All services"):
 * `/config`, `/runtime_config`, `/services`, `/ready` and `/metrics`. They read everything
 * through the callbacks given here, so this file depends on no other module's internals.
 */
import type { Request } from 'express';
import type { MetricsRegistry } from '../runtime/index.js';
import { BadDataError, NotFoundError } from './errors.js';
import { escapeHtml, htmlPage } from './html.js';
import { type HttpServer, writeBody, writeText } from './http_server.js';
import { type ModuleStatus, readiness } from './module_status.js';

export type ConfigRenderMode = 'all' | 'diff' | 'defaults';
export type RuntimeConfigRenderMode = 'all' | 'diff';

export interface StatusRoutesDeps {
  /** YAML of the applied configuration (secrets masked) in the given mode. */
  renderConfig(mode: ConfigRenderMode): string;
  /**
   * YAML of the applied runtime configuration, or undefined when no runtime config file is
   * configured (`-runtime-config.file` empty).
   */
  renderRuntimeConfig(mode: RuntimeConfigRenderMode): string | undefined;
  /** Whether `-runtime-config.file` is set: without it `/runtime_config` is left off the index. */
  readonly runtimeConfigEnabled: boolean;
  /** The current state of every service in the process, in start order. */
  statuses(): readonly ModuleStatus[];
  /** The registry `/metrics` exposes (the process Env's). */
  readonly metrics: MetricsRegistry;
}

const YAML_CONTENT_TYPE = 'text/plain; charset=utf-8';
const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';
const MODULE = 'server';

export function registerStatusRoutes(server: HttpServer, deps: StatusRoutesDeps): void {
  server.registerRoute({
    methods: ['GET'],
    path: '/config',
    module: MODULE,
    description:
      'Applied configuration in YAML, defaults included, secrets masked (?mode=diff: only non-default values; ?mode=defaults: only the defaults)',
    tenant: false,
    handler: (req, res) => {
      const mode = parseMode(req, ['diff', 'defaults'] as const);
      writeBody(res, 200, YAML_CONTENT_TYPE, deps.renderConfig(mode ?? 'all'));
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/runtime_config',
    module: MODULE,
    description:
      'Applied runtime configuration (per-tenant overrides) in YAML (?mode=diff: only values differing from the defaults)',
    tenant: false,
    hidden: !deps.runtimeConfigEnabled,
    handler: (req, res) => {
      const mode = parseMode(req, ['diff'] as const);
      const yaml = deps.renderRuntimeConfig(mode ?? 'all');
      if (yaml === undefined) {
        throw new NotFoundError(
          'runtime config file is not configured: set -runtime-config.file to serve /runtime_config',
        );
      }
      writeBody(res, 200, YAML_CONTENT_TYPE, yaml);
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/services',
    module: MODULE,
    description: 'Status of the services running in this process',
    tenant: false,
    handler: (_req, res) => {
      writeBody(res, 200, HTML_CONTENT_TYPE, renderServicesPage(deps.statuses()));
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/ready',
    module: MODULE,
    description:
      'Readiness probe: 200 when every service is Running and ready, 503 naming those that are not',
    tenant: false,
    handler: (_req, res) => {
      const r = readiness(deps.statuses());
      if (r.ready) writeBody(res, 200, 'text/plain; charset=utf-8', 'ready');
      else writeText(res, 503, r.message);
    },
  });

  server.registerRoute({
    methods: ['GET'],
    path: '/metrics',
    module: MODULE,
    description: 'Metrics in the Prometheus text exposition format',
    tenant: false,
    handler: async (_req, res) => {
      const text = await deps.metrics.metrics();
      writeBody(res, 200, deps.metrics.contentType, text);
    },
  });
}

/** The `mode` query parameter, if present and one of `allowed`; any other value is a 400. */
function parseMode<M extends string>(req: Request, allowed: readonly M[]): M | undefined {
  const raw = firstQueryValue(req, 'mode');
  if (raw === undefined || raw === '') return undefined;
  if ((allowed as readonly string[]).includes(raw)) return raw as M;
  throw new BadDataError(
    `invalid mode "${raw}": expected one of ${allowed.join(', ')} (or no mode for the whole configuration)`,
  );
}

/** The first value of a query parameter, like Go's `URL.Query().Get`. */
export function firstQueryValue(req: Request, name: string): string | undefined {
  const v: unknown = (req.query as Record<string, unknown>)[name];
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && typeof v[0] === 'string') return v[0];
  return undefined;
}

export function renderServicesPage(statuses: readonly ModuleStatus[]): string {
  const rows = statuses
    .map((s) => {
      const details = [
        s.failureReason,
        s.note,
        s.notReadyReason === undefined ? undefined : `not ready: ${s.notReadyReason}`,
      ]
        .filter((d): d is string => d !== undefined && d !== '')
        .map(escapeHtml)
        .join('<br>');
      return `<tr><td>${escapeHtml(s.name)}</td><td>${escapeHtml(s.state)}</td><td>${details}</td></tr>`;
    })
    .join('\n');
  return htmlPage(
    'Strata services status',
    `<h1>Services' status</h1>
<table>
<thead><tr><th>Service</th><th>Status</th><th>Details</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`,
  );
}
