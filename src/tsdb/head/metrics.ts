// The head's Prometheus metrics (names as Prometheus's prometheus_tsdb_head_* and
// prometheus_tsdb_*_samples_total), registered on
// the registry passed in, never the global one.
import { Counter, Gauge } from 'prom-client';
import type { MetricsRegistry } from '../../runtime/index.js';

export class HeadMetrics {
  readonly series: Gauge;
  readonly seriesCreated: Counter;
  readonly seriesRemoved: Counter;
  readonly chunksCreated: Counter;
  readonly samplesAppended: Counter;
  readonly rejectedSamples: Counter<'reason'>;
  readonly walReplayUnknownRefs: Counter<'type'>;
  readonly oooSamplesAppended: Counter<'type'>;
  readonly outOfOrderSamples: Counter<'type'>;
  readonly tooOldSamples: Counter<'type'>;
  readonly outOfBoundSamples: Counter<'type'>;

  constructor(registry: MetricsRegistry) {
    const registers = [registry];
    this.series = new Gauge({
      name: 'prometheus_tsdb_head_series',
      help: 'Total number of series in the head block.',
      registers,
    });
    this.seriesCreated = new Counter({
      name: 'prometheus_tsdb_head_series_created_total',
      help: 'Total number of series created in the head.',
      registers,
    });
    this.seriesRemoved = new Counter({
      name: 'prometheus_tsdb_head_series_removed_total',
      help: 'Total number of series removed from the head.',
      registers,
    });
    this.chunksCreated = new Counter({
      name: 'prometheus_tsdb_head_chunks_created_total',
      help: 'Total number of chunks created in the head.',
      registers,
    });
    this.samplesAppended = new Counter({
      name: 'prometheus_tsdb_head_samples_appended_total',
      help: 'Total number of appended samples.',
      registers,
    });
    this.rejectedSamples = new Counter({
      name: 'strata_tsdb_head_rejected_samples_total',
      help: 'Samples the head refused, by reason (the rejection code).',
      labelNames: ['reason'],
      registers,
    });
    this.walReplayUnknownRefs = new Counter({
      name: 'prometheus_tsdb_wal_replay_unknown_refs_total',
      help: 'Total number of unknown series references encountered during WAL replay.',
      labelNames: ['type'],
      registers,
    });
    this.oooSamplesAppended = new Counter({
      name: 'prometheus_tsdb_head_out_of_order_samples_appended_total',
      help: 'Total number of appended out of order samples.',
      labelNames: ['type'],
      registers,
    });
    this.outOfOrderSamples = new Counter({
      name: 'prometheus_tsdb_out_of_order_samples_total',
      help: 'Total number of out of order samples ingestion failed attempts due to out of order being disabled.',
      labelNames: ['type'],
      registers,
    });
    this.tooOldSamples = new Counter({
      name: 'prometheus_tsdb_too_old_samples_total',
      help: 'Total number of out of order samples ingestion failed attempts with out of order support enabled, but sample outside of time window.',
      labelNames: ['type'],
      registers,
    });
    this.outOfBoundSamples = new Counter({
      name: 'prometheus_tsdb_out_of_bound_samples_total',
      help: 'Total number of out of bound samples ingestion failed attempts with out of order support disabled.',
      labelNames: ['type'],
      registers,
    });
  }
}
