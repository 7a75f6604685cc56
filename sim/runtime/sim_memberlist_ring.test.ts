import { describe, expect, it } from 'vitest';
import { Lifecycler, RING_MERGE_CODEC, Ring, WRITE } from '../../src/ring/index.js';
import { MemberlistKV, type Env } from '../../src/runtime/index.js';
import type { SimProcess } from '../cluster/index.js';
import { TEST_EPOCH_MS, createTestWorld } from '../testing/index.js';

/**
 * Real lifecyclers and a ring client over the memberlist KV on a lossy simulated network
 * (2% loss, 1% duplication): four ingesters join, one crashes (its heartbeat goes stale and
 * the gossip layer declares the member dead), one stops cleanly (it unregisters: a LEFT
 * tombstone that ring clients never see) and the crashed one restarts under a new member name.
 */
interface Observation {
  states: Record<string, string>;
  healthy: string[];
  members: number;
}

async function scenario(
  seed: string,
): Promise<{ obs: Observation[]; trace: string; errors: readonly unknown[] }> {
  const w = createTestWorld({
    seed,
    configure: (c) => {
      c.network.loss = 0.02;
      c.network.duplication = 0.01;
    },
  });
  const ingesters = ['i1', 'i2', 'i3', 'i4'];
  let ring: Ring | undefined;
  let observer: MemberlistKV | undefined;
  const memberlist = (env: Env): MemberlistKV =>
    new MemberlistKV(
      { joinMembers: ['d', 'i1'], rejoinIntervalMs: 60_000 },
      {
        transport: env.transport,
        clock: env.clock,
        random: env.random,
        logger: env.logger,
        registry: env.metrics,
        nodeName: env.nodeName,
        codecs: [RING_MERGE_CODEC],
      },
    );
  const spec = (ml: MemberlistKV) => ({
    store: 'memberlist' as const,
    memberlistKV: () => ml,
    codec: 'ringDesc',
  });
  for (const name of ingesters) {
    w.cluster.addNode(name, (env: Env): SimProcess => {
      const ml = memberlist(env);
      const lc = new Lifecycler(
        {
          ringName: 'ingester',
          key: 'ring',
          id: name,
          addr: `${name}:9095`,
          zone: '',
          numTokens: 8,
          heartbeatPeriodMs: 5_000,
          joinAfterMs: 0,
          tokensFilePath: '',
          unregisterOnShutdown: true,
        },
        {
          kv: env.kvs.open(spec(ml), 'collectors/'),
          clock: env.clock,
          random: env.random,
          logger: env.logger,
          metrics: env.metrics,
        },
      );
      return {
        start: async (signal) => {
          await env.transport.listen();
          await ml.start(signal);
          void ml.run(signal).catch(() => undefined);
          await lc.start(signal);
        },
        // The lifecycler unregisters through the KV first, then the member leaves.
        stop: async () => {
          await lc.stop();
          await ml.stop();
        },
      };
    });
  }
  w.cluster.addNode('d', (env: Env): SimProcess => {
    const ml = memberlist(env);
    observer = ml;
    const r = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 3,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      {
        kv: env.kvs.open(spec(ml), 'collectors/'),
        clock: env.clock,
        logger: env.logger,
        metrics: env.metrics,
      },
    );
    ring = r;
    return {
      start: async (signal) => {
        await env.transport.listen();
        await ml.start(signal);
        void ml.run(signal).catch(() => undefined);
        await r.start(signal);
      },
      stop: async () => {
        await r.stop();
        await ml.stop();
      },
    };
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
        states: Object.fromEntries(Object.entries(desc.ingesters).map(([id, d]) => [id, d.state])),
        healthy,
        members: observer?.status().members.filter((m) => m.state === 'alive').length ?? 0,
      });
    });
  };
  w.kernel.after(0, { kind: 'boot' }, () => ['d', ...ingesters].forEach((n) => w.cluster.start(n)));
  observe(30_000);
  w.kernel.after(40_000, { kind: 'crash i2' }, () => w.cluster.crash('i2'));
  w.kernel.after(45_000, { kind: 'stop i3' }, () => void w.cluster.stop('i3'));
  observe(50_000);
  observe(150_000);
  w.kernel.after(160_000, { kind: 'restart i2' }, () => w.cluster.restart('i2'));
  observe(200_000);
  await w.kernel.run({ until: TEST_EPOCH_MS + 210_000 });
  return { obs, trace: w.kernel.traceHash(), errors: w.kernel.errors };
}

describe('rings over the memberlist KV in the simulator', () => {
  it('join, crash, clean leave and restart; replays exactly', async () => {
    const first = await scenario('ml-ring');
    expect(first.errors).toEqual([]);
    const [joined, afterLeave, afterTimeout, back] = first.obs;
    expect(joined).toEqual({
      states: { i1: 'ACTIVE', i2: 'ACTIVE', i3: 'ACTIVE', i4: 'ACTIVE' },
      healthy: ['i1', 'i2', 'i3', 'i4'],
      members: 5,
    });
    // i3 unregistered: gone from every client's ring at once (a LEFT tombstone underneath).
    expect(afterLeave?.states).toEqual({ i1: 'ACTIVE', i2: 'ACTIVE', i4: 'ACTIVE' });
    // i2 crashed: still in the ring, but unhealthy after the heartbeat timeout; its member is dead.
    expect(afterTimeout).toEqual({
      states: { i1: 'ACTIVE', i2: 'ACTIVE', i4: 'ACTIVE' },
      healthy: ['i1', 'i4'],
      members: 3,
    });
    expect(back).toEqual({
      states: { i1: 'ACTIVE', i2: 'ACTIVE', i4: 'ACTIVE' },
      healthy: ['i1', 'i2', 'i4'],
      members: 4,
    });
    const second = await scenario('ml-ring');
    expect(second.obs).toEqual(first.obs);
    expect(second.trace).toBe(first.trace);
  });
});
