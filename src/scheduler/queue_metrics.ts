import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../runtime/index.js';
import type { QueueMetrics } from './request_queue.js';

/**
 * The queue's metrics under Cortex's names: `<prefix>_queue_length{user}` and
 * `<prefix>_discarded_requests_total{user}`, with `prefix` `cortex_query_frontend` for a
 * frontend's own queue and `cortex_query_scheduler` for the query-scheduler's.
 */
export function queueMetrics(registry: MetricsRegistry, prefix: string): QueueMetrics {
  return {
    queueLength: new Gauge({
      name: `${prefix}_queue_length`,
      help: 'Number of queries in the queue.',
      labelNames: ['user'],
      registers: [registry],
    }),
    discarded: new Counter({
      name: `${prefix}_discarded_requests_total`,
      help: 'Total number of query requests discarded.',
      labelNames: ['user'],
      registers: [registry],
    }),
  };
}
