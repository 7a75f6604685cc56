/**
 * What the frontend records about each query it answers (Cortex's frontend transport
 * handler): `cortex_query_frontend_queries_total` per tenant and API operation, with
 * `-frontend.query-stats-enabled` the wall time per tenant in `cortex_query_seconds_total`,
 * and with `-frontend.log-queries-longer-than` a log line for each slow query (every query
 * when negative) naming the tenant, path, its parameters and the time it took.
 */
import { Counter } from 'prom-client';
import type { Form } from '../api/index.js';
import type { Clock, Logger, MetricsRegistry } from '../runtime/index.js';

export interface QueryStatsConfig {
  readonly logQueriesLongerThanMs: number;
  readonly queryStatsEnabled: boolean;
}

export interface FinishedQuery {
  readonly tenant: string;
  readonly path: string;
  /** The query's parameters when the frontend parsed them. */
  readonly form: Form | undefined;
  readonly status: number;
}

const LOGGED_PARAMS = ['query', 'start', 'end', 'step', 'time', 'match[]'];

export class QueryStats {
  private readonly queries: Counter<'user' | 'op'>;
  private readonly seconds: Counter<'user'>;

  constructor(
    private readonly config: QueryStatsConfig,
    private readonly deps: { clock: Clock; logger: Logger; registry: MetricsRegistry },
  ) {
    this.queries = new Counter({
      name: 'cortex_query_frontend_queries_total',
      help: 'Total queries sent per tenant.',
      labelNames: ['user', 'op'],
      registers: [deps.registry],
    });
    this.seconds = new Counter({
      name: 'cortex_query_seconds_total',
      help: 'Total amount of wall clock time spend processing queries.',
      labelNames: ['user'],
      registers: [deps.registry],
    });
  }

  start(): number {
    return this.deps.clock.now();
  }

  finish(startedAt: number, q: FinishedQuery): void {
    const tookMs = Math.max(0, this.deps.clock.now() - startedAt);
    this.queries.inc({ user: q.tenant, op: operation(q.path) });
    if (this.config.queryStatsEnabled) this.seconds.inc({ user: q.tenant }, tookMs / 1000);
    const threshold = this.config.logQueriesLongerThanMs;
    if (threshold === 0 || (threshold > 0 && tookMs <= threshold)) return;
    const params: Record<string, string> = {};
    for (const name of LOGGED_PARAMS) {
      const value = q.form?.getAll(name).join(',') ?? '';
      if (value !== '') params[`param_${name}`] = value;
    }
    this.deps.logger.info('slow query detected', {
      org_id: q.tenant,
      path: q.path,
      status: q.status,
      time_taken: `${tookMs}ms`,
      ...params,
    });
  }
}

/** Cortex's `op` label: the API operation a path names. */
function operation(path: string): string {
  if (path.endsWith('/query_range')) return 'query_range';
  if (path.endsWith('/query')) return 'query';
  if (path.endsWith('/series')) return 'series';
  if (path.endsWith('/labels') || path.endsWith('/values')) return 'labels';
  if (path.endsWith('/metadata')) return 'metadata';
  return 'other';
}
