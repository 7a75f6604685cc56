// The write and read path wired by -target, in process: one Strata per node over an
// in-memory network and one shared in-memory KV store, so components find each other
// through the ring exactly as separate processes do. Shared by the app's wiring tests.
import { compress } from 'snappyjs';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { type Config, defaultConfig } from '../config/index.js';
import { buildWriteRequest, encodeWriteRequest, type PlainSeries } from '../distributor/index.js';
import {
  createSeededRandom,
  newMetricsRegistry,
  type Env,
  type KV,
  type KVSpec,
} from '../runtime/index.js';
import {
  MemoryBucket,
  MemoryCache,
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
} from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { dispatchInProcess } from '../server/index.js';
import { Strata } from './strata.js';

export const T0 = 1_700_000_000_000;

export interface Cluster {
  /** Every node started, in start order; `stopCluster` stops them in reverse. */
  readonly running: Strata[];
  readonly net: MemoryNetwork;
  readonly store: MemoryKVStore;
  readonly clock: ManualClock;
  readonly disks: Map<string, DiskFileSystem>;
  /** The cluster's object store, shared by every node. */
  readonly bucket: MemoryBucket;
}

export function cluster(): Cluster {
  const clock = new ManualClock(T0);
  return {
    running: [],
    net: new MemoryNetwork(),
    store: new MemoryKVStore(),
    clock,
    disks: new Map(),
    bucket: new MemoryBucket({ clock }),
  };
}

export function nodeEnv(c: Cluster, name: string): Env {
  let fs = c.disks.get(name);
  if (fs === undefined) {
    fs = new DiskFileSystem();
    c.disks.set(name, fs);
  }
  const metrics = newMetricsRegistry();
  return {
    nodeName: name,
    clock: c.clock,
    random: createSeededRandom(name),
    fs,
    transport: c.net.transport(name),
    buckets: { open: () => c.bucket },
    kvs: {
      open: (spec: KVSpec, prefix: string): KV => {
        if (spec.store !== 'inmemory') throw new Error(`unexpected store ${spec.store}`);
        return new MemoryKV({ prefix }, { store: c.store });
      },
    },
    caches: {
      // In-memory LRUs (the store-gateway's index cache, the frontend's FIFO cache); nothing
      // uses memcached. Their `thanos_cache_inmemory_*` metrics go to the node's registry.
      open: (name, spec) => {
        if (spec.backend !== 'inmemory') throw new Error('no memcached in this test');
        return new MemoryCache(
          { name, maxSizeBytes: spec.maxSizeBytes },
          { clock: c.clock, registry: metrics },
        );
      },
    },
    logger: new CapturingLogger(),
    metrics,
  };
}

export function nodeConfig(target: string, edit: (c: Config) => void = () => undefined): Config {
  const config = defaultConfig();
  config.target = target;
  config.ingester.lifecycler.ring.kvstore.store = 'inmemory';
  config.ingester.lifecycler.ring.replication_factor = 3;
  config.tsdb.dir = '/data/tsdb';
  config.tsdb.backend = 'filesystem';
  config.tsdb.filesystem.dir = '/data/blocks';
  edit(config);
  return config;
}

export async function startNode(c: Cluster, name: string, config: Config): Promise<Strata> {
  const strata = await Strata.create(config, nodeEnv(c, name));
  c.running.push(strata);
  await strata.start();
  return strata;
}

/** Calls one of the node's HTTP routes without a socket. */
export async function request(
  strata: Strata,
  method: string,
  path: string,
  body?: Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const lower: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const answer = await dispatchInProcess(strata.httpHandler, {
    method,
    url: path,
    headers: lower,
    body: body ?? new Uint8Array(0),
    remoteAddress: 'test-client',
  });
  return { status: answer.status, text: new TextDecoder().decode(answer.body) };
}

export function pushBody(series: PlainSeries[]): Uint8Array {
  return compress(encodeWriteRequest(buildWriteRequest({ series })));
}

export const PUSH_HEADERS = {
  'Content-Type': 'application/x-protobuf',
  'Content-Encoding': 'snappy',
  'X-Prometheus-Remote-Write-Version': '0.1.0',
};

export function series(name: string, job: string, points: [number, number][]): PlainSeries {
  return {
    labels: [
      ['__name__', name],
      ['job', job],
    ],
    samples: points.map(([timestamp, value]) => ({ timestamp, value })),
  };
}

/** Stops every node of the cluster, last started first. */
export async function stopCluster(c: Cluster): Promise<void> {
  for (const s of c.running.splice(0).reverse()) await s.stop();
}
