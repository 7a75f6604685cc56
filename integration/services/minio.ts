/**
 * MinIO (built from its Go module, see go_build.ts) as the S3 service of the integration
 * tests: one server on a free loopback port with its data in a temporary directory, root
 * credentials known to the test, and a helper that creates a fresh bucket per test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import { freePort } from '../strata-process.js';
import { goToolPath, MINIO_TOOL } from './go_build.js';
import { spawnService, waitUntilReady } from './process.js';

export interface MinioService {
  /** `127.0.0.1:<port>`: the s3 backend's `endpoint` (no scheme; `insecure: true`). */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Creates an empty bucket with a name no other call returned. */
  createBucket(prefix?: string): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

export async function startMinio(opts: { readyTimeoutMs?: number } = {}): Promise<MinioService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-minio-'));
  const port = await freePort();
  const consolePort = await freePort();
  const endpoint = `127.0.0.1:${port}`;
  const accessKeyId = 'strata-test';
  const secretAccessKey = 'strata-test-secret';
  // `env` sets the root credentials for the server alone and then execs it (same pid, so
  // stop() signals MinIO itself).
  const svc = spawnService('minio', 'env', [
    `MINIO_ROOT_USER=${accessKeyId}`,
    `MINIO_ROOT_PASSWORD=${secretAccessKey}`,
    'MINIO_BROWSER=off',
    goToolPath(MINIO_TOOL),
    'server',
    '--quiet',
    '--address',
    endpoint,
    '--console-address',
    `127.0.0.1:${consolePort}`,
    dataDir,
  ]);
  try {
    await waitUntilReady(
      svc,
      `http://${endpoint}/minio/health/ready`,
      opts.readyTimeoutMs ?? 30_000,
    );
  } catch (err) {
    await svc.stop(2_000);
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const admin = new Client({
    endPoint: '127.0.0.1',
    port,
    useSSL: false,
    accessKey: accessKeyId,
    secretKey: secretAccessKey,
  });
  let seq = 0;
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    createBucket: async (prefix = 'strata') => {
      const name = `${prefix}-${process.pid}-${++seq}`.toLowerCase();
      await admin.makeBucket(name);
      return name;
    },
    output: () => svc.output(),
    stop: async () => {
      try {
        await svc.stop(5_000);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
