import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryKV, MemoryKVStore, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { JSON_RING_CODEC } from './codec.js';
import {
  READ,
  REPORTING,
  WRITE,
  type InstanceDesc,
  type InstanceState,
  type RingDesc,
} from './model.js';
import { Ring, type RingConfig } from './ring.js';

const NOW = 1_700_000_000_000;
const NOW_S = NOW / 1000;

function inst(tokens: number[], over: Partial<InstanceDesc> = {}): InstanceDesc {
  return {
    addr: over.addr ?? `addr-${tokens[0]}`,
    timestamp: NOW_S,
    state: 'ACTIVE',
    tokens,
    zone: '',
    registeredTimestamp: NOW_S - 3600,
    ...over,
  };
}

function makeRing(
  desc: RingDesc,
  over: Partial<RingConfig> = {},
): { ring: Ring; logger: CapturingLogger } {
  const logger = new CapturingLogger();
  const ring = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 3,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
      ...over,
    },
    {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock: new ManualClock(NOW),
      logger,
      metrics: newMetricsRegistry(),
    },
  );
  ring.setDesc(desc);
  return { ring, logger };
}

/** A: 100,400  B: 200,500  C: 300,600  D: 350 */
function layout(states: Partial<Record<string, Partial<InstanceDesc>>> = {}): RingDesc {
  return {
    ingesters: {
      A: inst([100, 400], { addr: 'a:9095', ...states['A'] }),
      B: inst([200, 500], { addr: 'b:9095', ...states['B'] }),
      C: inst([300, 600], { addr: 'c:9095', ...states['C'] }),
      D: inst([350], { addr: 'd:9095', ...states['D'] }),
    },
  };
}

const ids = (set: { instances: { id: string }[] }): string[] => set.instances.map((i) => i.id);

