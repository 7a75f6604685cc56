/**
 * The blocks bucket of this process, from the `tsdb` block: which backend (`backend` and its
 * block) and one instrumented, retrying client per component, as Cortex builds a bucket
 * client per component (the `component` label of the `thanos_objstore_bucket_*` metrics).
 * A backend whose required settings are missing fails the start with the flag to set.
 */
import { openBucketClient } from '../bucket/index.js';
import type { TsdbConfig } from '../config/index.js';
import type { Bucket, BucketSpec } from '../runtime/index.js';
import { BasicService, type Service } from '../services/index.js';
import type { StrataContext } from './context.js';

/** The BucketSpec `tsdb.backend` selects; throws naming the missing setting. */
export function bucketSpecFromConfig(tsdb: TsdbConfig): BucketSpec {
  const need = (value: string, flag: string): string => {
    if (value === '') throw new Error(`tsdb.backend is ${tsdb.backend}, but -${flag} is not set`);
    return value;
  };
  switch (tsdb.backend) {
    case 'filesystem':
      return {
        backend: 'filesystem',
        dir: need(tsdb.filesystem.dir, 'experimental.tsdb.filesystem.dir'),
      };
    case 's3':
      return {
        backend: 's3',
        endpoint: need(tsdb.s3.endpoint, 'experimental.tsdb.s3.endpoint'),
        bucketName: need(tsdb.s3.bucket_name, 'experimental.tsdb.s3.bucket-name'),
        accessKeyId: tsdb.s3.access_key_id,
        secretAccessKey: tsdb.s3.secret_access_key,
        insecure: tsdb.s3.insecure,
      };
    case 'gcs':
      return {
        backend: 'gcs',
        bucketName: need(tsdb.gcs.bucket_name, 'experimental.tsdb.gcs.bucket-name'),
        serviceAccount: tsdb.gcs.service_account,
      };
    case 'azure':
      return {
        backend: 'azure',
        accountName: need(tsdb.azure.account_name, 'experimental.tsdb.azure.account-name'),
        accountKey: tsdb.azure.account_key,
        containerName: need(tsdb.azure.container_name, 'experimental.tsdb.azure.container-name'),
        endpointSuffix: tsdb.azure.endpoint_suffix,
        maxRetries: tsdb.azure.max_retries,
      };
    default:
      throw new Error(`unknown tsdb.backend ${JSON.stringify(tsdb.backend)}`);
  }
}

/** A new bucket client for `component` (its owner closes it). */
export function openComponentBucket(ctx: StrataContext, component: string): Bucket {
  const { env } = ctx;
  return openBucketClient(bucketSpecFromConfig(ctx.config.tsdb), component, {
    buckets: env.buckets,
    clock: env.clock,
    registry: env.metrics,
    logger: env.logger,
    random: env.random.stream(`bucket-retry/${component}`),
  });
}

/** `service`, then `close` (its bucket client) once it stopped. */
export function withClosedBucket(service: Service, close: () => Promise<void>): Service {
  return new BasicService(service.name, {
    starting: async (signal) => {
      await service.start(signal);
    },
    running: (signal) =>
      new Promise<void>((resolve, reject) => {
        service.onFailure?.((err) => reject(err));
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    stopping: async () => {
      try {
        await service.stop();
      } finally {
        await close();
      }
    },
    isReady: () => service.isReady?.(),
  });
}

/**
 * `service` with `subservices` started before it (in order) and stopped after it (in
 * reverse); a failing subservice fails the whole.
 */
export function withSubservices(
  service: Service,
  subservices: readonly Service[],
  /** Started after `service` (and stopped before it): e.g. what feeds it work. */
  followers: readonly Service[] = [],
): Service {
  if (subservices.length === 0 && followers.length === 0) return service;
  const all = [...subservices, service, ...followers];
  return new BasicService(service.name, {
    starting: async (signal) => {
      const started: Service[] = [];
      try {
        for (const s of all) {
          started.push(s);
          await s.start(signal);
        }
      } catch (err) {
        for (const s of started.reverse()) await s.stop();
        throw err;
      }
    },
    running: (signal) =>
      new Promise<void>((resolve, reject) => {
        for (const s of all) s.onFailure?.((err) => reject(err));
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    stopping: async () => {
      for (const s of [...all].reverse()) await s.stop();
    },
    isReady: () => {
      for (const s of all) {
        const reason = s.isReady?.();
        if (reason !== undefined) return reason;
      }
      return undefined;
    },
  });
}
