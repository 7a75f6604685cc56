import { hostname } from 'node:os';
import type { Env } from '../env.js';
import type { LogLevel } from '../logger.js';
import { HttpTransport } from './http_transport.js';
import { NodeFileSystem } from './node_filesystem.js';
import { RealBucketProvider, RealCacheProvider, RealKVProvider } from './providers.js';
import { RealClock } from './real_clock.js';
import { createRealLogger } from './real_logger.js';
import { createRealMetricsRegistry } from './real_metrics.js';
import { createRealRandom } from './real_random.js';
import { WorkerComputePool } from './worker_pool.js';

export interface RealEnvOptions {
  nodeName: string;
  logLevel: LogLevel;
  /** Where the internal RPC transport listens (`-server.grpc-listen-address/port`). */
  rpc: { host: string; port: number };
  /** Relative FileSystem paths resolve here; the working directory by default. */
  fsRoot?: string;
}

/** The Env of a real process: wall-clock time, the local disk, HTTP between processes. */
export function createRealEnv(opts: RealEnvOptions): Env {
  const logger = createRealLogger({ level: opts.logLevel });
  const clock = new RealClock({}, { logger });
  const metrics = createRealMetricsRegistry();
  return {
    nodeName: opts.nodeName,
    clock,
    random: createRealRandom(),
    fs: new NodeFileSystem(opts.fsRoot),
    // Peers reach a process listening on every interface by its node name (the host name).
    transport: new HttpTransport(
      { ...opts.rpc, advertiseHost: opts.nodeName },
      { logger: logger.child({ module: 'rpc' }) },
    ),
    buckets: new RealBucketProvider({ clock }),
    kvs: new RealKVProvider({ logger: logger.child({ module: 'kv' }), clock, registry: metrics }),
    caches: new RealCacheProvider({ clock, registry: metrics, logger }),
    logger,
    metrics,
    compute: new WorkerComputePool(),
  };
}

/** The machine's host name: the default node name of a real process (Cortex uses it too). */
export function defaultNodeName(): string {
  return hostname();
}
