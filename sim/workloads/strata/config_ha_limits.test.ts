import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from '../../../src/overrides/index.js';
import { parseStrataConfig } from './config.js';
import { haReplicaOf } from './config_ha.js';
import { inQuietWindow, limitsRuntimeYaml, phaseAt } from './config_limits.js';
import { strataNodeConfig } from './node_config.js';

const PHASE = {
  ingestion_rate: 40,
  ingestion_burst_size: 150,
  max_global_series_per_user: 24,
  max_global_series_per_metric: 10,
  max_label_names_per_series: 8,
  max_label_name_length: 24,
  max_label_value_length: 32,
};

const parse = (workload: Record<string, unknown>): ReturnType<typeof parseStrataConfig> =>
  parseStrataConfig(workload, 'workload');

describe('workload.ha_tracker', () => {
  const ha = {
    update_timeout: '4s',
    update_timeout_jitter_max: '2s',
    failover_timeout: '10s',
    clusters: { a: ['p1', 'p2'] },
  };

  it('configures the distributors and names each replica', () => {
    const c = parse({ ha_tracker: ha });
    expect(haReplicaOf(c.ha, 'p2')).toEqual({ cluster: 'a', replica: 'p2', index: 1, of: 2 });
    expect(haReplicaOf(c.ha, 'writer-1')).toBeUndefined();
    const node = strataNodeConfig('distributor', 'distributor-1', c);
    expect(node.distributor.ha_tracker).toMatchObject({
      enable_ha_tracker: true,
      ha_tracker_update_timeout: 4_000,
      ha_tracker_update_timeout_jitter_max: 2_000,
      ha_tracker_failover_timeout: 10_000,
      kvstore: { store: 'inmemory' },
    });
    expect(node.limits).toMatchObject({
      accept_ha_samples: true,
      ha_cluster_label: 'cluster',
      ha_replica_label: '__replica__',
    });
  });

  it('rejects what Cortex rejects and what the checks cannot judge', () => {
    expect(() => parse({ ha_tracker: { ...ha, failover_timeout: '6s' } })).toThrow(
      'workload.ha_tracker.failover_timeout: must be at least 1s greater than update_timeout + update_timeout_jitter_max (7s), got 6s',
    );
    expect(() => parse({ ha_tracker: { ...ha, clusters: { a: ['p1'] } } })).toThrow(
      'workload.ha_tracker.clusters.a: an HA cluster needs at least two replicas, got 1',
    );
    expect(() => parse({ ha_tracker: { ...ha, broken: 'sometimes' } })).toThrow(
      'workload.ha_tracker.broken: unknown mode "sometimes" (known: none, never_failover)',
    );
  });
});

describe('workload.limits', () => {
  const limits = {
    reload_period: '2s',
    phases: [
      { at: '0s', ...PHASE },
      { at: '40s', ...PHASE, ingestion_rate: 80 },
    ],
  };

  it('phases, quiet windows and the runtime-config file the nodes reload', () => {
    const c = parse({ tenants: [{ name: 'team-a' }], limits });
    const l = c.limits!;
    expect(l.quietMs).toBe(13_000);
    expect(phaseAt(l, 39_999).limits.ingestionRate).toBe(40);
    expect(phaseAt(l, 40_000).limits.ingestionRate).toBe(80);
    expect([38_999, 39_000, 52_999, 53_000].map((t) => inQuietWindow(l, t))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    const node = strataNodeConfig('ingester', 'ingester-1', c);
    expect(node.runtime_config).toEqual({ file: '/etc/strata/runtime.yaml', period: 2_000 });
    // The product's own parser reads the file the harness writes.
    const parsed = parseRuntimeConfig(limitsRuntimeYaml(c.tenants, l.phases[1]!.limits));
    expect(parsed.overrides.get('team-a')).toMatchObject({
      ingestion_rate: 80,
      ingestion_burst_size: 150,
      max_global_series_per_user: 24,
      max_global_series_per_metric: 10,
      max_label_names_per_series: 8,
      max_label_name_length: 24,
      max_label_value_length: 32,
    });
  });

  it('rejects phases the model cannot judge', () => {
    expect(() => parse({ limits: { ...limits, phases: [{ at: '5s', ...PHASE }] } })).toThrow(
      'workload.limits.phases[0].at: must be 0s',
    );
    expect(() =>
      parse({
        limits: {
          ...limits,
          phases: [
            { at: '0s', ...PHASE },
            { at: '10s', ...PHASE },
          ],
        },
      }),
    ).toThrow(
      'workload.limits.phases[1].at: must come at least quiet (13s) after the previous phase',
    );
    expect(() => parse({ limits: { ...limits, quiet: '5s' } })).toThrow(
      "workload.limits.quiet: must cover the reload period plus the rate limiter's 10s re-read plus 1s (13s), got 5s",
    );
    const { ingestion_rate: _, ...missing } = PHASE;
    expect(() => parse({ limits: { phases: [{ at: '0s', ...missing }] } })).toThrow(
      'workload.limits.phases[0]: missing required key ingestion_rate',
    );
  });
});
