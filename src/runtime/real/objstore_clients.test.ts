/**
 * The object-store clients without a server: URL and endpoint rules, the S3 listing parser,
 * and what a caller sees when nothing listens at the endpoint. The contract against real
 * servers (MinIO, fake-gcs-server, azurite) runs in integration/objstore-*.test.ts.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ObjectStoreError } from '../bucket.js';
import { AzureBucket, azureServiceUrl } from './azure_bucket.js';
import { GcsBucket } from './gcs_bucket.js';
import { S3Bucket } from './s3_bucket.js';
import { parseListObjectsV2 } from './s3_list.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

async function failure(p: Promise<unknown>): Promise<ObjectStoreError> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ObjectStoreError);
  return err as ObjectStoreError;
}

describe('azureServiceUrl', () => {
  it('prefixes the account to the suffix, or puts it in the path for an IP or localhost', () => {
    expect(azureServiceUrl('acct', '')).toBe('https://acct.blob.core.windows.net');
    expect(azureServiceUrl('acct', 'blob.core.chinacloudapi.cn')).toBe(
      'https://acct.blob.core.chinacloudapi.cn',
    );
    expect(azureServiceUrl('devstoreaccount1', '127.0.0.1:10000')).toBe(
      'http://127.0.0.1:10000/devstoreaccount1',
    );
    expect(azureServiceUrl('devstoreaccount1', 'localhost:10000')).toBe(
      'http://localhost:10000/devstoreaccount1',
    );
    expect(() => azureServiceUrl('acct', 'https://x.example')).toThrow(/without scheme/);
  });
});

describe('parseListObjectsV2', () => {
  it('keeps keys that look like numbers as they are and decodes url-encoded names', () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>b</Name>' +
      '<Contents><Key>0</Key><Size>1</Size></Contents>' +
      '<Contents><Key>007</Key><Size>1</Size></Contents>' +
      '<Contents><Key>1e5</Key><Size>1</Size></Contents>' +
      '<Contents><Key>tenant+a%2Fbl%C3%B6ck%2B1</Key><Size>1</Size></Contents>' +
      '<CommonPrefixes><Prefix>01ABC%2F</Prefix></CommonPrefixes>' +
      '<IsTruncated>true</IsTruncated><NextContinuationToken>t&amp;1</NextContinuationToken>' +
      '</ListBucketResult>';
    expect(parseListObjectsV2(xml)).toEqual({
      entries: ['0', '007', '1e5', 'tenant a/blöck+1', '01ABC/'],
      next: 't&1',
    });
    expect(
      parseListObjectsV2('<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>'),
    ).toEqual({ entries: [], next: undefined });
  });
});

describe('object-store clients with nothing at the endpoint', () => {
  it('s3: a retryable connection error naming the bucket and endpoint', async () => {
    const port = await closedPort();
    const bucket = new S3Bucket({
      endpoint: `127.0.0.1:${port}`,
      bucketName: 'blocks',
      accessKeyId: 'a',
      secretAccessKey: 's',
      insecure: true,
    });
    const err = await failure(bucket.get('tenant/meta.json'));
    expect(err.message).toContain(`s3 bucket "blocks" at http://127.0.0.1:${port}`);
    expect(err.message).toContain('get "tenant/meta.json"');
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.retryable).toBe(true);
  });

  it('s3: an endpoint with a scheme is rejected up front, naming bucket and value', () => {
    expect(
      () =>
        new S3Bucket({
          endpoint: 'https://s3.example.com',
          bucketName: 'blocks',
          accessKeyId: '',
          secretAccessKey: '',
          insecure: false,
        }),
    ).toThrow(/s3 bucket "blocks": invalid endpoint "https:\/\/s3.example.com"/);
  });

  it('gcs: a retryable connection error naming the bucket and emulator endpoint', async () => {
    const port = await closedPort();
    const bucket = new GcsBucket({
      bucketName: 'blocks',
      serviceAccount: '',
      emulatorHost: `http://127.0.0.1:${port}`,
    });
    const err = await failure(bucket.exists('x'));
    expect(err.message).toContain(`gcs bucket "blocks" at http://127.0.0.1:${port}`);
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.retryable).toBe(true);
  });

  it('gcs: a service account that is not JSON is named without echoing it', () => {
    expect(() => new GcsBucket({ bucketName: 'blocks', serviceAccount: 'secret' })).toThrow(
      /gcs bucket "blocks": service_account is not valid JSON/,
    );
    expect(() => new GcsBucket({ bucketName: 'blocks', serviceAccount: 'secret' })).not.toThrow(
      /secret/,
    );
  });

  it('azure: a retryable connection error naming the container and URL', async () => {
    const port = await closedPort();
    const bucket = new AzureBucket({
      accountName: 'devstoreaccount1',
      accountKey: Buffer.from('key').toString('base64'),
      containerName: 'blocks',
      endpointSuffix: `127.0.0.1:${port}`,
    });
    const err = await failure(bucket.list(''));
    expect(err.message).toContain(
      `azure container "blocks" at http://127.0.0.1:${port}/devstoreaccount1`,
    );
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.retryable).toBe(true);
  });
});
