import { describe, expect, it } from 'vitest';
import { MemoryKV, MemoryKVStore, newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { discardedMetrics } from './discarded_metrics.js';
import { ReplicasNotMatchError, TooManyHAClustersError } from './errors.js';
import { decodeReplicaDesc, encodeReplicaDesc } from './ha_replica_desc.js';
import { HATracker, removeLabelFromAllSeries } from './ha_tracker.js';
import { renderHATrackerPage } from './ha_tracker_page.js';
import { DEFAULT_DISTRIBUTOR_LIMITS, type DistributorLimits } from './limits.js';
import { buildWriteRequest } from './write_request_build.js';

const limits: DistributorLimits = { ...DEFAULT_DISTRIBUTOR_LIMITS, acceptHASamples: true };

function setup(store = new MemoryKVStore(), clock = new ManualClock(1_000_000)) {
  const registry = newMetricsRegistry();
  const kv = new MemoryKV({ prefix: 'ha-tracker/' }, { store });
  const tracker = new HATracker(
    { updateTimeoutMs: 15_000, failoverTimeoutMs: 30_000 },
    { kv, clock, registry, logger: new CapturingLogger(), discarded: discardedMetrics(registry) },
  );
  return { tracker, clock, kv, store, registry };
}

function push(replica: string, cluster = 'c1') {
  return buildWriteRequest({
    series: [
      {
        labels: [
          ['__name__', 'up'],
          ['__replica__', replica],
          ['cluster', cluster],
        ],
        samples: [{ value: 1, timestamp: 1 }],
      },
      {
        labels: [
          ['__name__', 'x'],
          ['__replica__', replica],
        ],
        samples: [{ value: 2, timestamp: 1 }],
      },
    ],
  });
}

async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (e) {
    if (e instanceof ReplicasNotMatchError) return `deduped (${e.status}): ${e.message}`;
    return `error: ${(e as Error).message}`;
  }
}

