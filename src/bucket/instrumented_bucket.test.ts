import { describe, expect, it } from 'vitest';
import {
  MemoryBucket,
  ObjectStoreError,
  newMetricsRegistry,
  type Bucket,
  type MetricsRegistry,
} from '../runtime/index.js';
import { ManualClock, describeBucketContract } from '../runtime/testing/index.js';
import { openBucketClient } from './bucket_client.js';
import { BUCKET_OPERATIONS } from './bucket_operations.js';
import { FaultBucket } from './fault_bucket.js';
import { InstrumentedBucket } from './instrumented_bucket.js';

const enc = new TextEncoder();

/** The value of `metric` for these labels (0 when the series does not exist). */
async function value(
  registry: MetricsRegistry,
  metric: string,
  labels: Record<string, string>,
): Promise<number> {
  const m = registry.getSingleMetric(metric);
  if (m === undefined) throw new Error(`no metric ${metric}`);
  const { values } = await m.get();
  const match = values.find(
    (v) =>
      Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want) &&
      (v as { metricName?: string }).metricName !== `${metric}_bucket`,
  );
  return match?.value ?? 0;
}

function setup(component = 'querier') {
  const clock = new ManualClock(5_000);
  const registry = newMetricsRegistry();
  const memory = new MemoryBucket({ clock }, 'mem');
  const faults = new FaultBucket(memory);
  const bucket = new InstrumentedBucket(faults, { component }, { clock, registry });
  return { clock, registry, faults, bucket };
}

const OPS = 'thanos_objstore_bucket_operations_total';
const FAILURES = 'thanos_objstore_bucket_operation_failures_total';
const DURATION = 'thanos_objstore_bucket_operation_duration_seconds';
const LAST_UPLOAD = 'thanos_objstore_bucket_last_successful_upload_time';

