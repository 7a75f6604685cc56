import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from '../../../src/overrides/index.js';
import { loadScenario } from '../../scenario/index.js';
import {
  describeStrata,
  parseStrataConfig,
  queryText,
  type StrataWorkloadConfig,
} from './config.js';
import { runtimeConfigYaml, strataNodeConfig } from './node_config.js';

const parse = (raw: Record<string, unknown>): StrataWorkloadConfig =>
  parseStrataConfig(raw, 'workload');

describe('strata workload config', () => {
  it('has defaults for everything', () => {
    const c = parse({});
    expect(c).toMatchObject({
      replicationFactor: 3,
      blockRangeMs: 7_200_000,
      brokenIngester: 'none',
      tenants: [{ name: 'tenant-1', outOfOrderWindowMs: 0 }],
      remoteWrite: { batchSize: 100, timeoutMs: 5_000, minBackoffMs: 30, maxBackoffMs: 5_000 },
    });
    expect(c.reader.readAtMs).toBeGreaterThan(c.scrape.stopMs);
  });

  it('refuses what it cannot run, naming the key', () => {
    expect(() => parse({ bogus: 1 })).toThrow(/workload: unknown key "bogus"/);
    expect(() => parse({ broken_ingester: 'eat_data' })).toThrow(
      /broken_ingester: unknown mode "eat_data"/,
    );
    expect(() => parse({ scrape: { interval: '5s', jitter: '5s' } })).toThrow(
      /scrape.jitter: must be below the interval/,
    );
    expect(() => parse({ scrape: { stop: '1m' }, reader: { read_at: '30s' } })).toThrow(
      /reader.read_at: must follow scrape.stop/,
    );
    expect(() => parse({ tenants: [{ name: 'a/b' }] })).toThrow(/invalid tenant id/);
    expect(() => parse({ tenants: [{ name: 'a' }, { name: 'a' }] })).toThrow(/duplicate tenant a/);
    expect(() => parse({ reader: { queries: [{ kind: 'avg' }] } })).toThrow(
      /unknown query kind "avg"/,
    );
    expect(() => parse({ reader: { queries: [{ kind: 'sum', tenant: 'zz' }] } })).toThrow(
      /unknown tenant "zz"/,
    );
    expect(() => parse({ outages: { w: [{ from: '2m', until: '1m' }] } })).toThrow(
      /until: must follow from/,
    );
  });

  it('prints PromQL for each query kind', () => {
    const q = { tenant: 't', metric: 'm', rangeMs: 60_000, atMs: [] };
    expect(queryText({ ...q, kind: 'count_over_time' })).toBe('count_over_time(m[1m0s])');
    expect(queryText({ ...q, kind: 'sum_count_over_time' })).toBe('sum(count_over_time(m[1m0s]))');
    expect(queryText({ ...q, kind: 'count' })).toBe('count(m)');
  });

  it('the built-in scenarios parse and describe themselves', async () => {
    const crash = await loadScenario('ingester-crash');
    const late = await loadScenario('late-sender');
    expect(crash.workload.kind).toBe('strata');
    const lc = late.workload.config as StrataWorkloadConfig;
    expect(lc.tenants).toEqual([
      { name: 'team-a', outOfOrderWindowMs: 0 },
      { name: 'team-b', outOfOrderWindowMs: 7_200_000 },
    ]);
    expect(lc.outages.get('writer-late')).toEqual([{ fromMs: 300_000, untilMs: 4_500_000 }]);
    expect(describeStrata(lc).join('\n')).toContain('team-b (out-of-order window 2h0m0s)');
    expect(late.checks.map((c) => c.name)).toContain('ingestion_rule');
  });
});

describe('Strata node configuration', () => {
  it('sets the role, the shared in-memory ring, the node id and the heartbeats', () => {
    const c = parse({ tenants: [{ name: 'a' }, { name: 'b', out_of_order_time_window: '30m' }] });
    const config = strataNodeConfig('ingester', 'ingester-2', c);
    expect(config.target).toBe('ingester');
    expect(config.auth_enabled).toBe(true);
    expect(config.ingester.lifecycler).toMatchObject({
      id: 'ingester-2',
      heartbeat_period: 1_000,
      join_after: 0,
      ring: { kvstore: { store: 'inmemory' }, heartbeat_timeout: 10_000, replication_factor: 3 },
    });
    expect(config.tsdb.dir).toBe('/data/tsdb');
    expect(config.tsdb.block_ranges_period[0]).toBe(7_200_000);
    expect(config.runtime_config.file).toBe('/etc/strata/runtime.yaml');
    expect(strataNodeConfig('querier', 'q', parse({})).runtime_config.file).toBe('');
  });

  it('writes per-tenant overrides the runtime-config parser accepts', () => {
    const c = parse({
      tenants: [{ name: 'a' }, { name: 'team-b', out_of_order_time_window: '2h' }],
    });
    const parsed = parseRuntimeConfig(runtimeConfigYaml(c.tenants));
    expect([...parsed.overrides]).toEqual([['team-b', { out_of_order_time_window: 7_200_000 }]]);
    expect(runtimeConfigYaml([{ name: 'a', outOfOrderWindowMs: 0 }])).toBe('');
  });
});
