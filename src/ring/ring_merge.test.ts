import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TestCluster } from '../runtime/memberlist/memberlist_fixture.testing.js';
import { JSON_RING_CODEC } from './codec.js';
import { INSTANCE_STATES, emptyRingDesc, type InstanceDesc, type RingDesc } from './model.js';
import {
  RING_MERGE_CODEC,
  compareInstances,
  mergeRing,
  removeRingTombstones,
  ringView,
} from './ring_merge.js';

/** Few IDs, timestamps and tokens, so equal timestamps and shared tokens are common. */
const instanceArb: fc.Arbitrary<InstanceDesc> = fc
  .record({
    addr: fc.constantFrom('a:1', 'b:1', 'c:1'),
    timestamp: fc.integer({ min: 0, max: 3 }),
    state: fc.constantFrom(...INSTANCE_STATES),
    tokens: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { maxLength: 4 }),
    zone: fc.constantFrom('', 'z1'),
    registeredTimestamp: fc.integer({ min: 0, max: 2 }),
  })
  .map((i) => ({
    ...i,
    tokens: i.state === 'LEFT' ? [] : [...i.tokens].sort((a, b) => a - b),
  }));

const ringArb: fc.Arbitrary<RingDesc> = fc
  .dictionary(fc.constantFrom('i1', 'i2', 'i3', 'i4'), instanceArb, { maxKeys: 4 })
  .map((ingesters) => {
    const d = emptyRingDesc();
    for (const [id, inst] of Object.entries(ingesters)) d.ingesters[id] = inst;
    return d;
  });

/** a ⊔ b as a member computes it: b merged into a. */
const join = (a: RingDesc, b: RingDesc): RingDesc => mergeRing(a, b, false, 0)?.value ?? a;
const plain = (d: RingDesc): unknown =>
  JSON.parse(new TextDecoder().decode(JSON_RING_CODEC.encode(d)));

describe('ring merge (memberlist CRDT)', () => {
  it('is commutative', () => {
    fc.assert(
      fc.property(ringArb, ringArb, (a, b) => {
        expect(plain(join(a, b))).toEqual(plain(join(b, a)));
      }),
    );
  });

  it('is associative', () => {
    fc.assert(
      fc.property(ringArb, ringArb, ringArb, (a, b, c) => {
        expect(plain(join(join(a, b), c))).toEqual(plain(join(a, join(b, c))));
      }),
    );
  });

  it('is idempotent and reports no change for what it already has', () => {
    fc.assert(
      fc.property(ringArb, ringArb, (a, b) => {
        expect(mergeRing(a, a, false, 0)).toBeUndefined();
        const ab = join(a, b);
        expect(mergeRing(ab, b, false, 0)).toBeUndefined();
        expect(mergeRing(ab, a, false, 0)).toBeUndefined();
      }),
    );
  });

  it('gossiping the change has the effect of the whole incoming state', () => {
    fc.assert(
      fc.property(ringArb, ringArb, ringArb, (a, b, other) => {
        const merged = mergeRing(a, b, false, 0);
        if (merged === undefined) return;
        // Another member that already has `a` (and maybe more) ends where it would with all of b.
        const base = join(other, a);
        expect(plain(join(base, merged.change))).toEqual(plain(join(base, b)));
      }),
    );
  });

  it('members receiving the same states in any order converge', () => {
    fc.assert(
      fc.property(
        fc.array(ringArb, { minLength: 1, maxLength: 5 }),
        fc.integer(),
        (states, seed) => {
          const inOrder = states.reduce(join, emptyRingDesc());
          const shuffled = [...states].reverse();
          const rotated = [
            ...states.slice(Math.abs(seed) % states.length),
            ...states.slice(0, Math.abs(seed) % states.length),
          ];
          expect(plain(shuffled.reduce(join, emptyRingDesc()))).toEqual(plain(inOrder));
          expect(plain(rotated.reduce(join, emptyRingDesc()))).toEqual(plain(inOrder));
        },
      ),
    );
  });

  it('the client view is a function of the state: no LEFT, every token owned once', () => {
    fc.assert(
      fc.property(ringArb, ringArb, (a, b) => {
        const view = ringView(join(a, b));
        expect(Object.values(view.ingesters).some((i) => i.state === 'LEFT')).toBe(false);
        const tokens = Object.values(view.ingesters).flatMap((i) => i.tokens);
        expect(new Set(tokens).size).toBe(tokens.length);
        expect(plain(view)).toEqual(plain(ringView(join(b, a))));
      }),
    );
  });
});

const inst = (over: Partial<InstanceDesc> = {}): InstanceDesc => ({
  addr: 'x:9095',
  timestamp: 100,
  state: 'ACTIVE',
  tokens: [1, 2, 3],
  zone: '',
  registeredTimestamp: 50,
  ...over,
});
const ring = (ingesters: Record<string, InstanceDesc>): RingDesc => {
  const d = emptyRingDesc();
  Object.assign(d.ingesters, ingesters);
  return d;
};

