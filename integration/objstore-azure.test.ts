/**
 * The azure backend against azurite's blob service on loopback, reached with
 * `endpoint_suffix: 127.0.0.1:<port>` (an IP suffix selects the emulator's path-style URL).
 * The shared Bucket contract for the raw client and for the retrying, instrumented client,
 * plus the errors of a wrong account key and a missing container.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBucketClient } from '../src/bucket/index.js';
import {
  ObjectNotFoundError,
  ObjectStoreError,
  newMetricsRegistry,
  type BucketSpec,
} from '../src/runtime/index.js';
import { AzureBucket, RealBucketProvider, RealClock } from '../src/runtime/real/index.js';
import { describeBucketContract } from '../src/runtime/testing/index.js';
import { startAzurite, type AzuriteService } from './services/azurite.js';

let azurite: AzuriteService;
const clock = new RealClock({ unrefTimers: true });

beforeAll(async () => {
  azurite = await startAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

function spec(containerName: string, accountKey = azurite.accountKey): BucketSpec {
  return {
    backend: 'azure',
    accountName: azurite.accountName,
    accountKey,
    containerName,
    endpointSuffix: azurite.endpointSuffix,
    maxRetries: 3,
  };
}

describeBucketContract('AzureBucket (azurite)', async () => {
  const bucket = new AzureBucket({
    accountName: azurite.accountName,
    accountKey: azurite.accountKey,
    containerName: await azurite.createContainer('contract'),
    endpointSuffix: azurite.endpointSuffix,
  });
  return { bucket, cleanup: () => Promise.resolve() };
});

describeBucketContract('openBucketClient azure (azurite, retrying + instrumented)', async () => {
  const bucket = openBucketClient(spec(await azurite.createContainer('wrapped')), 'contract', {
    buckets: new RealBucketProvider({ clock }),
    clock,
    registry: newMetricsRegistry(),
  });
  return { bucket, cleanup: () => Promise.resolve() };
});

describe('azure backend errors (azurite)', () => {
  it('a wrong account key: a non-retryable error naming the container and URL', async () => {
    const containerName = await azurite.createContainer('creds');
    const wrongKey = Buffer.from('not the account key').toString('base64');
    const bucket = openBucketClient(spec(containerName, wrongKey), 'ruler', {
      buckets: new RealBucketProvider({ clock }),
      clock,
      registry: newMetricsRegistry(),
    });
    const err: unknown = await bucket.upload('x', new Uint8Array([1])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ObjectStoreError);
    const e = err as ObjectStoreError;
    expect(e.status).toBe(403);
    expect(e.retryable).toBe(false);
    expect(e.message).toContain(
      `azure container "${containerName}" at http://${azurite.endpointSuffix}/${azurite.accountName}`,
    );
  });

  it('a missing container is a configuration error, not a missing object', async () => {
    const bucket = new AzureBucket({
      accountName: azurite.accountName,
      accountKey: azurite.accountKey,
      containerName: 'no-such-container',
      endpointSuffix: azurite.endpointSuffix,
    });
    const calls = [
      () => bucket.get('x'),
      () => bucket.upload('x', new Uint8Array([1])),
      () => bucket.list(''),
    ];
    for (const call of calls) {
      const err: unknown = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ObjectStoreError);
      expect(err).not.toBeInstanceOf(ObjectNotFoundError);
      expect(String(err)).toContain('"no-such-container"');
    }
  });
});
