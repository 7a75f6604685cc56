import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { TestCluster } from '../runtime/memberlist/memberlist_fixture.testing.js';
import { newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger } from '../runtime/testing/index.js';
import { discardedMetrics } from './discarded_metrics.js';
import { decodeReplicaDesc, type ReplicaDesc } from './ha_replica_desc.js';
import { HA_REPLICA_MERGE_CODEC, compareReplicaDescs } from './ha_replica_merge.js';
import { HATracker } from './ha_tracker.js';

const descArb: fc.Arbitrary<ReplicaDesc> = fc.record({
  replica: fc.constantFrom('', 'r1', 'r2'),
  receivedAt: fc.integer({ min: 0, max: 3 }),
  deletedAt: fc.integer({ min: 0, max: 2 }),
});
const join = (a: ReplicaDesc, b: ReplicaDesc): ReplicaDesc =>
  HA_REPLICA_MERGE_CODEC.merge(a, b, { localCAS: false, nowMs: 0 })?.value ?? a;

describe('HA replica merge', () => {
  it('is commutative, associative and idempotent', () => {
    fc.assert(
      fc.property(descArb, descArb, descArb, (a, b, c) => {
        expect(join(a, b)).toEqual(join(b, a));
        expect(join(join(a, b), c)).toEqual(join(a, join(b, c)));
        expect(HA_REPLICA_MERGE_CODEC.merge(a, a, { localCAS: false, nowMs: 0 })).toBeUndefined();
      }),
    );
  });

  it('keeps the latest received_at, and the deletion mark of the same renewal', () => {
    const a: ReplicaDesc = { replica: 'r1', receivedAt: 10, deletedAt: 0 };
    expect(join(a, { replica: 'r2', receivedAt: 11, deletedAt: 0 }).replica).toBe('r2');
    expect(join(a, { replica: 'r2', receivedAt: 9, deletedAt: 0 }).replica).toBe('r1');
    expect(join(a, { ...a, deletedAt: 20 }).deletedAt).toBe(20);
    expect(compareReplicaDescs(a, a)).toBe(0);
  });

  it('round-trips Cortex protobuf bytes', () => {
    fc.assert(
      fc.property(descArb, (d) => {
        expect(HA_REPLICA_MERGE_CODEC.decode(HA_REPLICA_MERGE_CODEC.encode(d))).toEqual(d);
      }),
    );
  });
});

describe('HA tracker over the memberlist KV', () => {
  let cluster: TestCluster;
  afterEach(async () => {
    await cluster.stopAll();
  });

  it('two distributors agree on the elected replica; the cleanup deletion reaches both', async () => {
    cluster = new TestCluster([HA_REPLICA_MERGE_CODEC]);
    await cluster.add('d1');
    await cluster.add('d2', { joinMembers: ['d1'] });
    const trackers = ['d1', 'd2'].map((name) => {
      const registry = newMetricsRegistry();
      const kv = cluster.member(name).kv.openClient('ha-tracker/', 'replicaDesc');
      return {
        kv,
        tracker: new HATracker(
          { updateTimeoutMs: 15_000, failoverTimeoutMs: 30_000 },
          {
            kv,
            clock: cluster.clock,
            registry,
            logger: new CapturingLogger(),
            discarded: discardedMetrics(registry),
          },
        ),
      };
    });
    const [one, two] = trackers as [(typeof trackers)[0], (typeof trackers)[0]];
    await one.tracker.checkReplica('t', 'c', 'r1');
    await cluster.until(
      () => cluster.member('d2').kv.clientValue('ha-tracker/t/c') !== undefined,
      5_000,
    );
    // d2 reads the KV (no local cache yet) and sees r1 elected: r2 is deduplicated.
    await expect(two.tracker.checkReplica('t', 'c', 'r2')).rejects.toThrow(/r1/);
    await cluster.advance(40_000);
    // After the failover timeout d2 elects r2; d1 learns it by gossip.
    await two.tracker.checkReplica('t', 'c', 'r2');
    await cluster.until(() => {
      const v = cluster.member('d1').kv.clientValue('ha-tracker/t/c');
      return v !== undefined && decodeReplicaDesc(v).replica === 'r2';
    }, 5_000);
    // Cleanup marks the entry deleted, then deletes it; both distributors end without it.
    await one.tracker.cleanupOldReplicas(cluster.clock.now() + 1);
    await one.tracker.cleanupOldReplicas(cluster.clock.now() + 2);
    await cluster.until(
      () => cluster.member('d2').kv.clientValue('ha-tracker/t/c') === undefined,
      5_000,
    );
    expect(await two.kv.list('')).toEqual([]);
  });
});