describe('ring merge rules (Cortex Desc.Merge)', () => {
  it('takes the newer heartbeat per instance and reports only what changed', () => {
    const cur = ring({ a: inst(), b: inst({ tokens: [7] }) });
    const res = mergeRing(
      cur,
      ring({ a: inst({ timestamp: 101, state: 'LEAVING' }), b: inst({ timestamp: 99 }) }),
      false,
      0,
    );
    expect(res?.value.ingesters['a']?.state).toBe('LEAVING');
    expect(res?.value.ingesters['b']?.tokens).toEqual([7]);
    expect(Object.keys(res?.change.ingesters ?? {})).toEqual(['a']);
  });

  it('accepts LEFT with an equal timestamp, and LEFT carries no tokens', () => {
    const res = mergeRing(ring({ a: inst() }), ring({ a: inst({ state: 'LEFT' }) }), false, 0);
    expect(res?.value.ingesters['a']).toMatchObject({ state: 'LEFT', tokens: [] });
    expect(mergeRing(res!.value, ring({ a: inst() }), false, 0)).toBeUndefined();
  });

  it('a local CAS that drops an instance turns it into a LEFT tombstone stamped now', () => {
    const cur = ring({ a: inst(), b: inst({ tokens: [9] }) });
    const res = mergeRing(cur, ring({ a: inst() }), true, 250_000);
    expect(res?.value.ingesters['b']).toMatchObject({ state: 'LEFT', tokens: [], timestamp: 250 });
    expect(Object.keys(res?.change.ingesters ?? {})).toEqual(['b']);
    // An old heartbeat of b arriving later does not bring it back.
    expect(
      mergeRing(res!.value, ring({ b: inst({ timestamp: 200, tokens: [9] }) }), false, 0),
    ).toBeUndefined();
    // Without localCAS a missing instance is just not mentioned.
    expect(mergeRing(cur, ring({ a: inst() }), false, 250_000)).toBeUndefined();
  });

  it('orders equal-timestamp copies the same way on every member (Strata tie-break)', () => {
    const x = inst({ state: 'JOINING' });
    const y = inst({ state: 'ACTIVE' });
    expect(compareInstances(x, y)).toBe(-compareInstances(y, x));
    expect(compareInstances(x, x)).toBe(0);
  });

  it('removes LEFT tombstones older than the limit and counts the rest', () => {
    const d = ring({
      old: inst({ state: 'LEFT', timestamp: 100, tokens: [] }),
      recent: inst({ state: 'LEFT', timestamp: 400, tokens: [] }),
      live: inst({ timestamp: 1 }),
    });
    const r = removeRingTombstones(d, 300_000);
    expect(Object.keys(r.value.ingesters).sort()).toEqual(['live', 'recent']);
    expect([r.total, r.removed]).toEqual([1, 1]);
    expect(Object.keys(removeRingTombstones(d, undefined).value.ingesters)).toEqual(['live']);
  });

  it('the view gives a shared token to the non-LEAVING instance, else the smaller ID', () => {
    const v = ringView(
      ring({
        a: inst({ state: 'LEAVING', tokens: [1, 2] }),
        b: inst({ tokens: [2, 3] }),
        c: inst({ tokens: [3, 4] }),
      }),
    );
    expect(v.ingesters['a']?.tokens).toEqual([1]);
    expect(v.ingesters['b']?.tokens).toEqual([2, 3]);
    expect(v.ingesters['c']?.tokens).toEqual([4]);
  });

  it('the codec keeps tombstones on the wire and hides them from clients', () => {
    const d = ring({ a: inst(), gone: inst({ state: 'LEFT', tokens: [] }) });
    const wire = RING_MERGE_CODEC.decode(RING_MERGE_CODEC.encode(d));
    expect(wire.ingesters['gone']?.state).toBe('LEFT');
    const client = JSON_RING_CODEC.decode(RING_MERGE_CODEC.toClient(d));
    expect(Object.keys(client.ingesters)).toEqual(['a']);
    expect(RING_MERGE_CODEC.content(d)).toEqual(['a', 'gone']);
  });
});

describe('ring tombstones in the memberlist KV', () => {
  it('a removed instance stays as a hidden LEFT tombstone until left_ingesters_timeout, then goes', async () => {
    const cluster = new TestCluster([RING_MERGE_CODEC]);
    const m = await cluster.add('m', { leftIngestersTimeoutMs: 60_000 });
    const kv = m.kv.openClient('collectors/', 'ringDesc');
    const write = (mutate: (d: RingDesc) => void): Promise<void> =>
      kv.cas('ring', (cur) => {
        const d = JSON_RING_CODEC.decode(cur);
        mutate(d);
        return JSON_RING_CODEC.encode(d);
      });
    const nowS = (): number => Math.floor(cluster.clock.now() / 1000);
    await write((d) => {
      d.ingesters['a'] = inst({ timestamp: nowS() });
      d.ingesters['b'] = inst({ timestamp: nowS(), tokens: [9] });
    });
    await write((d) => void delete d.ingesters['b']);
    const parts = (): number | undefined => m.kv.status().keys[0]?.parts;
    expect(parts()).toBe(2);
    expect(Object.keys(JSON_RING_CODEC.decode(await kv.get('ring')).ingesters)).toEqual(['a']);
    const gauge = async (): Promise<string> =>
      m.registry.getSingleMetricAsString('memberlist_client_kv_store_value_tombstones');
    expect(await gauge()).toContain('key="collectors/ring"} 1');
    // Before the timeout a heartbeat keeps the tombstone; after it, the next change drops it.
    await cluster.advance(30_000);
    await write((d) => void (d.ingesters['a'] = inst({ timestamp: nowS() })));
    expect(parts()).toBe(2);
    await cluster.advance(31_000);
    await write((d) => void (d.ingesters['a'] = inst({ timestamp: nowS() })));
    expect(parts()).toBe(1);
    expect(await gauge()).toContain('key="collectors/ring"} 0');
    await cluster.stopAll();
  });
});
