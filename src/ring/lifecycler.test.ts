import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import {
  createSeededRandom,
  MemoryKV,
  MemoryKVStore,
  newMetricsRegistry,
  type KV,
  type MetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { JSON_RING_CODEC } from './codec.js';
import { Lifecycler, type LifecyclerConfig, type LifecyclerDeps } from './lifecycler.js';
import { READ, WRITE, type InstanceState, type RingDesc } from './model.js';
import { Ring } from './ring.js';
import { loadTokensFile } from './tokens.js';

const START = 1_700_000_000_000;

interface World {
  store: MemoryKVStore;
  kv: KV;
  clock: ManualClock;
  logger: CapturingLogger;
  metrics: MetricsRegistry;
  fs: DiskFileSystem;
}

function world(): World {
  const store = new MemoryKVStore();
  return {
    store,
    kv: new MemoryKV({}, { store }),
    clock: new ManualClock(START),
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
    fs: new DiskFileSystem(),
  };
}

function lifecycler(
  w: World,
  over: Partial<LifecyclerConfig> = {},
  deps: Partial<LifecyclerDeps> = {},
): Lifecycler {
  const id = over.id ?? 'ingester-1';
  return new Lifecycler(
    {
      ringName: 'ingester',
      key: 'ring',
      id,
      addr: `${id}:9095`,
      zone: '',
      numTokens: 4,
      heartbeatPeriodMs: 5_000,
      joinAfterMs: 0,
      tokensFilePath: '',
      unregisterOnShutdown: true,
      ...over,
    },
    {
      kv: w.kv,
      clock: w.clock,
      random: createSeededRandom('lifecycler-test'),
      fs: w.fs,
      logger: w.logger,
      metrics: w.metrics,
      ...deps,
    },
  );
}

async function ringDesc(w: World): Promise<RingDesc> {
  return JSON_RING_CODEC.decode(await w.kv.get('ring'));
}

/** Records every state this instance was written with. */
function recordStates(w: World, id: string): InstanceState[] {
  const states: InstanceState[] = [];
  w.store.subscribe((key) => {
    const value = w.store.read(key)?.value;
    const state = JSON_RING_CODEC.decode(value).ingesters[id]?.state;
    if (state !== undefined && states.at(-1) !== state) states.push(state);
  });
  return states;
}

const signal = (): AbortSignal => new AbortController().signal;

describe('Lifecycler', () => {
  it('joins PENDING → JOINING → ACTIVE with generated tokens', async () => {
    const w = world();
    const states = recordStates(w, 'ingester-1');
    const l = lifecycler(w);
    await l.start(signal());
    expect((await ringDesc(w)).ingesters['ingester-1']).toMatchObject({
      state: 'PENDING',
      tokens: [],
      addr: 'ingester-1:9095',
      registeredTimestamp: START / 1000,
    });
    expect(l.isReady()).toMatch(/PENDING/);
    await w.clock.advance(0);
    const inst = (await ringDesc(w)).ingesters['ingester-1'];
    expect(inst?.state).toBe('ACTIVE');
    expect(inst?.tokens).toHaveLength(4);
    expect(inst?.tokens).toEqual([...(inst?.tokens ?? [])].sort((a, b) => a - b));
    expect(states).toEqual(['PENDING', 'JOINING', 'ACTIVE']);
    expect(l.instanceState).toBe('ACTIVE');
    expect(l.isReady()).toBeUndefined();
    await l.stop();
  });

  it('waits join_after before claiming tokens', async () => {
    const w = world();
    const l = lifecycler(w, { joinAfterMs: 30_000 });
    await l.start(signal());
    await w.clock.advance(29_999);
    expect((await ringDesc(w)).ingesters['ingester-1']?.state).toBe('PENDING');
    await w.clock.advance(1);
    expect((await ringDesc(w)).ingesters['ingester-1']?.state).toBe('ACTIVE');
    await l.stop();
  });

  it('heartbeats every period and a ring sees it healthy', async () => {
    const w = world();
    const l = lifecycler(w);
    await l.start(signal());
    await w.clock.advance(0);
    const ring = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 1,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      { kv: w.kv, clock: w.clock, logger: w.logger, metrics: w.metrics },
    );
    await ring.start(signal());
    await w.clock.advance(120_000);
    const inst = (await ringDesc(w)).ingesters['ingester-1'];
    expect(inst?.timestamp).toBe((START + 120_000) / 1000);
    expect(ring.get(12345, WRITE).instances.map((i) => i.id)).toEqual(['ingester-1']);
    expect(
      await w.metrics.getSingleMetricAsString('cortex_member_consul_heartbeats_total'),
    ).toContain('cortex_member_consul_heartbeats_total{name="ingester"} 24');
    await l.stop();
    await ring.stop();
  });

  it('stops heartbeating after stop, so the instance turns unhealthy if it stays', async () => {
    const w = world();
    const l = lifecycler(w, { unregisterOnShutdown: false });
    await l.start(signal());
    await w.clock.advance(0);
    await l.stop();
    const left = (await ringDesc(w)).ingesters['ingester-1'];
    expect(left?.state).toBe('LEAVING');
    expect(left?.tokens).toHaveLength(4);
    await w.clock.advance(60_000);
    expect((await ringDesc(w)).ingesters['ingester-1']?.timestamp).toBe(START / 1000);
    expect(w.clock.pendingTimers).toBe(0);
  });

  it('leaves through LEAVING, runs the flush hook there, then unregisters', async () => {
    const w = world();
    const seen: (InstanceState | undefined)[] = [];
    const l = lifecycler(
      w,
      {},
      {
        onLeaving: async () => {
          seen.push((await ringDesc(w)).ingesters['ingester-1']?.state);
        },
      },
    );
    await l.start(signal());
    await w.clock.advance(0);
    await l.stop();
    expect(seen).toEqual(['LEAVING']);
    expect((await ringDesc(w)).ingesters['ingester-1']).toBeUndefined();
    expect(l.state).toBe('Terminated');
  });

  it('forceUnregister removes the instance even when unregister_on_shutdown is off', async () => {
    const w = world();
    const l = lifecycler(w, { unregisterOnShutdown: false });
    await l.start(signal());
    await w.clock.advance(0);
    await l.forceUnregister();
    expect((await ringDesc(w)).ingesters['ingester-1']).toBeUndefined();
    expect(l.state).toBe('Terminated');
  });

  it('switches ACTIVE ↔ READONLY; READONLY takes reads, not writes', async () => {
    const w = world();
    const members = ['a', 'b', 'c', 'd'].map((id) => lifecycler(w, { id }));
    const [a] = members;
    if (a === undefined) throw new Error('unreachable');
    await Promise.all(members.map((m) => m.start(signal())));
    await w.clock.advance(0);
    const ring = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 3,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      { kv: w.kv, clock: w.clock, logger: w.logger, metrics: w.metrics },
    );
    await ring.start(signal());
    await a.setMode('READONLY');
    await w.clock.advance(0);
    expect((await ringDesc(w)).ingesters['a']?.state).toBe('READONLY');
    expect(a.isReady()).toBeUndefined();
    expect(ring.getAllHealthy(WRITE).map((i) => i.id)).toEqual(['b', 'c', 'd']);
    expect(ring.getAllHealthy(READ).map((i) => i.id)).toEqual(['a', 'b', 'c', 'd']);
    // No write replica set contains a; the walk extends past it so RF=3 writes still find
    // three ACTIVE instances.
    for (const token of ring.desc().ingesters['a']?.tokens ?? []) {
      const write = ring.get(token - 1, WRITE);
      expect(write.instances.map((i) => i.id).sort()).toEqual(['b', 'c', 'd']);
      expect(ring.get(token - 1, READ).instances[0]?.id).toBe('a');
    }
    // Heartbeats keep the mode.
    await w.clock.advance(10_000);
    expect((await ringDesc(w)).ingesters['a']?.state).toBe('READONLY');
    await a.setMode('ACTIVE');
    await w.clock.advance(0);
    expect(ring.getAllHealthy(WRITE).map((i) => i.id)).toEqual(['a', 'b', 'c', 'd']);
    await Promise.all([...members.map((m) => m.stop()), ring.stop()]);
  });

  it('refuses disallowed transitions', async () => {
    const w = world();
    const l = lifecycler(w, { joinAfterMs: 60_000 });
    await l.start(signal());
    await expect(l.setMode('READONLY')).rejects.toThrow(
      'Changing instance state from PENDING -> READONLY is disallowed',
    );
    await l.stop();
    await expect(l.setMode('ACTIVE')).rejects.toThrow('the lifecycler is Terminated');
  });

  it('two lifecyclers joining one key at once both register with disjoint tokens', async () => {
    const w = world();
    // Separate clients over one store, as two processes over one etcd.
    const other: World = { ...w, kv: new MemoryKV({}, { store: w.store }) };
    const a = lifecycler(w, { id: 'a', numTokens: 64 });
    const b = lifecycler(other, { id: 'b', numTokens: 64 });
    await Promise.all([a.start(signal()), b.start(signal())]);
    await w.clock.advance(0);
    const desc = await ringDesc(w);
    expect(Object.keys(desc.ingesters).sort()).toEqual(['a', 'b']);
    expect(desc.ingesters['a']?.state).toBe('ACTIVE');
    expect(desc.ingesters['b']?.state).toBe('ACTIVE');
    const all = [...(desc.ingesters['a']?.tokens ?? []), ...(desc.ingesters['b']?.tokens ?? [])];
    expect(all).toHaveLength(128);
    expect(new Set(all).size).toBe(128);
    await w.clock.advance(20_000);
    expect(Object.keys((await ringDesc(w)).ingesters).sort()).toEqual(['a', 'b']);
    await Promise.all([a.stop(), b.stop()]);
    expect((await ringDesc(w)).ingesters).toEqual({});
  });

  it('stores tokens in the tokens file and comes back ACTIVE with them', async () => {
    const w = world();
    const path = '/data/tokens';
    const first = lifecycler(w, { tokensFilePath: path });
    await first.start(signal());
    await w.clock.advance(0);
    const tokens = [...first.instanceTokens];
    expect(await loadTokensFile(w.fs, path)).toEqual(tokens);
    expect(new TextDecoder().decode(await w.fs.readFile(path))).toBe(JSON.stringify({ tokens }));
    await first.stop();
    expect((await ringDesc(w)).ingesters['ingester-1']).toBeUndefined();

    const states = recordStates(w, 'ingester-1');
    const second = lifecycler(w, { tokensFilePath: path });
    await second.start(signal());
    expect(second.instanceState).toBe('ACTIVE');
    expect((await ringDesc(w)).ingesters['ingester-1']?.tokens).toEqual(tokens);
    await w.clock.advance(5_000);
    expect(states).toEqual(['ACTIVE']);
    await second.stop();
  });

  it('a bad tokens file is logged and the instance joins with new tokens', async () => {
    const w = world();
    await w.fs.mkdir('/data', { recursive: true });
    await w.fs.writeFile('/data/tokens', '{"tokens": "nope"}');
    const l = lifecycler(w, { tokensFilePath: '/data/tokens' });
    await l.start(signal());
    await w.clock.advance(0);
    expect(w.logger.find('error loading tokens from file', 'error')).toHaveLength(1);
    expect(l.instanceTokens).toHaveLength(4);
    expect(await loadTokensFile(w.fs, '/data/tokens')).toEqual(l.instanceTokens);
    await l.stop();
  });

  it('restarting without a file adopts the tokens the ring has', async () => {
    const w = world();
    const first = lifecycler(w, { unregisterOnShutdown: false });
    await first.start(signal());
    await w.clock.advance(0);
    const tokens = [...first.instanceTokens];
    await first.stop();
    const second = lifecycler(w);
    await second.start(signal());
    // LEAVING with a full set of tokens goes back to ACTIVE (Cortex's initRing).
    expect(second.instanceState).toBe('ACTIVE');
    expect(second.instanceTokens).toEqual(tokens);
    await second.stop();
  });

  it('re-adds itself on the next heartbeat after being forgotten', async () => {
    const w = world();
    const l = lifecycler(w);
    await l.start(signal());
    await w.clock.advance(0);
    await w.kv.cas('ring', () => JSON_RING_CODEC.encode({ ingesters: {} }));
    await w.clock.advance(5_000);
    expect((await ringDesc(w)).ingesters['ingester-1']?.state).toBe('ACTIVE');
    expect(w.logger.find('instance missing in the ring, adding it back', 'warn')).toHaveLength(1);
    await l.stop();
  });

  it('observes KV errors with a log line and a metric, and keeps going', async () => {
    const w = world();
    let failing = false;
    const flaky: KV = {
      ...w.kv,
      get: (k, s) => w.kv.get(k, s),
      cas: (k, u, s) =>
        failing ? Promise.reject(new Error('etcd unavailable')) : w.kv.cas(k, u, s),
    };
    const l = lifecycler({ ...w, kv: flaky });
    await l.start(signal());
    await w.clock.advance(0);
    failing = true;
    await w.clock.advance(10_000);
    expect(w.logger.find('failed to update the ring in the KV store', 'error').length).toBe(2);
    expect(await w.metrics.getSingleMetricAsString('strata_ring_kv_errors_total')).toContain(
      'strata_ring_kv_errors_total{name="ingester",operation="heartbeat"} 2',
    );
    failing = false;
    await w.clock.advance(5_000);
    expect((await ringDesc(w)).ingesters['ingester-1']?.timestamp).toBe((START + 15_000) / 1000);
    await l.stop();
  });

  it('retries joining when the KV store fails', async () => {
    const w = world();
    let failures = 2;
    const flaky: KV = {
      ...w.kv,
      get: (k, s) => w.kv.get(k, s),
      cas: (k, u, s) => {
        const fail =
          failures > 0 &&
          JSON_RING_CODEC.decode(w.store.read('ring')?.value).ingesters['ingester-1'] !== undefined;
        if (fail) {
          failures--;
          return Promise.reject(new Error('etcd unavailable'));
        }
        return w.kv.cas(k, u, s);
      },
    };
    const l = lifecycler({ ...w, kv: flaky });
    await l.start(signal());
    await w.clock.advance(0);
    expect(l.instanceState).toBe('PENDING');
    await w.clock.advance(10_000);
    expect(l.instanceState).toBe('ACTIVE');
    await l.stop();
  });
});
