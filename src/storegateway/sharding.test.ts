import { describe, expect, it } from 'vitest';
import { Ring, emptyRingDesc, type InstanceDesc, type InstanceState } from '../ring/index.js';
import { MemoryKV, MemoryKVStore, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import {
  BLOCKS_OWNER_READ,
  BLOCKS_OWNER_SYNC,
  BLOCKS_READ,
  RingShardingStrategy,
  blockReplicaSet,
  hashBlockId,
  instanceSetSignature,
  storeGatewayRingConfig,
} from './sharding.js';

const NOW = 1_800_000_000_000;
const BLOCK = '01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('hashBlockId', () => {
  // Expected values from an independent big-integer FNV implementation over the ULID's 16
  // bytes (01563e3ab5d3d6764c61efb99302bd5b for BLOCK).
  it('is FNV-1 32-bit over the binary ULID (multiply, then xor)', () => {
    expect(hashBlockId(BLOCK)).toBe(1261091206);
    expect(hashBlockId('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe(4230643797);
    // 2166136261 × 16777619^16 mod 2^32: xor with zero bytes changes nothing.
    expect(hashBlockId('00000000000000000000000000')).toBe(1768495365);
  });

  it('is not FNV-1a (which xors before multiplying)', () => {
    expect(hashBlockId(BLOCK)).not.toBe(4098868864);
  });

  it('hashes a ULID the same in either case', () => {
    expect(hashBlockId(BLOCK.toLowerCase())).toBe(hashBlockId(BLOCK));
  });

  it('xors the last byte after the last multiplication (derived by hand)', () => {
    // Fifteen zero bytes then 0x01: the same products as the all-zero ULID, then `h ^= 1`.
    expect(hashBlockId('00000000000000000000000001')).toBe(1768495365 ^ 1);
  });
});

describe('operations', () => {
  const states: InstanceState[] = ['ACTIVE', 'JOINING', 'LEAVING', 'PENDING', 'LEFT', 'READONLY'];
  it('BLOCKS_OWNER_SYNC counts JOINING, ACTIVE and LEAVING and extends past LEAVING only', () => {
    expect(states.filter((s) => BLOCKS_OWNER_SYNC.healthyStates.has(s))).toEqual([
      'ACTIVE',
      'JOINING',
      'LEAVING',
    ]);
    expect(states.filter((s) => BLOCKS_OWNER_SYNC.shouldExtendReplicaSet(s))).toEqual(['LEAVING']);
  });
  it('BLOCKS_READ uses ACTIVE only and extends past every other state', () => {
    expect(states.filter((s) => BLOCKS_READ.healthyStates.has(s))).toEqual(['ACTIVE']);
    expect(states.filter((s) => BLOCKS_READ.shouldExtendReplicaSet(s))).toEqual(states.slice(1));
  });
  it('BLOCKS_OWNER_READ uses ACTIVE only, without extension', () => {
    expect(states.filter((s) => BLOCKS_OWNER_READ.shouldExtendReplicaSet(s))).toEqual([]);
  });
});

function inst(addr: string, token: number, over: Partial<InstanceDesc> = {}): InstanceDesc {
  return {
    addr,
    timestamp: NOW / 1000 - 1,
    state: 'ACTIVE',
    tokens: [token],
    zone: '',
    registeredTimestamp: 1,
    ...over,
  };
}

function ringWith(instances: Record<string, InstanceDesc>, rf = 2) {
  const clock = new ManualClock(NOW);
  const ring = new Ring(storeGatewayRingConfig({ replicationFactor: rf }), {
    kv: new MemoryKV({}, { store: new MemoryKVStore() }),
    clock,
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  });
  const desc = emptyRingDesc();
  Object.assign(desc.ingesters, instances);
  ring.setDesc(desc);
  return { ring, clock };
}

const h = hashBlockId(BLOCK);
const health = { heartbeatTimeoutMs: 60_000, nowMs: NOW };

describe('blockReplicaSet', () => {
  it('walks the ring from the block hash: the first RF instances own it', () => {
    const { ring } = ringWith({
      a: inst('a:1', h + 1),
      b: inst('b:1', h + 2),
      c: inst('c:1', h + 3),
    });
    expect(blockReplicaSet(ring, BLOCK, BLOCKS_OWNER_SYNC, health).map((i) => i.id)).toEqual([
      'a',
      'b',
    ]);
  });

  it('drops an instance with a stale heartbeat without failing on quorum (Cortex ignores unhealthy)', () => {
    const { ring } = ringWith({
      a: inst('a:1', h + 1, { timestamp: NOW / 1000 - 600 }),
      b: inst('b:1', h + 2),
      c: inst('c:1', h + 3),
    });
    expect(blockReplicaSet(ring, BLOCK, BLOCKS_OWNER_SYNC, health).map((i) => i.id)).toEqual(['b']);
  });

  it('extends past a LEAVING owner for sync, and past a JOINING one for reads', () => {
    const { ring } = ringWith({
      a: inst('a:1', h + 1, { state: 'LEAVING' }),
      b: inst('b:1', h + 2, { state: 'JOINING' }),
      c: inst('c:1', h + 3),
      d: inst('d:1', h + 4),
    });
    expect(blockReplicaSet(ring, BLOCK, BLOCKS_OWNER_SYNC, health).map((i) => i.id)).toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(blockReplicaSet(ring, BLOCK, BLOCKS_READ, health).map((i) => i.id)).toEqual(['c', 'd']);
  });

  it('throws when no healthy owner is left', () => {
    const { ring } = ringWith({
      a: inst('a:1', h + 1, { state: 'JOINING' }),
      b: inst('b:1', h + 2, { state: 'JOINING' }),
    });
    expect(() => blockReplicaSet(ring, BLOCK, BLOCKS_OWNER_READ, health)).toThrow(
      /no healthy store-gateway/,
    );
  });
});

describe('RingShardingStrategy', () => {
  const meta = { ulid: BLOCK } as BlockMeta;
  const filter = (ring: Ring, self: string, loaded: string[]) => {
    const metas = new Map([[BLOCK, meta]]);
    const strategy = new RingShardingStrategy({
      ring,
      instanceAddr: () => self,
      heartbeatTimeoutMs: 60_000,
      now: () => NOW,
    });
    const removed = strategy.filterBlocks('t', metas, new Set(loaded));
    return { kept: [...metas.keys()], removed };
  };

  it('keeps blocks this instance owns and drops the others', () => {
    const { ring } = ringWith({
      a: inst('a:1', h + 1),
      b: inst('b:1', h + 2),
      c: inst('c:1', h + 3),
    });
    expect(filter(ring, 'a:1', []).kept).toEqual([BLOCK]);
    expect(filter(ring, 'c:1', []).removed).toEqual([BLOCK]);
  });

  it('keeps a loaded block it lost while no new owner is ACTIVE, then drops it', () => {
    const joining = ringWith({
      a: inst('a:1', h + 1, { state: 'JOINING' }),
      b: inst('b:1', h + 2, { state: 'JOINING' }),
      c: inst('c:1', h + 3),
    });
    expect(filter(joining.ring, 'c:1', [BLOCK]).kept).toEqual([BLOCK]);
    // Not loaded before: nothing to keep.
    expect(filter(joining.ring, 'c:1', []).kept).toEqual([]);
    const active = ringWith({
      a: inst('a:1', h + 1),
      b: inst('b:1', h + 2, { state: 'JOINING' }),
      c: inst('c:1', h + 3),
    });
    expect(filter(active.ring, 'c:1', [BLOCK]).kept).toEqual([]);
  });

  it('keeps loaded blocks when the ring cannot be read', () => {
    const { ring } = ringWith({});
    expect(filter(ring, 'a:1', [BLOCK]).kept).toEqual([BLOCK]);
    expect(filter(ring, 'a:1', []).kept).toEqual([]);
  });
});

describe('instanceSetSignature', () => {
  it('ignores heartbeats but sees states and tokens', () => {
    const base = { ...inst('a:1', 5), id: 'a' };
    expect(instanceSetSignature([base])).toBe(instanceSetSignature([{ ...base, timestamp: 1 }]));
    expect(instanceSetSignature([base])).not.toBe(
      instanceSetSignature([{ ...base, state: 'LEAVING' }]),
    );
    expect(instanceSetSignature([base])).not.toBe(instanceSetSignature([{ ...base, tokens: [6] }]));
  });
});
