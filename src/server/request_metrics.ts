/**
 * HTTP request instrumentation with Cortex's metric and label names, so existing dashboards
 * and alerts (which key on `cortex_request_duration_seconds{route=...}`) work unchanged.
 */
import { Counter, Histogram } from 'prom-client';
import type { MetricsRegistry } from '../runtime/index.js';

/** Cortex's (weaveworks `instrument.DefBuckets`) request duration buckets, in seconds. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100,
];

/** The route label of requests that matched no registered route. */
export const UNMATCHED_ROUTE_LABEL = 'notfound';

export class RequestMetrics {
  readonly duration: Histogram<'method' | 'route' | 'status_code' | 'ws'>;
  readonly unhandledErrors: Counter<'route'>;

  constructor(registry: MetricsRegistry) {
    this.duration = new Histogram({
      name: 'cortex_request_duration_seconds',
      help: 'Time (in seconds) spent serving HTTP requests.',
      labelNames: ['method', 'route', 'status_code', 'ws'],
      buckets: [...REQUEST_DURATION_BUCKETS],
      registers: [registry],
    });
    this.unhandledErrors = new Counter({
      name: 'strata_http_unhandled_errors_total',
      help: 'HTTP requests that failed with an error no handler turned into a client response (answered with 500).',
      labelNames: ['route'],
      registers: [registry],
    });
  }
}

/**
 * The route label Cortex derives from a path template (weaveworks `MakeLabelValue`): runs of
 * characters other than ASCII letters and digits become `_`, leading and trailing `_` are
 * trimmed, everything is lower-cased, and the empty result (the path `/`) is `root`.
 * Express parameters (`:name`) lose their colon, so `/api/v1/label/:name/values` gives
 * `api_v1_label_name_values`, the same label Cortex gives `{name}`.
 */
export function routeLabel(pathTemplate: string): string {
  const label = pathTemplate
    .replace(/[^a-zA-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toLowerCase();
  return label === '' ? 'root' : label;
}
