import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../runtime/index.js';
import { emptyRingDesc, type InstanceState, type RingDesc } from './model.js';
import { shuffleShard, shuffleShardSeed } from './shuffle_shard.js';
import { generateTokens } from './tokens.js';

function ring(count: number, zones: string[] = [''], seed = 'ring'): RingDesc {
  const random = createSeededRandom(seed).stream('tokens');
  const desc = emptyRingDesc();
  const taken = new Set<number>();
  for (let i = 0; i < count; i++) {
    const tokens = generateTokens(64, taken, random);
    for (const t of tokens) taken.add(t);
    desc.ingesters[`inst-${String(i).padStart(2, '0')}`] = {
      addr: `inst-${i}:9095`,
      timestamp: 1,
      state: 'ACTIVE',
      tokens,
      zone: zones[i % zones.length] as string,
      registeredTimestamp: 1,
    };
  }
  return desc;
}

const ids = (d: RingDesc): string[] => Object.keys(d.ingesters).sort();
const noZones = { zoneAwarenessEnabled: false };

describe('shuffleShard', () => {
  it('returns the whole ring for size 0, negative sizes and sizes not below the ring', () => {
    const desc = ring(5);
    for (const size of [0, -1, 5, 9])
      expect(shuffleShard(desc, 'tenant', size, noZones)).toBe(desc);
  });

  it('picks `size` instances, the same ones every time, different ones for other tenants', () => {
    const desc = ring(10);
    const a = ids(shuffleShard(desc, 'tenant-a', 3, noZones));
    expect(a).toHaveLength(3);
    expect(ids(shuffleShard(structuredClone(desc), 'tenant-a', 3, noZones))).toEqual(a);
    const shards = new Set(
      Array.from({ length: 20 }, (_, i) => ids(shuffleShard(desc, `t-${i}`, 3, noZones)).join()),
    );
    expect(shards.size).toBeGreaterThan(10);
    // The shard keeps the instances' descriptors (tokens included).
    const shard = shuffleShard(desc, 'tenant-a', 3, noZones);
    for (const id of a) expect(shard.ingesters[id]).toEqual(desc.ingesters[id]);
  });

  it('only adds instances when the shard grows', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 7 }), (tenant, size) => {
        const desc = ring(9);
        const small = ids(shuffleShard(desc, tenant, size, noZones));
        const big = ids(shuffleShard(desc, tenant, size + 1, noZones));
        expect(big).toHaveLength(size + 1);
        for (const id of small) expect(big).toContain(id);
      }),
      { numRuns: 50 },
    );
  });

  it('never picks LEFT instances and does not count them', () => {
    const desc = ring(4);
    (desc.ingesters['inst-01'] as { state: InstanceState }).state = 'LEFT';
    (desc.ingesters['inst-02'] as { state: InstanceState }).state = 'LEFT';
    for (let i = 0; i < 20; i++) {
      const shard = ids(shuffleShard(desc, `t-${i}`, 1, noZones));
      expect(shard).toHaveLength(1);
      expect(['inst-00', 'inst-03']).toContain(shard[0]);
    }
    // Two usable instances: a shard of 2 is the whole ring.
    expect(shuffleShard(desc, 't', 2, noZones)).toBe(desc);
  });

  it('with zone awareness takes ceil(size / zones) instances from each zone', () => {
    const desc = ring(9, ['a', 'b', 'c']);
    const shard = shuffleShard(desc, 'tenant', 4, { zoneAwarenessEnabled: true });
    const zones = Object.values(shard.ingesters).map((i) => i.zone);
    expect(zones.sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
  });

  it("seeds as Cortex does: MD5's first 64 bits, with NUL and the zone appended", () => {
    // md5("") = d41d8cd98f00b204e9800998ecf8427e
    expect(shuffleShardSeed('', '')).toBe(0xd41d8cd98f00b204n);
    expect(shuffleShardSeed('user-1', 'zone-a')).not.toBe(shuffleShardSeed('user-1', ''));
    expect(shuffleShardSeed('user-1', 'zone-a')).toBe(shuffleShardSeed('user-1', 'zone-a'));
  });
});
