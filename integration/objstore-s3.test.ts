/**
 * The s3 backend against a real MinIO on loopback: the shared Bucket contract for the raw
 * client and for the retrying, instrumented client components use, plus the errors a
 * misconfigured bucket gives (they must name the bucket and endpoint, and not be retried).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBucketClient } from '../src/bucket/index.js';
import {
  ObjectNotFoundError,
  ObjectStoreError,
  newMetricsRegistry,
  type BucketSpec,
} from '../src/runtime/index.js';
import { RealBucketProvider, RealClock, S3Bucket } from '../src/runtime/real/index.js';
import { describeBucketContract } from '../src/runtime/testing/index.js';
import { startMinio, type MinioService } from './services/minio.js';

let minio: MinioService;
const clock = new RealClock({ unrefTimers: true });

beforeAll(async () => {
  minio = await startMinio();
});
afterAll(async () => {
  await minio?.stop();
});

function spec(
  bucketName: string,
  overrides: Partial<BucketSpec & { backend: 's3' }> = {},
): BucketSpec {
  return {
    backend: 's3',
    endpoint: minio.endpoint,
    bucketName,
    accessKeyId: minio.accessKeyId,
    secretAccessKey: minio.secretAccessKey,
    insecure: true,
    ...overrides,
  };
}

describeBucketContract('S3Bucket (MinIO)', async () => {
  const bucketName = await minio.createBucket('contract');
  const bucket = new S3Bucket({
    endpoint: minio.endpoint,
    bucketName,
    accessKeyId: minio.accessKeyId,
    secretAccessKey: minio.secretAccessKey,
    insecure: true,
  });
  return { bucket, cleanup: () => Promise.resolve() };
});

describeBucketContract('openBucketClient s3 (MinIO, retrying + instrumented)', async () => {
  const bucket = openBucketClient(spec(await minio.createBucket('wrapped')), 'contract', {
    buckets: new RealBucketProvider({ clock }),
    clock,
    registry: newMetricsRegistry(),
  });
  return { bucket, cleanup: () => Promise.resolve() };
});

describe('streamed uploads through the retrying client (MinIO)', () => {
  it('restarts a multipart upload whose source failed after a part went up, from the first byte', async () => {
    const bucket = openBucketClient(spec(await minio.createBucket('restart')), 'ingester', {
      buckets: new RealBucketProvider({ clock }),
      clock,
      registry: newMetricsRegistry(),
    });
    const size = 20 * (1 << 20) + 7;
    const data = new Uint8Array(size).map((_, i) => (i * 13 + (i >>> 12)) & 0xff);
    const piece = 1 << 20;
    const sent: number[] = [];
    const source = {
      size,
      async *open(): AsyncIterable<Uint8Array> {
        const attempt = sent.push(0) - 1;
        for (let at = 0; at < size; at += piece) {
          // The first attempt's read fails after the first 16 MiB part was uploaded.
          if (attempt === 0 && at >= 18 * piece) {
            throw Object.assign(new Error('connection reset reading the block'), {
              code: 'ECONNRESET',
            });
          }
          await Promise.resolve();
          const bytes = data.slice(at, Math.min(size, at + piece));
          sent[attempt] = (sent[attempt] ?? 0) + bytes.length;
          yield bytes;
        }
      },
    };
    await bucket.uploadStream('t/01/chunks/000001', source);
    expect(sent).toEqual([18 * piece, size]);
    const got = await bucket.get('t/01/chunks/000001');
    expect(got.length).toBe(size);
    expect(Buffer.compare(got, data)).toBe(0);
    await bucket.close();
  });
});

describe('s3 backend errors (MinIO)', () => {
  it('wrong credentials: a non-retryable error naming the bucket and endpoint', async () => {
    const bucketName = await minio.createBucket('creds');
    const registry = newMetricsRegistry();
    const bucket = openBucketClient(
      spec(bucketName, { secretAccessKey: 'not-the-secret' }),
      'querier',
      { buckets: new RealBucketProvider({ clock }), clock, registry },
    );
    const err: unknown = await bucket.get('meta.json').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectStoreError);
    const e = err as ObjectStoreError;
    expect(e.retryable).toBe(false);
    expect(e.message).toContain(`s3 bucket "${bucketName}" at http://${minio.endpoint}`);
    expect(e.message).toMatch(/SignatureDoesNotMatch|AccessDenied|InvalidAccessKeyId/);
    expect(e.message).not.toMatch(/gave up/);
    const text = await registry.metrics();
    expect(text).toContain(
      'thanos_objstore_bucket_operation_failures_total{bucket="",component="querier",operation="get"} 1',
    );
  });

  it('a missing bucket is a configuration error, not a missing object', async () => {
    const bucket = new S3Bucket({
      endpoint: minio.endpoint,
      bucketName: 'no-such-bucket',
      accessKeyId: minio.accessKeyId,
      secretAccessKey: minio.secretAccessKey,
      insecure: true,
    });
    const err: unknown = await bucket.get('x').catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ObjectNotFoundError);
    expect(String(err)).toContain('"no-such-bucket"');
    expect((err as ObjectStoreError).code).toBe('NoSuchBucket');
  });

  it('counts operations of a working bucket, a missing object not as a failure', async () => {
    const registry = newMetricsRegistry();
    const bucket = openBucketClient(spec(await minio.createBucket('metrics')), 'compactor', {
      buckets: new RealBucketProvider({ clock }),
      clock,
      registry,
    });
    await bucket.upload('t/meta.json', new TextEncoder().encode('{}'));
    await expect(bucket.get('t/missing')).rejects.toBeInstanceOf(ObjectNotFoundError);
    expect(await bucket.list('t')).toEqual(['t/meta.json']);
    const text = await registry.metrics();
    expect(text).toContain(
      'thanos_objstore_bucket_operations_total{bucket="",component="compactor",operation="get"} 1',
    );
    expect(text).toContain(
      'thanos_objstore_bucket_operation_failures_total{bucket="",component="compactor",operation="get"} 0',
    );
    expect(text).toMatch(
      /thanos_objstore_bucket_last_successful_upload_time\{bucket="",component="compactor"\} \d{10}/,
    );
  });
});
