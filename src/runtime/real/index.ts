/**
 * The real runtime: the Env of a production process (wall-clock time, a crypto-seeded PRNG,
 * node:fs, HTTP between processes, pino, a prom-client registry with process metrics), the
 * filesystem bucket and the S3/GCS/Azure object-store clients, TCP and DNS for the memcached
 * cache client, the HTTP listener the API server uses, and the pprof profiler. This is
 * the only code outside the simulation kernel allowed to touch nondeterministic globals and
 * real IO. Only the app and CLI wiring import it; components and `sim/` must never do so.
 */
export { RealClock, type RealClockConfig } from './real_clock.js';
export { createRealRandom } from './real_random.js';
export { NodeFileSystem, toFileSystemError } from './node_filesystem.js';
export { FilesystemBucket } from './filesystem_bucket.js';
export { S3Bucket, type S3BucketConfig } from './s3_bucket.js';
export { GcsBucket, type GcsBucketConfig } from './gcs_bucket.js';
export { AzureBucket, azureServiceUrl, type AzureBucketConfig } from './azure_bucket.js';
export {
  HttpTransport,
  DEFAULT_MAX_RPC_BODY_BYTES,
  type HttpTransportConfig,
} from './http_transport.js';
export { RPC_STATUS, parseAddress, formatAddress } from './rpc_wire.js';
export { listenHttp, type HttpListener } from './listen_http.js';
export { createRealLogger, type RealLoggerOptions } from './real_logger.js';
export { createRealMetricsRegistry } from './real_metrics.js';
export { RealBucketProvider, RealKVProvider, RealCacheProvider } from './providers.js';
export { NetDialer } from './memcached_dialer.js';
export { NodeResolver } from './dns_resolver.js';
export { EtcdKV, DEFAULT_ETCD_MAX_CAS_RETRIES, type EtcdKVConfig } from './etcd_kv.js';
export { createRealEnv, defaultNodeName, type RealEnvOptions } from './real_env.js';
export { NodeProfiler, type NodeProfilerConfig } from './profiler.js';
export { PprofCodec, type PprofProfile } from './pprof_schema.js';
export { WorkerComputePool, defaultWorkerCount } from './worker_pool.js';
