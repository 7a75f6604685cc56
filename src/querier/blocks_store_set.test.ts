// Store-gateway selection per block: the configured address list (sharding off), the ring's
// BLOCKS_READ replica set of the block's hash (sharding on), and the embedded store; each
// avoiding the instances already tried for a block.
import { describe, expect, it } from 'vitest';
import { Ring, type InstanceDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  createSeededRandom,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BLOCKS_READ, hashBlockId, storeGatewayRingConfig } from '../storegateway/index.js';
import { blockId } from './blocks_fakes.testing.js';
import { IN_PROCESS_STORE_ADDRESS } from './blocks_store_client.js';
import {
  BalancedBlocksStoreSet,
  InProcessBlocksStoreSet,
  ReplicatedBlocksStoreSet,
} from './blocks_store_set.js';

const NOW = 1_700_000_000_000;
const IDS = Array.from({ length: 20 }, (_, i) => blockId(NOW - 86_400_000, i));
const NONE = new Map<string, string[]>();

describe('BalancedBlocksStoreSet', () => {
  const random = createSeededRandom('test').stream('store-set');

  it('puts every block on one configured address, spreading queries', () => {
    const set = new BalancedBlocksStoreSet({ addresses: ['a', 'b', 'c'] }, { random });
    const used = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const groups = set.clientsFor('t', IDS, NONE);
      // One shuffle per call: a query's blocks stay together.
      expect(groups.size).toBe(1);
      for (const addr of groups.keys()) used.add(addr);
    }
    expect([...used].sort()).toEqual(['a', 'b', 'c']);
  });

  it('avoids the addresses already tried for a block', () => {
    const set = new BalancedBlocksStoreSet({ addresses: ['a', 'b'] }, { random });
    const id = IDS[0]!;
    for (let i = 0; i < 10; i++) {
      expect([...set.clientsFor('t', [id], new Map([[id, ['a']]])).keys()]).toEqual(['b']);
    }
    expect(() => set.clientsFor('t', [id], new Map([[id, ['a', 'b']]]))).toThrow(
      `no store-gateway instance left after filtering out excluded instances for block ${id}`,
    );
  });

  it('fails without addresses', () => {
    const set = new BalancedBlocksStoreSet({ addresses: [] }, { random });
    expect(() => set.clientsFor('t', IDS, NONE)).toThrow(/no address resolved/);
  });
});

describe('ReplicatedBlocksStoreSet', () => {
  function ring(clock: ManualClock, states: InstanceDesc['state'][]): Ring {
    const r = new Ring(storeGatewayRingConfig({ replicationFactor: 2 }), {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    });
    const ingesters: Record<string, InstanceDesc> = {};
    states.forEach((state, i) => {
      ingesters[`sg-${i}`] = {
        addr: `sg-${i}:9095`,
        timestamp: NOW / 1000,
        state,
        tokens: Array.from({ length: 16 }, (_, k) => ((k * 3 + i) * 0x0fffffff) >>> 0).sort(
          (a, b) => a - b,
        ),
        zone: '',
        registeredTimestamp: NOW / 1000,
      };
    });
    r.setDesc({ ingesters });
    return r;
  }

  it('asks a block’s replica set, then the other replica', () => {
    const clock = new ManualClock(NOW);
    const r = ring(clock, ['ACTIVE', 'ACTIVE', 'ACTIVE']);
    const set = new ReplicatedBlocksStoreSet(
      { randomLoadBalancing: false, heartbeatTimeoutMs: 60_000 },
      { ring: r, clock, random: createSeededRandom('x').stream('y') },
    );
    for (const id of IDS) {
      const owners = r.get(hashBlockId(id), BLOCKS_READ).instances.map((i) => i.addr);
      expect(owners).toHaveLength(2);
      const first = [...set.clientsFor('t', [id], NONE).keys()];
      expect(first).toEqual([owners[0]]);
      const second = [...set.clientsFor('t', [id], new Map([[id, first]])).keys()];
      expect(second).toEqual([owners[1]]);
      expect(() => set.clientsFor('t', [id], new Map([[id, owners]]))).toThrow(
        `no store-gateway instance left after checking exclude for block ${id}`,
      );
    }
  });

  it('never picks a store-gateway that is not ACTIVE or has a stale heartbeat', async () => {
    const clock = new ManualClock(NOW);
    const r = ring(clock, ['ACTIVE', 'JOINING', 'ACTIVE']);
    const set = new ReplicatedBlocksStoreSet(
      { randomLoadBalancing: true, heartbeatTimeoutMs: 60_000 },
      { ring: r, clock, random: createSeededRandom('x').stream('y') },
    );
    for (let i = 0; i < 5; i++) {
      for (const addr of set.clientsFor('t', IDS, NONE).keys()) expect(addr).not.toBe('sg-1:9095');
    }
    await clock.advance(120_000);
    expect(() => set.clientsFor('t', IDS, NONE)).toThrow(
      /failed to get store-gateway replication set owning the block/,
    );
  });
});

describe('InProcessBlocksStoreSet', () => {
  it('asks the embedded store once per block', () => {
    const set = new InProcessBlocksStoreSet();
    expect(set.clientsFor('t', IDS, NONE)).toEqual(new Map([[IN_PROCESS_STORE_ADDRESS, IDS]]));
    const id = IDS[0]!;
    expect(() => set.clientsFor('t', [id], new Map([[id, [IN_PROCESS_STORE_ADDRESS]]]))).toThrow(
      /no store-gateway instance left/,
    );
  });
});
