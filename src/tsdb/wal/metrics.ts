import { Counter, Gauge, type Metric } from 'prom-client';
import type { MetricsRegistry } from '../../runtime/index.js';

/**
 * The write log's metrics, named like Prometheus's (`prometheus_tsdb_wal_*` by default).
 * Create one per registry and hand it to every WAL that should share the numbers (e.g. all
 * tenants' WALs of an ingester); a second instance on the same registry reuses the metrics.
 */
export class WALMetrics {
  readonly pageFlushes: Counter;
  readonly pageCompletions: Counter;
  readonly truncations: Counter;
  readonly truncationsFailed: Counter;
  readonly writesFailed: Counter;
  readonly recordPartWrites: Counter;
  readonly recordPartBytes: Counter;
  readonly recordBytesSaved: Counter<'compression'>;
  readonly corruptions: Counter;
  readonly currentSegment: Gauge;

  constructor(registry: MetricsRegistry, prefix = 'prometheus_tsdb_wal_') {
    const counter = (suffix: string, help: string): Counter =>
      shared(
        registry,
        prefix + suffix,
        (name) => new Counter({ name, help, registers: [registry] }),
      );
    this.pageFlushes = counter('page_flushes_total', 'Total number of page flushes.');
    this.pageCompletions = counter('completed_pages_total', 'Total number of completed pages.');
    this.truncations = counter(
      'truncations_total',
      'Total number of write log truncations attempted.',
    );
    this.truncationsFailed = counter(
      'truncations_failed_total',
      'Total number of write log truncations that failed.',
    );
    this.writesFailed = counter(
      'writes_failed_total',
      'Total number of write log writes that failed.',
    );
    this.recordPartWrites = counter(
      'record_part_writes_total',
      'Total number of record parts written before flushing.',
    );
    this.recordPartBytes = counter(
      'record_parts_bytes_written_total',
      'Total number of record part bytes written before flushing, including CRC and compression headers.',
    );
    this.recordBytesSaved = shared(
      registry,
      `${prefix}record_bytes_saved_total`,
      (name) =>
        new Counter({
          name,
          help: 'Total number of bytes saved by the optional record compression.',
          labelNames: ['compression'],
          registers: [registry],
        }),
    );
    this.corruptions = counter(
      'corruptions_total',
      'Total number of write log corruptions found (and repaired) on replay.',
    );
    this.currentSegment = shared(
      registry,
      `${prefix}segment_current`,
      (name) =>
        new Gauge({
          name,
          help: 'Write log segment index that TSDB is currently writing to.',
          registers: [registry],
        }),
    );
  }
}

function shared<M extends Metric>(
  registry: MetricsRegistry,
  name: string,
  create: (name: string) => M,
): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create(name);
}
