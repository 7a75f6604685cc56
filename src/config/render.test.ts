import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultConfig, getSetting } from './config_tree.js';
import { ConfigError } from './errors.js';
import { loadConfig } from './load.js';
import { renderConfig, SECRET_MASK, type RenderMode } from './render.js';
import { CONFIG_TABLE } from './schema.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

function lookup(tree: unknown, path: readonly string[]): unknown {
  let node = tree;
  for (const key of path) node = (node as Record<string, unknown>)[key];
  return node;
}

describe('renderConfig', () => {
  it('renders every setting in "all" mode, in table order', () => {
    const out = renderConfig(defaultConfig(), 'all');
    const tree = parse(out) as unknown;
    for (const entry of CONFIG_TABLE.settings) {
      expect(lookup(tree, entry.path), entry.yamlPath).not.toBeUndefined();
    }
    const topLevel = out
      .split('\n')
      .filter((l) => /^\S/.test(l))
      .map((l) => l.split(':')[0]);
    expect(topLevel).toEqual([...new Set(CONFIG_TABLE.settings.map((s) => s.path[0]))]);
    expect(out.startsWith('target: all\nauth_enabled: true\nhttp_prefix: /api/prom\napi:\n')).toBe(
      true,
    );
  });

  it('renders durations in Go form, lists as sequences, sizes as integers', () => {
    const out = renderConfig(defaultConfig(), 'all');
    expect(out).toContain('  retention_period: 6h0m0s\n');
    expect(out).toContain('  ship_interval: 1m0s\n');
    expect(out).toContain('        timeout: 100ms\n');
    expect(out).toContain('    consistency_delay: 0s\n');
    expect(out).toContain('  block_ranges:\n  - 2h0m0s\n  - 12h0m0s\n  - 24h0m0s\n');
    expect(out).toContain('    max_chunk_pool_bytes: 2147483648\n');
    expect(out).toContain('          endpoints: []\n');
  });

  it('"defaults" ignores the given config; "diff" of the defaults is empty', () => {
    const changed = defaultConfig();
    changed.tsdb.dir = '/elsewhere';
    expect(renderConfig(changed, 'defaults')).toBe(renderConfig(defaultConfig(), 'all'));
    expect(renderConfig(defaultConfig(), 'diff')).toBe('{}\n');
  });

  it('"diff" keeps only differing values and omits parents without differences', () => {
    const c = defaultConfig();
    c.compactor.sharding_ring.kvstore.consul.host = 'consul:8500';
    c.compactor.block_ranges = [2 * 3600_000];
    c.limits.out_of_order_time_window = 30 * 60_000;
    expect(parse(renderConfig(c, 'diff'))).toEqual({
      limits: { out_of_order_time_window: '30m0s' },
      compactor: {
        block_ranges: ['2h0m0s'],
        sharding_ring: { kvstore: { consul: { host: 'consul:8500' } } },
      },
    });
  });

  it.each<RenderMode>(['all', 'diff'])('masks non-empty secrets in "%s" mode', (mode) => {
    const c = defaultConfig();
    c.tsdb.s3.secret_access_key = 'AKIA-secret';
    c.tsdb.gcs.service_account = '{"private_key":"k"}';
    c.tsdb.azure.account_key = 'azure-key';
    c.store_gateway.sharding_ring.kvstore.consul.acl_token = 'consul-acl-secret';
    const out = renderConfig(c, mode);
    for (const secret of ['AKIA-secret', 'private_key', 'azure-key', 'consul-acl-secret'])
      expect(out).not.toContain(secret);
    const tree = parse(out) as unknown;
    expect(lookup(tree, ['tsdb', 's3', 'secret_access_key'])).toBe(SECRET_MASK);
    expect(lookup(tree, ['tsdb', 'gcs', 'service_account'])).toBe(SECRET_MASK);
    expect(lookup(tree, ['tsdb', 'azure', 'account_key'])).toBe(SECRET_MASK);
    expect(lookup(tree, ['store_gateway', 'sharding_ring', 'kvstore', 'consul', 'acl_token'])).toBe(
      SECRET_MASK,
    );
  });

  it('shows empty secrets as empty, so an unset credential is visible', () => {
    expect(parse(renderConfig(defaultConfig(), 'all'))).toMatchObject({
      tsdb: { s3: { secret_access_key: '' } },
    });
  });

  it('marks the secrets the brief names', () => {
    const secrets = CONFIG_TABLE.settings
      .filter((s) => s.spec.secret)
      .map((s) => s.path[s.path.length - 1]);
    expect(new Set(secrets)).toEqual(
      new Set(['secret_access_key', 'account_key', 'acl_token', 'service_account']),
    );
  });

  it('round-trips: the rendered config loads back to the same config', async () => {
    const c = defaultConfig();
    c.target = 'ingester,querier';
    c.tsdb.block_ranges_period = [3600_000, 7200_000];
    c.tsdb.s3.endpoint = 'minio:9000';
    c.ingester.lifecycler.ring.kvstore.etcd.endpoints = ['a:2379', 'b:2379'];
    c.limits.ingestion_rate = 12.5;
    c.server.http_listen_address = '127.0.0.1';
    for (const mode of ['all', 'diff'] as const) {
      const result = await loadConfig(['-config.file=r.yaml'], {
        fs: new StaticFiles({ 'r.yaml': renderConfig(c, mode) }),
        env: {},
      });
      expect(result.kind === 'config' ? result.config : undefined).toEqual(c);
    }
  });

  it('refuses an unknown mode naming it', () => {
    expect(() => renderConfig(defaultConfig(), 'full' as RenderMode)).toThrow(ConfigError);
    expect(() => renderConfig(defaultConfig(), 'full' as RenderMode)).toThrow(
      'unknown config render mode "full"',
    );
  });

  it('does not modify the config it renders', () => {
    const c: Config = defaultConfig();
    c.tsdb.s3.secret_access_key = 's';
    renderConfig(c, 'all');
    expect(getSetting(c, CONFIG_TABLE.byYamlPath.get('tsdb.s3.secret_access_key')!)).toBe('s');
  });
});
