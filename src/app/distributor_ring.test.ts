// The global ingestion-rate strategy across processes: two distributors and an ingester, one
// Strata each over an in-memory network and one shared in-memory KV store, so the distributors
// count each other in the distributor ring exactly as separate processes do.
import { compress } from 'snappyjs';
import { afterEach, describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { type Config, defaultConfig } from '../config/index.js';
import { buildWriteRequest, encodeWriteRequest } from '../distributor/index.js';
import {
  createSeededRandom,
  newMetricsRegistry,
  type Env,
  type KV,
  type KVSpec,
} from '../runtime/index.js';
import { MemoryBucket, MemoryKV, MemoryKVStore, MemoryNetwork } from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { Strata } from './strata.js';

const T0 = 1_700_000_000_000;
/** The tenant's whole rate: each of two distributors allows half, one alone all of it. */
const RATE = 20;
const BURST = 10;
/** The rate limiter re-reads a tenant's limit (and the distributor count) this often. */
const RECHECK_MS = 10_000;

const running: Strata[] = [];
afterEach(async () => {
  for (const s of running.splice(0).reverse()) await s.stop();
});

interface Cluster {
  readonly net: MemoryNetwork;
  readonly store: MemoryKVStore;
  readonly clock: ManualClock;
  readonly bucket: MemoryBucket;
  /** Nodes whose KV writes are lost (a hung process: its heartbeats never land). */
  readonly hung: Set<string>;
}

function cluster(): Cluster {
  const clock = new ManualClock(T0);
  return {
    net: new MemoryNetwork(),
    store: new MemoryKVStore(),
    clock,
    bucket: new MemoryBucket({ clock }),
    hung: new Set(),
  };
}

/** A node's view of the shared KV store; while the node is hung its writes go nowhere. */
function nodeKV(c: Cluster, name: string, prefix: string): KV {
  const kv = new MemoryKV({ prefix }, { store: c.store });
  return {
    get: (key, signal) => kv.get(key, signal),
    list: (p, signal) => kv.list(p, signal),
    cas: (key, update, signal) =>
      c.hung.has(name) ? Promise.resolve() : kv.cas(key, update, signal),
    delete: (key, signal) => (c.hung.has(name) ? Promise.resolve() : kv.delete(key, signal)),
    watchKey: (key, signal, onChange) => kv.watchKey(key, signal, onChange),
    watchPrefix: (p, signal, onChange) => kv.watchPrefix(p, signal, onChange),
    close: () => kv.close(),
  };
}

function nodeEnv(c: Cluster, name: string): Env {
  return {
    nodeName: name,
    clock: c.clock,
    random: createSeededRandom(name),
    fs: new DiskFileSystem(),
    transport: c.net.transport(name),
    buckets: { open: () => c.bucket },
    kvs: {
      open: (spec: KVSpec, prefix: string): KV => {
        if (spec.store !== 'inmemory') throw new Error(`unexpected store ${spec.store}`);
        return nodeKV(c, name, prefix);
      },
    },
    caches: {
      open: () => {
        throw new Error('no caches in this test');
      },
    },
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  };
}

function nodeConfig(target: string, name: string): Config {
  const config = defaultConfig();
  config.target = target;
  config.ingester.lifecycler.id = name;
  config.ingester.lifecycler.ring.kvstore.store = 'inmemory';
  config.ingester.lifecycler.ring.replication_factor = 1;
  config.tsdb.dir = '/data/tsdb';
  config.tsdb.backend = 'filesystem';
  config.tsdb.filesystem.dir = '/data/blocks';
  config.limits.ingestion_rate_strategy = 'global';
  config.limits.ingestion_rate = RATE;
  config.limits.ingestion_burst_size = BURST;
  config.distributor.ring.kvstore.store = 'inmemory';
  config.distributor.ring.instance_id = name;
  config.distributor.ring.heartbeat_period = 1_000;
  config.distributor.ring.heartbeat_timeout = 5_000;
  return config;
}

async function startNode(c: Cluster, name: string, target: string): Promise<Strata> {
  const strata = await Strata.create(nodeConfig(target, name), nodeEnv(c, name));
  running.push(strata);
  await strata.start();
  return strata;
}

/** Calls one of the node's HTTP routes over a loopback socket. */
async function request(
  strata: Strata,
  method: string,
  path: string,
  body?: Uint8Array,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  const { createServer } = await import('node:http');
  const server = createServer(strata.httpHandler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    return { status: res.status, text: await res.text() };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Pushes `n` samples of one fresh series each, with timestamps unique across the test. */
function pusher(): (d: Strata, n: number) => Promise<{ status: number; text: string }> {
  let next = 0;
  return (d, n) => {
    const samples = Array.from({ length: n }, () => ({ timestamp: T0 + next++, value: 1 }));
    const series = [{ labels: [['__name__', 'up'] as [string, string]], samples }];
    const body = compress(encodeWriteRequest(buildWriteRequest({ series })));
    return request(d, 'POST', '/api/v1/push', body, {
      'Content-Type': 'application/x-protobuf',
      'Content-Encoding': 'snappy',
      'X-Prometheus-Remote-Write-Version': '0.1.0',
      'X-Scope-OrgID': 'team-a',
    });
  };
}

async function twoDistributors(): Promise<{
  c: Cluster;
  d1: Strata;
  d2: Strata;
  push: ReturnType<typeof pusher>;
}> {
  const c = cluster();
  await startNode(c, 'ingester-1', 'ingester');
  await c.clock.advance(0); // join_after 0: the ingester claims its tokens
  const d1 = await startNode(c, 'distributor-1', 'distributor');
  const d2 = await startNode(c, 'distributor-2', 'distributor');
  await c.clock.advance(0);
  return { c, d1, d2, push: pusher() };
}

/** The ring page's row of an ACTIVE instance with the given health (id, zone, state, health). */
const row = (id: string, health: 'HEALTHY' | 'UNHEALTHY'): RegExp =>
  new RegExp(`<td>${id}</td><td>[^<]*</td><td>ACTIVE</td><td>${health}</td>`);

const limited = (limit: number, samples: number): string =>
  `ingestion rate limit (${limit}) exceeded while adding ${samples} samples and 0 metadata`;

describe('the distributor ring with the global ingestion-rate strategy', () => {
  it('two distributors each enforce half the rate; the survivor of a stop enforces all of it', async () => {
    const { c, d1, d2, push } = await twoDistributors();

    for (const d of [d1, d2]) {
      const ring = await request(d, 'GET', '/distributor/ring');
      expect(ring.status, ring.text).toBe(200);
      for (const name of ['distributor-1', 'distributor-2'])
        expect(ring.text).toMatch(row(name, 'HEALTHY'));
    }

    // Each distributor has its own bucket: the whole burst, refilled at RATE / 2.
    for (const d of [d1, d2]) {
      const ok = await push(d, BURST);
      expect(ok.status, ok.text).toBe(200);
      const refused = await push(d, 1);
      expect(refused.status).toBe(429);
      expect(refused.text).toContain(limited(RATE / 2, 1));
    }
    // Half a second refills RATE / 4 = 5 tokens: 5 samples pass, a sixth does not.
    await c.clock.advance(500);
    expect((await push(d1, 5)).status).toBe(200);
    expect((await push(d1, 1)).status).toBe(429);

    // distributor-2 stops and leaves the ring; distributor-1's ring client sees it at once
    // and its rate limiter takes the new count at its next re-read.
    await d2.stop();
    running.splice(running.indexOf(d2), 1);
    await c.clock.advance(0);
    const ring = await request(d1, 'GET', '/distributor/ring');
    expect(ring.text).toMatch(row('distributor-1', 'HEALTHY'));
    expect(ring.text).not.toContain('distributor-2');

    await c.clock.advance(RECHECK_MS);
    expect((await push(d1, BURST)).status).toBe(200);
    const whole = await push(d1, 1);
    expect(whole.status).toBe(429);
    expect(whole.text).toContain(limited(RATE, 1));
    // Now half a second refills RATE / 2 = 10 tokens.
    await c.clock.advance(500);
    const refilled = await push(d1, 10);
    expect(refilled.status, refilled.text).toBe(200);
  });

  it('a hung distributor stops counting once its heartbeat is older than the timeout', async () => {
    const { c, d1, push } = await twoDistributors();
    expect((await push(d1, BURST)).status).toBe(200);
    expect((await push(d1, 1)).text).toContain(limited(RATE / 2, 1));

    // distributor-2's heartbeats stop landing; it stays in the ring, healthy until the
    // heartbeat timeout (5s), so distributor-1 keeps half the rate until then.
    c.hung.add('distributor-2');
    await c.clock.advance(4_000);
    const before = await request(d1, 'GET', '/distributor/ring');
    expect(before.text).toMatch(row('distributor-2', 'HEALTHY'));

    // Past the timeout it is unhealthy; the limiter's next re-read (10s after the bucket was
    // made) takes the count of one.
    await c.clock.advance(RECHECK_MS - 4_000);
    const after = await request(d1, 'GET', '/distributor/ring');
    expect(after.text).toMatch(row('distributor-1', 'HEALTHY'));
    expect(after.text).toMatch(row('distributor-2', 'UNHEALTHY'));
    expect((await push(d1, BURST)).status).toBe(200);
    const whole = await push(d1, 1);
    expect(whole.status).toBe(429);
    expect(whole.text).toContain(limited(RATE, 1));
  });
});
