import {
  MemoryCache,
  newMetricsRegistry,
  openMemberlistClient,
  type Bucket,
  type BucketSpec,
  type Cache,
  type CacheSpec,
  type Env,
  type KV,
  type KVSpec,
  type MetricsRegistry,
  type Random,
  type RandomStream,
} from '../../src/runtime/index.js';
import type { Incarnation } from '../kernel/index.js';
import { CapturedLogger } from './captured_logger.js';
import type { LatencySpec } from './latency.js';
import { ServiceLink } from './service_call.js';
import { SimBucket } from './sim_bucket.js';
import { SimCache } from './sim_cache.js';
import { SimClock } from './sim_clock.js';
import type { SimDisk } from './sim_disk.js';
import { SimFileSystem } from './sim_filesystem.js';
import { SimKV } from './sim_kv.js';
import { openSimMemcachedClient } from './sim_memcached_server.js';
import { SimMemcachedDialer } from './sim_memcached_stream.js';
import {
  CACHE_SERVICE,
  KV_SERVICE,
  OBJECT_STORE_SERVICE,
  type SimServices,
} from './sim_services.js';
import { SimTransport } from './sim_transport.js';
import type { SimHttp, SimHttpNetwork } from './sim_http.js';

export interface SimNodeEnvOptions {
  owner: Incarnation;
  disk: SimDisk;
  /** This node's clock skew, read on every `now()` (a fault may change it). */
  skewMs: () => number;
  /** The cluster's HTTP plane: the process listens and calls HTTP through it. */
  http: SimHttpNetwork;
}

export interface SimNodeEnv extends Env {
  readonly transport: SimTransport;
  readonly fs: SimFileSystem;
  readonly metrics: MetricsRegistry;
  /** HTTP over the simulated network: a listener at the node's name and a client. */
  readonly http: SimHttp;
}

/**
 * Builds the Env of one process incarnation on a simulated node: everything it gets is bound
 * to the kernel and owned by the incarnation, so a crash silences all of it at once. Each
 * incarnation gets a fresh metrics registry (a new process starts from zero), the same disk,
 * and its own random streams (`node/<name>` forked per incarnation and stream name).
 */
export function createSimNodeEnv(services: SimServices, opts: SimNodeEnvOptions): SimNodeEnv {
  const { kernel } = services.deps;
  const { owner } = opts;
  const root = services.deps.random;
  const clock = new SimClock({ skewMs: opts.skewMs }, { kernel, owner });
  // fork() derives from the stream's seed only (no draws), so nodes never shift each other.
  const nodeStream = root.stream(`node/${owner.node}`).fork(`incarnation/${owner.number}`);
  const streams = new Map<string, RandomStream>();
  const random: Random = {
    stream(name: string): RandomStream {
      let s = streams.get(name);
      if (s === undefined) {
        s = nodeStream.fork(name);
        streams.set(name, s);
      }
      return s;
    },
  };
  const metrics = newMetricsRegistry();
  const link = (service: string, stream: string, latency: ServiceLinkLatency): ServiceLink =>
    new ServiceLink(
      { service, latency: latency.latency, errorRate: latency.errorRate },
      {
        kernel,
        network: services.network,
        health: services.health,
        owner,
        random: root.stream(stream),
      },
    );
  const config = services.config;
  const logger = new CapturedLogger(
    { node: owner.node, incarnation: owner.number, bindings: {} },
    { sink: services.logs, now: () => kernel.now() },
  );
  // One dialer per incarnation: its connections die with the process.
  const memcached = services.memcached;
  const network = services.network;
  const dialer =
    memcached && new SimMemcachedDialer({ kernel, network, owner, cluster: memcached });
  return {
    nodeName: owner.node,
    clock,
    random,
    fs: new SimFileSystem(
      { opLatency: config.disk.opLatency, syncLatency: config.disk.syncLatency },
      { kernel, owner, disk: opts.disk, random: root.stream('disk') },
    ),
    transport: new SimTransport({ kernel, network: services.network, owner }),
    http: opts.http.forProcess(owner),
    buckets: {
      open(spec: BucketSpec): Bucket {
        return new SimBucket(
          services.objectStore(spec),
          link(OBJECT_STORE_SERVICE, 'bucket', config.objectStore),
          owner.node,
        );
      },
    },
    kvs: {
      open(spec: KVSpec, prefix: string): KV {
        // Gossip runs between the nodes' own transports: no shared store involved.
        if (spec.store === 'memberlist') return openMemberlistClient(spec, prefix);
        return new SimKV(
          { prefix },
          {
            kernel,
            store: services.kvStore(spec),
            link: link(KV_SERVICE, 'kv', config.kv),
            random: nodeStream.fork(`kv-cas-retry/${prefix}`),
          },
        );
      },
    },
    caches: {
      open(name: string, spec: CacheSpec): Cache {
        if (spec.backend === 'inmemory') {
          // Process memory: no network, and gone with the process.
          return new MemoryCache(
            { name, maxSizeBytes: spec.maxSizeBytes },
            { clock, registry: metrics },
          );
        }
        if (memcached !== undefined && dialer !== undefined) {
          const deps = { kernel, owner, clock, logger, metrics, cluster: memcached, dialer };
          return openSimMemcachedClient(name, spec, deps);
        }
        return new SimCache(services.cacheServer(spec), link(CACHE_SERVICE, 'cache', config.cache));
      },
    },
    logger,
    metrics,
  };
}

interface ServiceLinkLatency {
  latency: LatencySpec;
  errorRate: number;
}
