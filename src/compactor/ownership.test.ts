import { describe, expect, it } from 'vitest';
import { bucketIndexPath } from '../bucket/index.js';
import { RecordingBucket, testUlid, uploadTestBlock } from '../bucket/testing.js';
import {
  emptyRingDesc,
  generateTokens,
  Ring,
  RingError,
  type InstanceState,
  type RingDesc,
} from '../ring/index.js';
import {
  createSeededRandom,
  MemoryBucket,
  MemoryKV,
  MemoryKVStore,
  newMetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BlocksCleaner } from './cleaner.js';
import { COMPACTOR_RING_KEY, fnv32a, ownsTenant, tenantOwner } from './ownership.js';

const T0 = 1_700_000_000_000;

describe('fnv32a', () => {
  it("matches Go's hash/fnv New32a", () => {
    expect(fnv32a('')).toBe(0x811c9dc5);
    expect(fnv32a('a')).toBe(0xe40c292c);
    expect(fnv32a('foobar')).toBe(0xbf9cf968);
    // UTF-8 bytes, not UTF-16 code units.
    expect(fnv32a('é')).toBe(
      Math.imul(Math.imul(0x811c9dc5 ^ 0xc3, 16777619) ^ 0xa9, 16777619) >>> 0,
    );
  });
});

function ringOf(
  clock: ManualClock,
  states: Record<string, InstanceState>,
  heartbeatAgoMs = 0,
): Ring {
  const ring = new Ring(
    {
      name: 'compactor',
      key: COMPACTOR_RING_KEY,
      replicationFactor: 1,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
    },
    {
      kv: new MemoryKV({}, { store: new MemoryKVStore() }),
      clock,
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    },
  );
  const desc: RingDesc = emptyRingDesc();
  const taken: number[] = [];
  const random = createSeededRandom('ownership-test');
  for (const [name, state] of Object.entries(states)) {
    const tokens = generateTokens(512, taken, random.stream(name)).sort((a, b) => a - b);
    taken.push(...tokens);
    desc.ingesters[name] = {
      addr: `${name}:9095`,
      timestamp: Math.floor((clock.now() - heartbeatAgoMs) / 1000),
      state,
      tokens,
      zone: '',
      registeredTimestamp: 0,
    };
  }
  ring.setDesc(desc);
  return ring;
}

const tenants = Array.from({ length: 200 }, (_, i) => `tenant-${i}`);

/** The instance owning the first token above the hash, wrapping around. */
function modelOwner(desc: RingDesc, tenant: string): string {
  const h = fnv32a(tenant);
  let best: [number, string] | undefined;
  let lowest: [number, string] | undefined;
  for (const [name, inst] of Object.entries(desc.ingesters)) {
    for (const t of inst.tokens) {
      if (t > h && (best === undefined || t < best[0])) best = [t, name];
      if (lowest === undefined || t < lowest[0]) lowest = [t, name];
    }
  }
  return (best ?? lowest)![1];
}

describe('tenant ownership in a 2-instance compactor ring', () => {
  it('gives every tenant exactly one owner, the instance of the next token', () => {
    const clock = new ManualClock(T0);
    const ring = ringOf(clock, { a: 'ACTIVE', b: 'ACTIVE' });
    const counts = { a: 0, b: 0 };
    for (const t of tenants) {
      const a = ownsTenant(ring, t, 'a:9095');
      const b = ownsTenant(ring, t, 'b:9095');
      expect(a !== b).toBe(true);
      const owner = a ? 'a' : 'b';
      counts[owner]++;
      expect(owner).toBe(modelOwner(ring.desc(), t));
      expect(tenantOwner(ring, t).id).toBe(owner);
    }
    expect(counts.a).toBeGreaterThan(40);
    expect(counts.b).toBeGreaterThan(40);
  });

  it('a tenant landing on a non-ACTIVE or stale instance has no owner', () => {
    const clock = new ManualClock(T0);
    const ring = ringOf(clock, { a: 'ACTIVE', b: 'LEAVING' });
    for (const t of tenants) {
      if (modelOwner(ring.desc(), t) === 'b') {
        expect(() => tenantOwner(ring, t)).toThrow(RingError);
      } else {
        expect(ownsTenant(ring, t, 'a:9095')).toBe(true);
      }
    }
    const stale = ringOf(clock, { a: 'ACTIVE' }, 120_000);
    expect(() => ownsTenant(stale, 'x', 'a:9095')).toThrow(RingError);
  });

  it('two cleaners over one bucket each clean exactly their own tenants', async () => {
    const clock = new ManualClock(T0);
    const ring = ringOf(clock, { a: 'ACTIVE', b: 'ACTIVE' });
    const inner = new MemoryBucket({ clock });
    const some = tenants.slice(0, 30);
    for (const t of some) await uploadTestBlock(inner, t, testUlid(T0 - 86_400_000, 1));
    const cleaned: Record<string, string[]> = {};
    for (const name of ['a', 'b']) {
      const bucket = new RecordingBucket(inner);
      const cleaner = new BlocksCleaner(
        { deletionDelayMs: 0, cleanupConcurrency: 4 },
        {
          bucket,
          clock,
          logger: new CapturingLogger(),
          metrics: newMetricsRegistry(),
          isOwned: (t) => ownsTenant(ring, t, `${name}:9095`),
        },
      );
      await cleaner.runCleanup(new AbortController().signal, true);
      cleaned[name] = bucket
        .names('upload')
        .filter((n) => n.endsWith('bucket-index.json.gz'))
        .map((n) => n.split('/')[0] as string);
    }
    const all = [...(cleaned.a ?? []), ...(cleaned.b ?? [])].sort();
    expect(all).toEqual([...some].sort());
    for (const t of some) {
      expect(await inner.exists(bucketIndexPath(t))).toBe(true);
      expect((cleaned[modelOwner(ring.desc(), t)] ?? []).includes(t)).toBe(true);
    }
  });
});