describe('Ring.get', () => {
  it('walks clockwise from the first token greater than the key', () => {
    const { ring } = makeRing(layout());
    expect(ids(ring.get(150, WRITE))).toEqual(['B', 'C', 'D']);
    expect(ring.get(150, WRITE).maxErrors).toBe(1);
    expect(ids(ring.get(0, WRITE))).toEqual(['A', 'B', 'C']);
    // A key equal to a token belongs to the next token; past the last token it wraps.
    expect(ids(ring.get(100, WRITE))).toEqual(['B', 'C', 'D']);
    expect(ids(ring.get(600, WRITE))).toEqual(['A', 'B', 'C']);
    expect(ids(ring.get(0xffffffff, READ))).toEqual(['A', 'B', 'C']);
  });

  it('skips instances already chosen', () => {
    // Key 350: D(400 is A)... tokens after 350: 400 A, 500 B, 600 C.
    const { ring } = makeRing(layout());
    expect(ids(ring.get(350, WRITE))).toEqual(['A', 'B', 'C']);
    // Key 450: 500 B, 600 C, then wrap 100 A.
    expect(ids(ring.get(450, WRITE))).toEqual(['B', 'C', 'A']);
  });

  it('drops unhealthy instances and keeps the quorum', () => {
    const { ring } = makeRing(layout({ D: { timestamp: NOW_S - 61 } }));
    const set = ring.get(150, WRITE);
    expect(ids(set)).toEqual(['B', 'C']);
    expect(set.maxErrors).toBe(0);
  });

  it('fails when fewer than a quorum are healthy, naming the unhealthy ones', () => {
    const { ring } = makeRing(
      layout({ C: { timestamp: NOW_S - 120 }, D: { timestamp: NOW_S - 61 } }),
    );
    expect(() => ring.get(150, WRITE)).toThrow(
      'at least 2 live replicas required, could only find 1 - unhealthy instances: c:9095,d:9095',
    );
    // A heartbeat exactly at the timeout is still healthy.
    const { ring: edge } = makeRing(
      layout({ C: { timestamp: NOW_S - 60 }, D: { timestamp: NOW_S - 60 } }),
    );
    expect(ids(edge.get(150, WRITE))).toEqual(['B', 'C', 'D']);
  });

  it('extends the set past a LEAVING instance for writes, not for reads', () => {
    const { ring } = makeRing(layout({ B: { state: 'LEAVING' } }));
    const write = ring.get(150, WRITE);
    expect(ids(write)).toEqual(['C', 'D', 'A']);
    // Four were chosen, so the quorum is 3 of 4 and no further error is allowed.
    expect(write.maxErrors).toBe(0);
    const read = ring.get(150, READ);
    expect(ids(read)).toEqual(['B', 'C', 'D']);
    expect(read.maxErrors).toBe(1);
  });

  it('a descriptor with the same tokens updates states and heartbeats; new tokens re-sort', () => {
    // The second descriptor keeps every token (the table order is reused), so lookups must
    // still see its new states and heartbeats, not the first descriptor's.
    const { ring } = makeRing(layout());
    expect(ids(ring.get(150, WRITE))).toEqual(['B', 'C', 'D']);
    ring.setDesc(layout({ B: { state: 'LEAVING' } }));
    expect(ids(ring.get(150, WRITE))).toEqual(['C', 'D', 'A']);
    ring.setDesc(layout({ D: { timestamp: NOW_S - 61 } }));
    expect(ids(ring.get(150, WRITE))).toEqual(['B', 'C']);
    // D moves from 350 to 50, E joins: the next lookups follow the new tokens.
    const moved = layout();
    moved.ingesters['D'] = inst([50], { addr: 'd:9095' });
    moved.ingesters['E'] = inst([250], { addr: 'e:9095' });
    ring.setDesc(moved);
    expect(ids(ring.get(10, WRITE))).toEqual(['D', 'A', 'B']);
    expect(ids(ring.get(220, WRITE))).toEqual(['E', 'C', 'A']);
    // A LEFT instance's tokens leave the table even though its tokens did not change.
    moved.ingesters['E'] = inst([250], { addr: 'e:9095', state: 'LEFT' });
    ring.setDesc({ ingesters: { ...moved.ingesters } });
    expect(ids(ring.get(220, WRITE))).toEqual(['C', 'A', 'B']);
  });

  it('READONLY refuses writes but serves reads', () => {
    const { ring } = makeRing(layout({ C: { state: 'READONLY' } }));
    expect(ids(ring.get(150, WRITE))).toEqual(['B', 'D', 'A']);
    expect(ids(ring.get(150, READ))).toEqual(['B', 'C', 'D']);
  });

  it.each<[InstanceState, string[]]>([
    // PENDING may be read from but makes the set grow, to reach where writes extended to.
    ['PENDING', ['B', 'C', 'D', 'A']],
    ['JOINING', ['B', 'C', 'D']],
  ])('reads with a %s instance', (state, expected) => {
    const { ring } = makeRing(layout({ B: { state } }));
    expect(ids(ring.get(150, READ))).toEqual(expected);
  });

  it('picks one instance per zone when zone-aware', () => {
    const desc = layout({
      A: { zone: 'z1' },
      B: { zone: 'z1' },
      C: { zone: 'z2' },
      D: { zone: 'z3' },
    });
    expect(ids(makeRing(desc, { zoneAwarenessEnabled: true }).ring.get(50, WRITE))).toEqual([
      'A',
      'C',
      'D',
    ]);
    expect(ids(makeRing(desc).ring.get(50, WRITE))).toEqual(['A', 'B', 'C']);
  });

  it('zone-aware: stops at the number of zones and reports zone errors', () => {
    const desc = layout({
      A: { zone: 'z1' },
      B: { zone: 'z1', timestamp: 0 },
      C: { zone: 'z1' },
      D: { zone: 'z2', timestamp: 0 },
    });
    const { ring } = makeRing(desc, { zoneAwarenessEnabled: true });
    // Two zones only: the walk takes A (z1) and D (z2); D is dead → 1 of quorum 2.
    expect(() => ring.get(50, WRITE)).toThrow(
      'at least 2 live replicas required across different availability zones, could only find 1',
    );
  });

  it('an empty ring is an error', () => {
    expect(() => makeRing({ ingesters: {} }).ring.get(1, WRITE)).toThrow('empty ring');
    expect(() => makeRing({ ingesters: {} }).ring.getAllHealthy(READ)).toThrow('empty ring');
  });

  it('RF larger than the ring uses every instance', () => {
    const { ring } = makeRing(
      { ingesters: { A: inst([10]), B: inst([20]) } },
      { replicationFactor: 3 },
    );
    const set = ring.get(5, WRITE);
    expect(ids(set)).toEqual(['A', 'B']);
    expect(set.maxErrors).toBe(0);
  });

  it('returns RF distinct instances starting at the owner of the key (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 0xffffffff }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 0xffffffff }),
        (tokens, instances, rf, key) => {
          const desc: RingDesc = { ingesters: {} };
          tokens.forEach((t, i) => {
            const id = `i${i % instances}`;
            const cur = desc.ingesters[id] ?? inst([]);
            cur.tokens = [...cur.tokens, t].sort((a, b) => a - b);
            desc.ingesters[id] = cur;
          });
          const { ring } = makeRing(desc, { replicationFactor: rf });
          const members = Object.keys(desc.ingesters).length;
          if (members < Math.floor(rf / 2) + 1) {
            // Fewer instances than a quorum of RF: every request fails up front.
            expect(() => ring.get(key, WRITE)).toThrow('live replicas required');
            return;
          }
          const set = ring.get(key, WRITE);
          expect(new Set(ids(set)).size).toBe(Math.min(rf, members));
          const sorted = [...tokens].sort((a, b) => a - b);
          const owner = sorted.find((t) => t > key) ?? sorted[0];
          const ownerId = Object.entries(desc.ingesters).find(([, d]) =>
            d.tokens.includes(owner ?? -1),
          )?.[0];
          expect(set.instances[0]?.id).toBe(ownerId);
        },
      ),
    );
  });
});