describe('HATracker', () => {
  it('elects the first replica, dedupes the others with 202, and keeps it in the KV', async () => {
    const { tracker, kv, registry } = setup();
    expect(await tracker.checkRequest('t', limits, push('a'))).toEqual({
      removeReplicaLabel: true,
    });
    expect(await outcome(tracker.checkRequest('t', limits, push('b')))).toBe(
      'deduped (202): replicas did not mach, rejecting sample: replica=b, elected=a',
    );
    const stored = await kv.get('t/c1');
    expect(stored && decodeReplicaDesc(stored)).toEqual({
      replica: 'a',
      receivedAt: 1_000_000,
      deletedAt: 0,
    });
    expect(await registry.metrics()).toContain(
      'cortex_distributor_deduped_samples_total{user="t",cluster="c1"} 2',
    );
  });

  it('fails over only after the failover timeout, and renews after the update timeout', async () => {
    const { tracker, clock, kv } = setup();
    await tracker.checkReplica('t', 'c1', 'a');
    await clock.advance(20_000);
    // past the update timeout: goes to the KV, which still holds a (within failover)
    expect(await outcome(tracker.checkReplica('t', 'c1', 'b'))).toMatch(/^deduped/);
    await tracker.checkReplica('t', 'c1', 'a'); // renews received_at
    expect(decodeReplicaDesc((await kv.get('t/c1')) as Uint8Array).receivedAt).toBe(1_020_000);
    await clock.advance(29_999);
    expect(await outcome(tracker.checkReplica('t', 'c1', 'b'))).toMatch(/^deduped/);
    await clock.advance(1);
    expect(await outcome(tracker.checkReplica('t', 'c1', 'b'))).toBe('accepted');
    expect(await outcome(tracker.checkReplica('t', 'c1', 'a'))).toMatch(/elected=b$/);
  });

  it('sees elections made by another distributor through the KV watch', async () => {
    const store = new MemoryKVStore();
    const clock = new ManualClock(5_000_000);
    const one = setup(store, clock);
    const two = setup(store, clock);
    const ac = new AbortController();
    const watching = two.tracker.run(ac.signal);
    await one.tracker.checkReplica('t', 'c1', 'a');
    await clock.advance(0);
    expect(two.tracker.electedReplicas()).toEqual([
      { tenant: 't', cluster: 'c1', replica: 'a', receivedAt: 5_000_000 },
    ]);
    expect(await outcome(two.tracker.checkReplica('t', 'c1', 'b'))).toMatch(/elected=a$/);
    ac.abort();
    await watching.catch(() => undefined);
  });

  it('ignores pushes without both HA labels and does not remove anything', async () => {
    const { tracker } = setup();
    const req = buildWriteRequest({
      series: [
        {
          labels: [
            ['__name__', 'up'],
            ['cluster', 'c'],
          ],
          samples: [],
        },
      ],
    });
    expect(await tracker.checkRequest('t', limits, req)).toEqual({ removeReplicaLabel: false });
    expect(
      await tracker.checkRequest('t', { ...limits, acceptHASamples: false }, push('a')),
    ).toEqual({
      removeReplicaLabel: false,
    });
  });

  it('limits clusters per tenant with ha_max_clusters (400)', async () => {
    const { tracker } = setup();
    const l = { ...limits, haMaxClusters: 1 };
    await tracker.checkRequest('t', l, push('a', 'c1'));
    const err = await tracker.checkRequest('t', l, push('a', 'c2')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyHAClustersError);
    expect((err as TooManyHAClustersError).status).toBe(400);
    expect((err as Error).message).toBe('too many HA clusters (limit: 1)');
  });

  it('removes the replica label from accepted series', () => {
    const req = push('a');
    const before = req.series.map((s) => s.labels);
    const copies = before.map((l) => [...l]);
    removeLabelFromAllSeries(req, '__replica__');
    // The decoded arrays may be shared with other requests: replaced, never changed.
    expect(before).toEqual(copies);
    expect(req.series.map((s) => s.labels)).toEqual([
      ['__name__', 'up', 'cluster', 'c1'],
      ['__name__', 'x'],
    ]);
  });

  it('marks idle clusters deleted, then deletes them', async () => {
    const { tracker, clock, kv } = setup();
    await tracker.checkReplica('t', 'c1', 'a');
    await clock.advance(60_000);
    await tracker.cleanupOldReplicas(clock.now() - 30_000);
    expect(decodeReplicaDesc((await kv.get('t/c1')) as Uint8Array).deletedAt).toBe(1_060_000);
    expect(tracker.electedReplicas()).toEqual([]);
    await tracker.cleanupOldReplicas(clock.now() + 1);
    expect(await kv.get('t/c1')).toBeUndefined();
  });

  it('rejects a failover timeout not above update timeout + jitter + 1s', () => {
    const registry = newMetricsRegistry();
    expect(
      () =>
        new HATracker(
          { updateTimeoutMs: 15_000, updateTimeoutJitterMs: 5_000, failoverTimeoutMs: 20_000 },
          {
            kv: new MemoryKV({}, { store: new MemoryKVStore() }),
            clock: new ManualClock(),
            registry,
            logger: new CapturingLogger(),
            discarded: discardedMetrics(registry),
          },
        ),
    ).toThrow(/failover timeout/);
  });

  it("encodes ReplicaDesc as Cortex's protobuf", () => {
    const bytes = encodeReplicaDesc({ replica: 'r', receivedAt: 300, deletedAt: 0 });
    expect(Array.from(bytes)).toEqual([0x0a, 0x01, 0x72, 0x10, 0xac, 0x02]);
  });
});

describe('renderHATrackerPage', () => {
  it('lists elected replicas with escaped cells and time left', () => {
    const html = renderHATrackerPage({
      nowMs: Date.UTC(2024, 0, 1, 0, 0, 10),
      updateTimeoutMs: 15_000,
      failoverTimeoutMs: 30_000,
      elected: [{ tenant: 't<1>', cluster: 'c', replica: 'r', receivedAt: Date.UTC(2024, 0, 1) }],
    });
    expect(html).toContain(
      '<td>t&lt;1&gt;</td><td>c</td><td>r</td><td>2024-01-01T00:00:00.000Z</td><td>5s</td><td>20s</td>',
    );
    expect(
      renderHATrackerPage({ nowMs: 0, updateTimeoutMs: 1, failoverTimeoutMs: 2, elected: [] }),
    ).toContain('No elected replicas');
  });
});
