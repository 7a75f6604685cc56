import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/config/index.js';
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

  it('reads the long-term section with defaults, read phases and delete_before_ship', () => {
    expect(parse({}).longTerm).toBeUndefined();
    const c = parse({
      block_range: '2m',
      long_term: { retention_period: '5m', deletion_delay: '1m', flush_on_shutdown: true },
      broken_ingester: 'delete_before_ship',
      scrape: { stop: '10m' },
      reader: { read_phases: ['4m', '9m'], read_at: '12m' },
    });
    expect(c.longTerm).toEqual({
      shipIntervalMs: 10_000,
      retentionPeriodMs: 300_000,
      headCompactionIntervalMs: 10_000,
      syncIntervalMs: 15_000,
      consistencyDelayMs: 0,
      ignoreDeletionMarkDelayMs: 60_000,
      cleanupIntervalMs: 20_000,
      deletionDelayMs: 60_000,
      storeGatewayReplicationFactor: 2,
      flushOnShutdown: true,
      compactor: {
        blockRangesMs: undefined,
        compactionIntervalMs: undefined,
        shardingEnabled: false,
        broken: 'none',
      },
    });
    expect(c.reader.phasesMs).toEqual([240_000, 540_000]);
    expect(parse({ block_range: '2m', long_term: {} }).longTerm?.retentionPeriodMs).toBe(240_000);
    const described = describeStrata(c).join('\n');
    expect(described).toContain('long-term path: ship every 10s, local retention 5m0s');
    expect(described).toContain('reads at +4m0s, reads at +9m0s, final reads at +12m0s');
    expect(described).toContain('DELIBERATE BUG: ingesters delete_before_ship');
  });

  it('reads the compactor section and the ring store, and applies them to the nodes', () => {
    const c = parse({
      block_range: '2m',
      ring_store: 'memberlist',
      long_term: {
        compactor: {
          block_ranges: ['2m', '6m', '12m'],
          compaction_interval: '30s',
          sharding_enabled: true,
          broken: 'ignore_ownership',
        },
      },
    });
    expect(c.longTerm?.compactor).toEqual({
      blockRangesMs: [120_000, 360_000, 720_000],
      compactionIntervalMs: 30_000,
      shardingEnabled: true,
      broken: 'ignore_ownership',
    });
    const described = describeStrata(c).join('\n');
    expect(described).toContain('rings on memberlist gossip');
    expect(described).toContain(
      'compactor: block ranges 2m0s, 6m0s, 12m0s, compaction every 30s, sharding on (compactor ring); DELIBERATE BUG: compactors ignore_ownership',
    );
    const node = strataNodeConfig('compactor', 'compactor-2', c, ['ingester-1', 'compactor-2']);
    expect(node.compactor.block_ranges).toEqual([120_000, 360_000, 720_000]);
    expect(node.compactor.compaction_interval).toBe(30_000);
    expect(node.compactor.sharding_enabled).toBe(true);
    expect(node.compactor.sharding_ring.heartbeat_timeout).toBe(c.heartbeatTimeoutMs);
    expect(node.compactor.sharding_ring.kvstore.store).toBe('memberlist');
    expect(node.ingester.lifecycler.ring.kvstore.store).toBe('memberlist');
    expect(node.memberlist.join_members).toEqual(['ingester-1']);
    expect(() => validateConfig(node)).not.toThrow();
    expect(() =>
      parse({ block_range: '2m', long_term: { compactor: { block_ranges: ['3m'] } } }),
    ).toThrow(/long_term.compactor.block_ranges\[0\]: 3m0s must be a positive multiple of 2m0s/);
    expect(() =>
      parse({ block_range: '2m', long_term: { compactor: { broken: 'ignore_ownership' } } }),
    ).toThrow(/ignore_ownership needs .*sharding_enabled/);
    expect(() => parse({ ring_store: 'etcd' })).toThrow(/ring_store: unknown store "etcd"/);
  });

  it('refuses long-term settings the product would refuse, naming the key', () => {
    expect(() => parse({ block_range: '2m', long_term: { retention_period: '2m' } })).toThrow(
      /long_term.retention_period: must exceed the block range \(2m0s\), got 2m0s/,
    );
    expect(() => parse({ long_term: { head_compaction_interval: '6m' } })).toThrow(
      /long_term.head_compaction_interval: at most 5m0s/,
    );
    expect(() => parse({ long_term: { ship_interval: '0s' } })).toThrow(
      /long_term.ship_interval: must be positive/,
    );
    expect(() => parse({ long_term: { store_gateway_replication_factor: 0 } })).toThrow(
      /store_gateway_replication_factor: must be at least 1/,
    );
    expect(() => parse({ long_term: { shipping: true } })).toThrow(
      /long_term: unknown key "shipping"/,
    );
    expect(() => parse({ broken_ingester: 'delete_before_ship' })).toThrow(
      /delete_before_ship needs workload.long_term/,
    );
    expect(() =>
      parse({ scrape: { stop: '10m' }, reader: { read_at: '12m', read_phases: ['12m'] } }),
    ).toThrow(/read_phases\[0\]: must come before read_at \(12m0s\)/);
    expect(() =>
      parse({ scrape: { stop: '10m' }, reader: { read_at: '12m', read_phases: ['5m', '4m'] } }),
    ).toThrow(/read_phases\[1\]: phases must be in ascending order/);
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

  it('gives every node the shared bucket, and with long_term the long-term settings', () => {
    const plain = strataNodeConfig('ingester', 'ingester-1', parse({}));
    expect(plain.tsdb).toMatchObject({ backend: 's3', s3: { bucket_name: 'strata-blocks' } });
    expect(plain.tsdb.store_gateway_enabled).toBe(false);
    const c = parse({ block_range: '2m', long_term: { store_gateway_replication_factor: 2 } });
    const sg = strataNodeConfig('store-gateway', 'store-gateway-1', c);
    expect(sg.target).toBe('store-gateway');
    expect(sg.tsdb).toMatchObject({
      block_ranges_period: [120_000],
      retention_period: 240_000,
      ship_interval: 10_000,
      head_compaction_interval: 10_000,
      store_gateway_enabled: true,
      bucket_store: {
        sync_interval: 15_000,
        consistency_delay: 0,
        ignore_deletion_mark_delay: 60_000,
      },
    });
    expect(sg.store_gateway).toMatchObject({
      sharding_enabled: true,
      sharding_ring: {
        kvstore: { store: 'inmemory' },
        replication_factor: 2,
        instance_id: 'store-gateway-1',
      },
    });
    expect(sg.compactor).toMatchObject({ cleanup_interval: 20_000, deletion_delay: 120_000 });
    expect(sg.querier.query_store_after).toBe(0);
    // The product accepts it.
    expect(() => validateConfig(sg)).not.toThrow();
    expect(() => validateConfig(strataNodeConfig('compactor', 'compactor-1', c))).not.toThrow();
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
