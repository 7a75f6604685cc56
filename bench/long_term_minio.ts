// A MinIO server for the long-term benchmark, when a binary is in the services cache the
// integration tests build it into (`$STRATA_SERVICES_CACHE`, else ~/.cache/strata-services/bin;
// integration/services/minio.ts is the model): one server on a free loopback port with its data
// in a directory the caller owns, one bucket, and an S3Bucket over it. Never built here.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'minio';
import { S3Bucket } from '../src/runtime/real/index.js';

export interface BenchMinio {
  readonly endpoint: string;
  readonly bucket: S3Bucket;
  stop(): Promise<void>;
}

const ACCESS_KEY = 'strata-bench';
const SECRET_KEY = 'strata-bench-secret';
const BUCKET = 'strata-bench';

/** The MinIO binary of the services cache, or undefined when it has not been built. */
export function minioBinary(): string | undefined {
  const fromEnv = process.env['STRATA_SERVICES_CACHE'];
  const dir =
    fromEnv !== undefined && fromEnv !== ''
      ? fromEnv
      : join(homedir(), '.cache', 'strata-services', 'bin');
  const bin = join(dir, 'minio');
  return existsSync(bin) ? bin : undefined;
}

function freePort(): Promise<number> {
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Starts MinIO with its data in `dataDir` and creates the benchmark's bucket. */
export async function startBenchMinio(bin: string, dataDir: string): Promise<BenchMinio> {
  const port = await freePort();
  const consolePort = await freePort();
  const endpoint = `127.0.0.1:${port}`;
  const proc = spawn(
    bin,
    [
      'server',
      '--quiet',
      '--address',
      endpoint,
      '--console-address',
      `127.0.0.1:${consolePort}`,
      dataDir,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        MINIO_ROOT_USER: ACCESS_KEY,
        MINIO_ROOT_PASSWORD: SECRET_KEY,
        MINIO_BROWSER: 'off',
      },
    },
  );
  let output = '';
  const append = (d: Buffer): void => {
    output = (output + d.toString()).slice(-16_384);
  };
  proc.stdout.on('data', append);
  proc.stderr.on('data', append);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    proc.once('exit', () => {
      exited = true;
      resolve();
    });
    proc.once('error', (err) => {
      exited = true;
      append(Buffer.from(`spawn ${bin} failed: ${err.message}\n`));
      resolve();
    });
  });
  const stop = async (): Promise<void> => {
    if (!exited) proc.kill('SIGTERM');
    const timer = setTimeout(() => {
      if (!exited) proc.kill('SIGKILL');
    }, 5_000);
    await exit;
    clearTimeout(timer);
  };
  try {
    const deadline = performance.now() + 30_000;
    for (;;) {
      if (exited) throw new Error(`minio exited before it was ready:\n${output}`);
      try {
        const res = await fetch(`http://${endpoint}/minio/health/ready`);
        if (res.ok) break;
      } catch {
        // Not listening yet.
      }
      if (performance.now() > deadline) throw new Error(`minio not ready after 30s:\n${output}`);
      await sleep(100);
    }
    const admin = new Client({
      endPoint: '127.0.0.1',
      port,
      useSSL: false,
      accessKey: ACCESS_KEY,
      secretKey: SECRET_KEY,
    });
    await admin.makeBucket(BUCKET);
  } catch (err) {
    await stop();
    throw err;
  }
  const bucket = new S3Bucket({
    endpoint,
    bucketName: BUCKET,
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET_KEY,
    insecure: true,
  });
  return {
    endpoint,
    bucket,
    stop: async () => {
      await bucket.close();
      await stop();
    },
  };
}