describe('Ring over the whole ring', () => {
  it('getAllHealthy filters by operation and heartbeat', () => {
    const { ring } = makeRing(
      layout({ B: { state: 'LEAVING' }, C: { timestamp: 0 }, D: { state: 'READONLY' } }),
    );
    expect(ring.getAllHealthy(WRITE).map((i) => i.id)).toEqual(['A']);
    expect(ring.getAllHealthy(READ).map((i) => i.id)).toEqual(['A', 'B', 'D']);
    expect(ring.instancesCount()).toBe(4);
    expect(ring.healthyInstancesCount()).toBe(3);
  });

  it('getReplicationSetForOperation tolerates RF/2 failures', () => {
    const one = makeRing(layout({ D: { timestamp: 0 } })).ring.getReplicationSetForOperation(READ);
    expect(one.instances.map((i) => i.id)).toEqual(['A', 'B', 'C']);
    expect(one.maxErrors).toBe(0);
    const none = makeRing(layout()).ring.getReplicationSetForOperation(READ);
    expect(none.maxErrors).toBe(1);
    expect(() =>
      makeRing(
        layout({ C: { timestamp: 0 }, D: { timestamp: 0 } }),
      ).ring.getReplicationSetForOperation(READ),
    ).toThrow('too many unhealthy instances in the ring');
  });

  it('getReplicationSetForOperation with zones drops failed zones', () => {
    const desc = layout({
      A: { zone: 'z1' },
      B: { zone: 'z2', timestamp: 0 },
      C: { zone: 'z2' },
      D: { zone: 'z3' },
    });
    const set = makeRing(desc, { zoneAwarenessEnabled: true }).ring.getReplicationSetForOperation(
      READ,
    );
    expect(set.instances.map((i) => i.id)).toEqual(['A', 'D']);
    expect(set.maxUnavailableZones).toBe(0);
    const two = layout({
      A: { zone: 'z1', timestamp: 0 },
      B: { zone: 'z2', timestamp: 0 },
      C: { zone: 'z2' },
      D: { zone: 'z3' },
    });
    expect(() =>
      makeRing(two, { zoneAwarenessEnabled: true }).ring.getReplicationSetForOperation(READ),
    ).toThrow('too many unhealthy instances in the ring');
  });

  it('ownership adds up to the whole ring', () => {
    const { ring } = makeRing(layout());
    const owned = ring.ownership();
    const total = [...owned.values()].reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(1, 12);
    // D owns [300, 350): 50 of 2^32.
    expect(owned.get('D')).toBeCloseTo(50 / 2 ** 32, 15);
    expect(
      makeRing({ ingesters: { A: inst([7]) } })
        .ring.ownership()
        .get('A'),
    ).toBe(1);
  });

  it('REPORTING health ignores the state', () => {
    const { ring } = makeRing(layout({ A: { state: 'PENDING' } }));
    expect(ring.isHealthy({ ...inst([1], { state: 'LEAVING' }), id: 'x' })).toBe(true);
    expect(ring.isHealthy({ ...inst([1], { timestamp: 0 }), id: 'x' })).toBe(false);
    expect(REPORTING.healthyStates.has('PENDING')).toBe(true);
  });
});

describe('Ring watching the KV store', () => {
  it('follows the key and keeps the last good descriptor on garbage', async () => {
    const store = new MemoryKVStore();
    const kv = new MemoryKV({}, { store });
    const clock = new ManualClock(NOW);
    const logger = new CapturingLogger();
    const metrics = newMetricsRegistry();
    await kv.cas('ring', () => JSON_RING_CODEC.encode(layout()));
    const ring = new Ring(
      {
        name: 'ingester',
        key: 'ring',
        replicationFactor: 3,
        heartbeatTimeoutMs: 60_000,
        zoneAwarenessEnabled: false,
      },
      { kv, clock, logger, metrics },
    );
    await ring.start(new AbortController().signal);
    expect(ring.instancesCount()).toBe(4);
    await kv.cas('ring', () => JSON_RING_CODEC.encode({ ingesters: { A: inst([1]) } }));
    await clock.advance(0);
    expect(ring.instancesCount()).toBe(1);
    await kv.cas('ring', () => new TextEncoder().encode('{not json'));
    await clock.advance(0);
    expect(ring.instancesCount()).toBe(1);
    expect(logger.find('failed to decode ring descriptor', 'error')).toHaveLength(1);
    expect(await metrics.getSingleMetricAsString('strata_ring_decode_errors_total')).toContain(
      'strata_ring_decode_errors_total{name="ingester"} 1',
    );
    await ring.stop();
    expect(ring.state).toBe('Terminated');
  });
});
