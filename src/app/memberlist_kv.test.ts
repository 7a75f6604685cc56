import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACTOR_RING_KEY } from '../compactor/index.js';
import { type Config, defaultConfig } from '../config/index.js';
import { decodeReplicaDesc, encodeReplicaDesc } from '../distributor/index.js';
import { JSON_RING_CODEC } from '../ring/index.js';
import {
  type Env,
  type KV,
  type KVSpec,
  createSeededRandom,
  newMetricsRegistry,
  openMemberlistClient,
} from '../runtime/index.js';
import { MemoryBucket, MemoryCache, MemoryNetwork } from '../runtime/memory/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { STORE_GATEWAY_RING_KEY } from '../storegateway/index.js';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { DISTRIBUTOR_RING_KEY, INGESTER_RING_KEY } from './ring_client.js';
import { ringStoresInUse } from './ring_kv.js';
import { Strata } from './strata.js';

/**
 * Two in-process Strata instances (-target=all) whose every ring and HA tracker store is
 * memberlist (`gossip`, the reference's name): they find each other through -memberlist.join
 * on the shared in-memory network and converge on every ring.
 */
let clock = new ManualClock(1_700_000_000_000);
let network = new MemoryNetwork();
let bucket = new MemoryBucket({ clock });
const running: Strata[] = [];

beforeEach(() => {
  clock = new ManualClock(1_700_000_000_000);
  network = new MemoryNetwork();
  bucket = new MemoryBucket({ clock });
});

afterEach(async () => {
  for (const s of running.splice(0).reverse()) await ticking(s.stop());
});

