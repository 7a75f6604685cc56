import { Counter, Gauge, Histogram } from 'prom-client';
import {
  isAbortError,
  isObjectNotFound,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type Clock,
  type MetricsRegistry,
  type ObjectAttributes,
  type UploadSource,
} from '../runtime/index.js';
import { BUCKET_OPERATIONS, type BucketOperation } from './bucket_operations.js';

type OpLabels = 'bucket' | 'component' | 'operation';

/**
 * Thanos objstore's bucket metrics as Cortex exposes them: `thanos_`-prefixed, with Cortex's
 * `component` label (the Go registerer wrapper's constant label) next to objstore's `bucket`
 * and `operation`. Several buckets (one per component) share one registry, so each metric is
 * registered once and told apart by its labels.
 */
export class BucketMetrics {
  readonly operations: Counter<OpLabels>;
  readonly failures: Counter<OpLabels>;
  readonly duration: Histogram<OpLabels>;
  readonly lastSuccessfulUpload: Gauge<'bucket' | 'component'>;

  constructor(registry: MetricsRegistry) {
    const labelNames: OpLabels[] = ['bucket', 'component', 'operation'];
    this.operations = shared(
      registry,
      'thanos_objstore_bucket_operations_total',
      (name) =>
        new Counter({
          name,
          help: 'Total number of all attempted operations against a bucket.',
          labelNames,
          registers: [registry],
        }),
    );
    this.failures = shared(
      registry,
      'thanos_objstore_bucket_operation_failures_total',
      (name) =>
        new Counter({
          name,
          help: 'Total number of operations against a bucket that failed, but were not expected to fail in certain way from caller perspective. Those errors have to be investigated.',
          labelNames,
          registers: [registry],
        }),
    );
    this.duration = shared(
      registry,
      'thanos_objstore_bucket_operation_duration_seconds',
      (name) =>
        new Histogram({
          name,
          help: 'Duration of successful operations against the bucket',
          labelNames,
          buckets: [0.001, 0.01, 0.1, 0.3, 0.6, 1, 3, 6, 9, 20, 30, 60, 90, 120],
          registers: [registry],
        }),
    );
    this.lastSuccessfulUpload = shared(
      registry,
      'thanos_objstore_bucket_last_successful_upload_time',
      (name) =>
        new Gauge({
          name,
          help: 'Second timestamp of the last successful upload to the bucket.',
          labelNames: ['bucket', 'component'],
          registers: [registry],
        }),
    );
  }
}

function shared<M>(registry: MetricsRegistry, name: string, create: (name: string) => M): M {
  // Reusing by name is safe because only this class registers these names.
  return (registry.getSingleMetric(name) as M | undefined) ?? create(name);
}

export interface InstrumentedBucketConfig {
  /** Cortex's `component` label: who uses the bucket (`querier`, `compactor`, `ingester`…). */
  component: string;
  /** objstore's `bucket` label; Cortex passes '' (so Prometheus sees no such label). */
  bucketLabel?: string;
  /**
   * Errors the caller expects and that must not count as failures. Default: a missing object
   * (Thanos's `IsObjNotFoundErr`, which Cortex passes to `ReaderWithExpectedErrs`).
   */
  isExpectedError?: (err: unknown) => boolean;
}

/**
 * Counts every operation of another bucket (`operations_total`), the unexpected failures
 * (`operation_failures_total`; a missing object and an aborted call are not failures), the
 * duration of successful ones, and the time of the last successful upload, as Thanos's
 * `metricBucket` does. Durations come from the Env clock, so they are virtual in simulation.
 */
export class InstrumentedBucket implements Bucket {
  readonly name: string;
  private readonly metrics: BucketMetrics;
  private readonly bucketLabel: string;
  private readonly isExpectedError: (err: unknown) => boolean;

  constructor(
    private readonly inner: Bucket,
    private readonly config: InstrumentedBucketConfig,
    private readonly deps: { clock: Clock; registry: MetricsRegistry },
  ) {
    this.name = inner.name;
    this.bucketLabel = config.bucketLabel ?? '';
    this.isExpectedError = config.isExpectedError ?? isObjectNotFound;
    this.metrics = new BucketMetrics(deps.registry);
    // Thanos creates every operation's series up front, so rates start from zero.
    for (const operation of BUCKET_OPERATIONS) {
      const labels = this.labels(operation);
      this.metrics.operations.inc(labels, 0);
      this.metrics.failures.inc(labels, 0);
      this.metrics.duration.zero(labels);
    }
    this.metrics.lastSuccessfulUpload.inc(
      { bucket: this.bucketLabel, component: config.component },
      0,
    );
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.observe('get', () => this.inner.get(name, opts));
  }

  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.observe('get_range', () => this.inner.getRange(name, offset, length, opts));
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.observe('exists', () => this.inner.exists(name, opts));
  }

  async upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    await this.observe('upload', () => this.inner.upload(name, data, opts));
    this.uploaded();
  }

  /** Counted as Thanos's `upload` operation: it is one, whatever holds the bytes. */
  async uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    await this.observe('upload', () => this.inner.uploadStream(name, source, opts));
    this.uploaded();
  }

  private uploaded(): void {
    this.metrics.lastSuccessfulUpload.set(
      { bucket: this.bucketLabel, component: this.config.component },
      this.deps.clock.now() / 1000,
    );
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.observe('delete', () => this.inner.delete(name, opts));
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    return this.observe('iter', () => this.inner.list(dir, opts));
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.observe('attributes', () => this.inner.attributes(name, opts));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async observe<T>(operation: BucketOperation, call: () => Promise<T>): Promise<T> {
    const labels = this.labels(operation);
    this.metrics.operations.inc(labels);
    const start = this.deps.clock.now();
    try {
      const result = await call();
      // Thanos times every operation but iter (its listing streams through a callback).
      if (operation !== 'iter') {
        this.metrics.duration.observe(labels, (this.deps.clock.now() - start) / 1000);
      }
      return result;
    } catch (err) {
      if (!this.isExpectedError(err) && !isAbortError(err)) this.metrics.failures.inc(labels);
      throw err;
    }
  }

  private labels(operation: BucketOperation): Record<OpLabels, string> {
    return { bucket: this.bucketLabel, component: this.config.component, operation };
  }
}
