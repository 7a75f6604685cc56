/**
 * The gcs backend against fake-gcs-server on loopback, reached the documented way: through
 * STORAGE_EMULATOR_HOST. The shared Bucket contract for the raw client and for the
 * retrying, instrumented client, plus the error a missing bucket gives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBucketClient } from '../src/bucket/index.js';
import { ObjectNotFoundError, ObjectStoreError, newMetricsRegistry } from '../src/runtime/index.js';
import { GcsBucket, RealBucketProvider, RealClock } from '../src/runtime/real/index.js';
import { describeBucketContract } from '../src/runtime/testing/index.js';
import { startFakeGcs, type FakeGcsService } from './services/fake_gcs.js';

let gcs: FakeGcsService;
const clock = new RealClock({ unrefTimers: true });

beforeAll(async () => {
  gcs = await startFakeGcs();
  // Each test file runs in its own process, so the variable reaches only these clients.
  process.env['STORAGE_EMULATOR_HOST'] = gcs.url;
});
afterAll(async () => {
  delete process.env['STORAGE_EMULATOR_HOST'];
  await gcs?.stop();
});

describeBucketContract('GcsBucket (fake-gcs-server)', async () => {
  const bucket = new GcsBucket({
    bucketName: await gcs.createBucket('contract'),
    serviceAccount: '',
  });
  return { bucket, cleanup: () => Promise.resolve() };
});

describeBucketContract(
  'openBucketClient gcs (fake-gcs-server, retrying + instrumented)',
  async () => {
    const bucketName = await gcs.createBucket('wrapped');
    const bucket = openBucketClient(
      { backend: 'gcs', bucketName, serviceAccount: '' },
      'contract',
      {
        buckets: new RealBucketProvider({ clock }),
        clock,
        registry: newMetricsRegistry(),
      },
    );
    return { bucket, cleanup: () => Promise.resolve() };
  },
);

describe('gcs backend errors (fake-gcs-server)', () => {
  it('a missing bucket is a configuration error naming the bucket and endpoint', async () => {
    const bucket = new GcsBucket({ bucketName: 'no-such-bucket', serviceAccount: '' });
    const err: unknown = await bucket.upload('x', new Uint8Array([1])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectStoreError);
    expect(String(err)).toContain(`gcs bucket "no-such-bucket" at ${gcs.url}`);
    expect((err as ObjectStoreError).retryable).toBe(false);
    const list: unknown = await bucket.list('').catch((e: unknown) => e);
    expect(list).toBeInstanceOf(ObjectStoreError);
    expect(list).not.toBeInstanceOf(ObjectNotFoundError);
  });
});