/** Moves the shared clock on while `p` is pending (ring members poll, memberlist gossips). */
async function ticking<T>(p: Promise<T>): Promise<T> {
  let done = false;
  const settled = p.finally(() => (done = true));
  while (!done) {
    await clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return settled;
}

/** Advances the shared clock by `ms` in gossip-sized steps. */
async function advance(ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    await clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

interface Node {
  strata: Strata;
  opened: { spec: KVSpec; prefix: string }[];
}

function memberlistConfig(edit: (c: Config) => void): Config {
  const config = defaultConfig();
  for (const kv of [
    config.ingester.lifecycler.ring.kvstore,
    config.distributor.ring.kvstore,
    config.distributor.ha_tracker.kvstore,
    config.store_gateway.sharding_ring.kvstore,
    config.compactor.sharding_ring.kvstore,
  ])
    kv.store = 'memberlist';
  config.limits.ingestion_rate_strategy = 'global';
  config.distributor.ha_tracker.enable_ha_tracker = true;
  config.store_gateway.sharding_enabled = true;
  config.store_gateway.sharding_ring.wait_stability_min_duration = 0;
  config.compactor.sharding_enabled = true;
  config.compactor.sharding_ring.wait_stability_min_duration = 0;
  config.ingester.lifecycler.min_ready_duration = 0;
  config.tsdb.backend = 'filesystem';
  config.tsdb.filesystem.dir = '/data/blocks';
  config.memberlist.randomize_node_name = false;
  edit(config);
  return config;
}

async function startNode(name: string, edit: (c: Config) => void = () => undefined): Promise<Node> {
  const opened: { spec: KVSpec; prefix: string }[] = [];
  const env: Env = {
    nodeName: name,
    clock,
    random: createSeededRandom(`memberlist-app-${name}`),
    fs: new DiskFileSystem(),
    transport: network.transport(name),
    buckets: { open: () => bucket },
    kvs: {
      open: (spec: KVSpec, prefix: string): KV => {
        opened.push({ spec, prefix });
        if (spec.store !== 'memberlist')
          throw new Error(`kv store "${spec.store}" is not expected in this test`);
        return openMemberlistClient(spec, prefix);
      },
    },
    caches: {
      // The store-gateway's index cache is an in-memory LRU by default; nothing uses memcached.
      open: (name, spec) => {
        if (spec.backend !== 'inmemory') throw new Error('no memcached in this test');
        return new MemoryCache({ name, maxSizeBytes: spec.maxSizeBytes }, { clock: clock });
      },
    },
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  };
  const strata = await Strata.create(memberlistConfig(edit), env);
  await ticking(strata.start());
  running.push(strata);
  return { strata, opened };
}

async function ringIds(kv: KV | undefined, key: string): Promise<string[]> {
  if (kv === undefined) throw new Error('ring store not opened');
  return Object.keys(JSON_RING_CODEC.decode(await kv.get(key)).ingesters).sort();
}

describe('the app on the memberlist KV', () => {
  it('opens every ring and the HA tracker through the process memberlist KV, with their codecs', async () => {
    const { strata, opened } = await startNode('solo');
    const ml = strata.context.memberlistKV;
    expect(ml).toBeDefined();
    const stores = ringStoresInUse(strata.config, strata.modules.order);
    expect(stores.map((s) => s.slot)).toEqual([
      'ingester',
      'distributor',
      'haTracker',
      'storeGateway',
      'compactor',
    ]);
    // The ingester ring is opened once for all its users; each spec names the process's KV.
    expect(opened.map((o) => [o.prefix, o.spec.store === 'memberlist' && o.spec.codec])).toEqual([
      ['collectors/', 'ringDesc'],
      ['collectors/', 'ringDesc'],
      ['ha-tracker/', 'replicaDesc'],
      ['collectors/', 'ringDesc'],
      ['collectors/', 'ringDesc'],
    ]);
    for (const o of opened)
      expect(o.spec.store === 'memberlist' && o.spec.memberlistKV?.()).toBe(ml);
    expect(ml!.status().phase).toBe('running');
  });

  it('does not run a memberlist KV when no ring store in use is memberlist', async () => {
    const { strata } = await startNode('plain', (c) => {
      c.target = 'compactor';
      c.compactor.sharding_enabled = false;
    });
    expect(strata.context.memberlistKV).toBeUndefined();
    const res = await get(strata, '/memberlist');
    expect(res.status).toBe(503);
  });

  it('two instances joined by -memberlist.join see each other in every ring and share HA tracker state', async () => {
    const a = await startNode('a');
    const b = await startNode('b', (c) => (c.memberlist.join_members = ['a']));
    // Distributors join their ring themselves (the global rate limit divides by them).
    await advance(5_000);
    for (const node of [a, b]) {
      const rings = node.strata.context.rings!;
      expect(await ringIds(rings.ingester, INGESTER_RING_KEY)).toEqual(['a', 'b']);
      expect(await ringIds(rings.distributor, DISTRIBUTOR_RING_KEY)).toEqual(['a', 'b']);
      expect(node.strata.context.distributorRing?.healthyInstancesCount()).toBe(2);
      expect(await ringIds(rings.storeGateway, STORE_GATEWAY_RING_KEY)).toEqual(['a', 'b']);
      expect(await ringIds(rings.compactor, COMPACTOR_RING_KEY)).toEqual(['a', 'b']);
      expect(node.strata.context.ingesterRing?.healthyInstancesCount()).toBe(2);
    }

    // An HA election on a reaches b's tracker store as a replicaDesc.
    const elected = { replica: 'replica-1', receivedAt: clock.now(), deletedAt: 0 };
    await a.strata.context.rings!.haTracker!.cas('user-1/cluster-a', () =>
      encodeReplicaDesc(elected),
    );
    await advance(2_000);
    const seen = await b.strata.context.rings!.haTracker!.get('user-1/cluster-a');
    expect(seen && decodeReplicaDesc(seen)).toEqual(elected);

    // The status page over HTTP: both members alive, every gossiped key with its version.
    const page = await get(b.strata, '/memberlist');
    expect(page.status).toBe(200);
    expect(page.body).toContain('<td>a</td><td>a</td><td>ALIVE</td>');
    expect(page.body).toContain('<td>b</td><td>b</td><td>ALIVE</td>');
    for (const key of [
      'collectors/ring',
      'collectors/distributor',
      'collectors/store-gateway',
      'collectors/compactor',
      'ha-tracker/user-1/cluster-a',
    ])
      expect(page.body).toContain(`>${key}</a>`);
    const status = JSON.parse((await get(b.strata, '/memberlist?format=json')).body) as {
      numMembers: number;
      keys: { key: string; codec: string; version: number }[];
    };
    expect(status.numMembers).toBe(2);
    expect(status.keys.find((k) => k.key === 'ha-tracker/user-1/cluster-a')).toMatchObject({
      codec: 'replicaDesc',
      version: 1,
    });

    // b stops cleanly: it leaves the rings and the cluster, and a sees both.
    await ticking(b.strata.stop());
    running.splice(running.indexOf(b.strata), 1);
    await advance(2_000);
    const rings = a.strata.context.rings!;
    expect(await ringIds(rings.storeGateway, STORE_GATEWAY_RING_KEY)).toEqual(['a']);
    expect(
      a.strata.context
        .memberlistKV!.status()
        .members.map((m) => `${m.name}=${m.state}`)
        .sort(),
    ).toEqual(['a=alive', 'b=left']);
  });
});

async function get(strata: Strata, path: string): Promise<{ status: number; body: string }> {
  const server = createServer(strata.httpHandler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return { status: res.status, body: await res.text() };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
