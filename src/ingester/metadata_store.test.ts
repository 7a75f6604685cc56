import { describe, expect, it } from 'vitest';
import type { MetricMetadata } from '../distributor/index.js';
import { newMetricsRegistry, type MetricsRegistry } from '../runtime/index.js';
import { HarnessLimits } from './ingester_harness.testing.js';
import { MetadataStore } from './metadata_store.js';

const md = (name: string, help = `${name} help`, type = 1, unit = ''): MetricMetadata => ({
  metricFamilyName: name,
  type,
  help,
  unit,
});

async function value(registry: MetricsRegistry, name: string, labels: string): Promise<number> {
  const text = await registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.split(' ')[1]);
}

function newStore(limits = new HarnessLimits(), instances = 3, rf = 3) {
  const registry = newMetricsRegistry();
  const store = new MetadataStore(
    limits,
    { replicationFactor: () => rf, healthyInstances: () => instances },
    registry,
  );
  return { store, registry, limits };
}

describe('MetadataStore', () => {
  it('keeps each distinct metadata per family and tenant, refreshed by repeats', async () => {
    const { store, registry } = newStore();
    expect(store.add('a', [md('up'), md('up'), md('go_goroutines', 'g', 2)], 1000)).toEqual([]);
    store.add('a', [md('up', 'other help')], 2000);
    store.add('b', [md('up')], 2000);
    expect(store.metadata('a')).toEqual([
      md('go_goroutines', 'g', 2),
      md('up'),
      md('up', 'other help'),
    ]);
    expect(store.metadata('b')).toEqual([md('up')]);
    expect(store.metadata('nobody')).toEqual([]);
    expect(store.size).toBe(4);
    expect(await value(registry, 'cortex_ingester_memory_metadata', '')).toBe(4);
    expect(
      await value(registry, 'cortex_ingester_memory_metadata_created_total', '{user="a"}'),
    ).toBe(3);
    // Seen again at 9000: survives a purge of everything older than 5000.
    store.add('a', [md('up')], 9000);
    expect(store.purge(5000)).toBe(3);
    expect(store.metadata('a')).toEqual([md('up')]);
    expect(store.metadata('b')).toEqual([]);
    expect(
      await value(registry, 'cortex_ingester_memory_metadata_removed_total', '{user="a"}'),
    ).toBe(2);
    expect(await value(registry, 'cortex_ingester_memory_metadata', '')).toBe(1);
  });

  it('refuses new families over the per-user limit and new entries over the per-metric limit', async () => {
    const limits = new HarnessLimits();
    limits.metadataPerUser = 2;
    limits.metadataPerMetric = 2;
    const { store, registry } = newStore(limits);
    store.add('t', [md('a'), md('b')], 0);
    const refused = store.add('t', [md('c'), md('a', 'x'), md('a', 'y'), md('a')], 0);
    expect(refused.map((r) => r.reason)).toEqual([
      'per_user_metadata_limit',
      'per_metric_metadata_limit',
    ]);
    expect(refused[0]?.message).toBe(
      'per-user metric metadata limit of 2 exceeded, please contact administrator to raise it (local limit: 2 global limit: 0 actual local limit: 2)',
    );
    expect(refused[1]?.message).toMatch(/per-metric metadata limit of 2 exceeded.* for metric a$/);
    expect(store.metadata('t')).toEqual([md('a'), md('a', 'x'), md('b')]);
    expect(
      await value(
        registry,
        'cortex_discarded_metadata_total',
        '{reason="per_user_metadata_limit",user="t"}',
      ),
    ).toBe(1);
    expect(
      await value(
        registry,
        'cortex_discarded_metadata_total',
        '{reason="per_metric_metadata_limit",user="t"}',
      ),
    ).toBe(1);
    // Another tenant has its own budget.
    expect(store.add('u', [md('c')], 0)).toEqual([]);
  });

  it('converts global limits to this ingester’s share and takes the smaller non-zero one', () => {
    const limits = new HarnessLimits();
    limits.metadataPerUser = 0;
    limits.metadataPerMetric = 0;
    limits.globalMetadataPerUser = 10;
    limits.globalMetadataPerMetric = 4;
    // 10 ingesters, RF 3: 10 / 10 * 3 = 3 families, 4 / 10 * 3 = 1 per metric.
    const { store } = newStore(limits, 10, 3);
    expect(store.localMetadataPerUser('t')).toBe(3);
    expect(store.localMetadataPerMetric('t')).toBe(1);
    limits.metadataPerUser = 2;
    expect(store.localMetadataPerUser('t')).toBe(2);
    limits.metadataPerUser = 0;
    limits.globalMetadataPerUser = 0;
    expect(store.localMetadataPerUser('t')).toBe(0);
    store.add('t', [md('a'), md('a', 'other'), md('b'), md('c')], 0);
    expect(store.metadata('t')).toEqual([md('a'), md('b'), md('c')]);
  });
});