describe('InstrumentedBucket', () => {
  it('counts each operation under its Thanos name and the component label', async () => {
    const { registry, bucket } = setup();
    await bucket.upload('a/b', enc.encode('12345'));
    await bucket.get('a/b');
    await bucket.getRange('a/b', 1, 2);
    await bucket.exists('a/b');
    await bucket.attributes('a/b');
    await bucket.list('a');
    await bucket.list('a', { recursive: true });
    await bucket.delete('a/b');
    const counts: Record<string, number> = {};
    for (const operation of BUCKET_OPERATIONS)
      counts[operation] = await value(registry, OPS, { component: 'querier', operation });
    expect(counts).toEqual({
      iter: 2,
      get: 1,
      get_range: 1,
      exists: 1,
      upload: 1,
      delete: 1,
      attributes: 1,
    });
    const text = await registry.metrics();
    expect(text).toContain(
      'thanos_objstore_bucket_operations_total{bucket="",component="querier",operation="get"} 1',
    );
    // Every operation's series exists from the start, as Thanos pre-registers them.
    expect(text).toContain(
      'thanos_objstore_bucket_operation_failures_total{bucket="",component="querier",operation="iter"} 0',
    );
  });

  it('does not count a missing object or an aborted call as a failure', async () => {
    const { registry, bucket, faults } = setup();
    await expect(bucket.get('missing')).rejects.toThrow(/object not found/);
    await expect(bucket.getRange('missing', 0, 1)).rejects.toThrow(/object not found/);
    await expect(bucket.attributes('missing')).rejects.toThrow(/object not found/);
    expect(await bucket.exists('missing')).toBe(false);
    faults.inject('get', { kind: 'hang' });
    const ctl = new AbortController();
    const aborted = bucket.get('x', { signal: ctl.signal });
    ctl.abort();
    await expect(aborted).rejects.toThrow(/abort/);
    for (const operation of ['get', 'get_range', 'attributes', 'exists'])
      expect(await value(registry, FAILURES, { operation })).toBe(0);
    expect(await value(registry, OPS, { operation: 'get' })).toBe(2);
  });

  it('counts other errors as failures and times only successful calls', async () => {
    const { registry, bucket, faults } = setup();
    faults.inject('upload', {
      kind: 'error',
      error: new ObjectStoreError('AccessDenied', { retryable: false, status: 403 }),
    });
    await expect(bucket.upload('x', enc.encode('1'))).rejects.toThrow(/AccessDenied/);
    expect(await value(registry, FAILURES, { operation: 'upload' })).toBe(1);
    expect(await value(registry, OPS, { operation: 'upload' })).toBe(1);
    const count = registry.getSingleMetric(DURATION);
    const uploads = (await count!.get()).values.find(
      (v) =>
        v.labels['operation'] === 'upload' &&
        (v as { metricName?: string }).metricName === `${DURATION}_count`,
    );
    expect(uploads?.value).toBe(0);
    expect(await value(registry, LAST_UPLOAD, { component: 'querier' })).toBe(0);
  });

  it('observes durations on the Env clock and stamps the last successful upload', async () => {
    const clock = new ManualClock(10_000);
    const registry = newMetricsRegistry();
    const memory = new MemoryBucket({ clock });
    const slow: Bucket = Object.assign(Object.create(memory) as MemoryBucket, {
      upload: async (name: string, data: Uint8Array) => {
        await clock.sleep(1_500);
        await memory.upload(name, data);
      },
    });
    const bucket = new InstrumentedBucket(slow, { component: 'ingester' }, { clock, registry });
    const done = bucket.upload('x', enc.encode('1'));
    await clock.advance(1_500);
    await done;
    const sum = (await registry.getSingleMetric(DURATION)!.get()).values.find(
      (v) =>
        v.labels['operation'] === 'upload' &&
        (v as { metricName?: string }).metricName === `${DURATION}_sum`,
    );
    expect(sum?.value).toBeCloseTo(1.5);
    expect(await value(registry, LAST_UPLOAD, { component: 'ingester' })).toBe(11.5);
  });

  it('lets several components share one registry, told apart by the component label', async () => {
    const clock = new ManualClock();
    const registry = newMetricsRegistry();
    const memory = new MemoryBucket({ clock });
    const querier = new InstrumentedBucket(memory, { component: 'querier' }, { clock, registry });
    const compactor = new InstrumentedBucket(
      memory,
      { component: 'compactor' },
      { clock, registry },
    );
    await querier.exists('a');
    await compactor.exists('a');
    await compactor.exists('b');
    expect(await value(registry, OPS, { component: 'querier', operation: 'exists' })).toBe(1);
    expect(await value(registry, OPS, { component: 'compactor', operation: 'exists' })).toBe(2);
  });
});

describe('openBucketClient', () => {
  it('retries inside the metrics: one call counts once however often it was tried', async () => {
    const clock = new ManualClock();
    const registry = newMetricsRegistry();
    const faults = new FaultBucket(new MemoryBucket({ clock }));
    faults.inject('exists', {
      kind: 'error',
      error: new ObjectStoreError('503 SlowDown', { retryable: true, status: 503 }),
    });
    const bucket = openBucketClient(
      {
        backend: 's3',
        endpoint: 'e',
        bucketName: 'b',
        accessKeyId: '',
        secretAccessKey: '',
        insecure: true,
      },
      'store-gateway',
      { buckets: { open: () => faults }, clock, registry },
      { retry: { minBackoffMs: 10 } },
    );
    const found = bucket.exists('x');
    await clock.advance(10);
    expect(await found).toBe(false);
    expect(faults.count('exists')).toBe(2);
    expect(await value(registry, OPS, { component: 'store-gateway', operation: 'exists' })).toBe(1);
    expect(await value(registry, FAILURES, { operation: 'exists' })).toBe(0);
  });
});

describeBucketContract('openBucketClient (instrumented, retrying) over MemoryBucket', () => {
  const clock = new ManualClock();
  const bucket = openBucketClient({ backend: 'inmemory' }, 'contract', {
    buckets: { open: () => new MemoryBucket({ clock }) },
    clock,
    registry: newMetricsRegistry(),
  });
  return Promise.resolve({ bucket, cleanup: () => Promise.resolve() });
});
