import { describe, expect, it } from 'vitest';
import { createTestWorld, TEST_EPOCH_MS } from '../../sim/testing/index.js';
import type { SimProcess } from '../../sim/cluster/index.js';
import type { Env, KV } from '../runtime/index.js';
import { forgetInstance } from './http.js';
import { Lifecycler } from './lifecycler.js';
import { WRITE, READ } from './model.js';
import { Ring } from './ring.js';

/**
 * Three ingester lifecyclers and a distributor-side ring client on simulated nodes over the
 * simulated KV store (latency, real CAS conflicts): all join, a crashed ingester turns
 * unhealthy after the heartbeat timeout and drops out of write sets; the operator forgets it
 * (status page action), and after a restart it comes back with the same tokens from its
 * tokens file.
 */
interface Observation {
  at: number;
  states: Record<string, string>;
  healthyForWrite: string[];
  tokens: Record<string, number[]>;
}

async function runScenario(seed: string): Promise<{ obs: Observation[]; trace: string }> {
  const w = createTestWorld({ seed });
  const kvSpec = { store: 'inmemory' } as const;
  for (const name of ['i1', 'i2', 'i3']) {
    w.cluster.addNode(name, (env: Env): SimProcess => {
      const lc = new Lifecycler(
        {
          ringName: 'ingester',
          key: 'ring',
          id: name,
          addr: `${name}:9095`,
          zone: '',
          numTokens: 16,
          heartbeatPeriodMs: 5_000,
          joinAfterMs: 0,
          tokensFilePath: '/data/tokens',
          unregisterOnShutdown: true,
        },
        {
          kv: env.kvs.open(kvSpec, 'collectors/'),
          clock: env.clock,
          random: env.random,
          fs: env.fs,
          logger: env.logger,
          metrics: env.metrics,
        },
      );
      return { start: (s) => lc.start(s), stop: () => lc.stop() };
    });
  }
  let ring: Ring | undefined;
  let operatorKV: KV | undefined;
  w.cluster.addNode('d', (env: Env): SimProcess => {
    operatorKV = env.kvs.open(kvSpec, 'collectors/');
    ring = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 3,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      {
        kv: env.kvs.open(kvSpec, 'collectors/'),
        clock: env.clock,
        logger: env.logger,
        metrics: env.metrics,
      },
    );
    const r = ring;
    return { start: (s) => r.start(s), stop: () => r.stop() };
  });
  const obs: Observation[] = [];
  const observe = (at: number): void => {
    w.kernel.after(at, { kind: 'observe' }, () => {
      const desc = ring?.desc() ?? { ingesters: {} };
      let healthy: string[];
      try {
        healthy = (ring?.getAllHealthy(WRITE) ?? []).map((i) => i.id);
      } catch {
        healthy = [];
      }
      obs.push({
        at,
        states: Object.fromEntries(Object.entries(desc.ingesters).map(([id, d]) => [id, d.state])),
        healthyForWrite: healthy,
        tokens: Object.fromEntries(Object.entries(desc.ingesters).map(([id, d]) => [id, d.tokens])),
      });
    });
  };
  w.kernel.after(0, { kind: 'boot' }, () => {
    for (const n of ['d', 'i1', 'i2', 'i3']) w.cluster.start(n);
  });
  observe(30_000);
  w.kernel.after(40_000, { kind: 'crash' }, () => w.cluster.crash('i2'));
  observe(110_000);
  w.kernel.after(112_000, { kind: 'forget' }, () => {
    void forgetInstance(operatorKV as KV, 'ring', 'i2');
  });
  observe(115_000);
  w.kernel.after(120_000, { kind: 'restart' }, () => w.cluster.restart('i2'));
  observe(150_000);
  w.kernel.after(160_000, { kind: 'write-set' }, () => {
    // Every key's write set has three ACTIVE instances again.
    for (let k = 0; k < 64; k++) {
      const set = ring?.get((k * 0x04000000) >>> 0, WRITE);
      if (set?.instances.length !== 3) throw new Error(`key ${k}: ${set?.instances.length}`);
      ring?.get((k * 0x04000000) >>> 0, READ);
    }
  });
  await w.kernel.run({ until: TEST_EPOCH_MS + 170_000 });
  expect(w.kernel.errors).toEqual([]);
  return { obs, trace: w.kernel.traceHash() };
}

describe('rings in the simulator', () => {
  it('join, crash, heartbeat timeout and restart with the same tokens; replays exactly', async () => {
    const first = await runScenario('ring-sim');
    const [joined, crashed, forgotten, back] = first.obs;
    expect(joined?.states).toEqual({ i1: 'ACTIVE', i2: 'ACTIVE', i3: 'ACTIVE' });
    expect(joined?.healthyForWrite).toEqual(['i1', 'i2', 'i3']);
    const all = Object.values(joined?.tokens ?? {}).flat();
    expect(new Set(all).size).toBe(48);
    // Crashed at 40s without leaving: still ACTIVE in the ring, but its heartbeat is stale.
    expect(crashed?.states['i2']).toBe('ACTIVE');
    expect(crashed?.healthyForWrite).toEqual(['i1', 'i3']);
    expect(forgotten?.states).toEqual({ i1: 'ACTIVE', i3: 'ACTIVE' });
    expect(back?.states).toEqual({ i1: 'ACTIVE', i2: 'ACTIVE', i3: 'ACTIVE' });
    expect(back?.healthyForWrite).toEqual(['i1', 'i2', 'i3']);
    expect(back?.tokens['i2']).toEqual(joined?.tokens['i2']);
    const second = await runScenario('ring-sim');
    expect(second.obs).toEqual(first.obs);
    expect(second.trace).toBe(first.trace);
  });
});
