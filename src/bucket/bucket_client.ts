import type {
  Bucket,
  BucketProvider,
  BucketSpec,
  Clock,
  Logger,
  MetricsRegistry,
  RandomStream,
} from '../runtime/index.js';
import { InstrumentedBucket, type InstrumentedBucketConfig } from './instrumented_bucket.js';
import { retryConfigFor, type RetryConfig } from './retry_policy.js';
import { RetryingBucket } from './retrying_bucket.js';

export interface BucketClientDeps {
  /** The Env's provider: real backends in a process, simulated ones in the simulator. */
  buckets: BucketProvider;
  clock: Clock;
  registry: MetricsRegistry;
  logger?: Logger;
  /** Backoff jitter (e.g. `env.random.stream('bucket-retry')`); none: exact backoff. */
  random?: RandomStream;
}

export interface BucketClientOptions {
  /** Retry settings instead of `retryConfigFor(spec)`'s (fields given replace the defaults). */
  retry?: Partial<RetryConfig>;
  /** objstore's `bucket` label; Cortex's value is ''. */
  bucketLabel?: string;
  isExpectedError?: InstrumentedBucketConfig['isExpectedError'];
}

/**
 * A component's bucket client, as Cortex's `bucket.NewClient(cfg, component, …)` builds it:
 * the backend the spec names, retried (retryable errors only, with backoff and per-attempt
 * timeouts) and instrumented with the `thanos_objstore_bucket_*` metrics labelled by
 * `component`. Metrics wrap retries, so one call counts once however often it was tried.
 */
export function openBucketClient(
  spec: BucketSpec,
  component: string,
  deps: BucketClientDeps,
  opts: BucketClientOptions = {},
): Bucket {
  const raw = deps.buckets.open(spec);
  const retrying = new RetryingBucket(raw, retryConfigFor(spec, opts.retry), {
    clock: deps.clock,
    ...(deps.random === undefined ? {} : { random: deps.random }),
    ...(deps.logger === undefined
      ? {}
      : { logger: deps.logger.child({ module: 'bucket', component }) }),
  });
  return new InstrumentedBucket(
    retrying,
    {
      component,
      ...(opts.bucketLabel === undefined ? {} : { bucketLabel: opts.bucketLabel }),
      ...(opts.isExpectedError === undefined ? {} : { isExpectedError: opts.isExpectedError }),
    },
    { clock: deps.clock, registry: deps.registry },
  );
}
