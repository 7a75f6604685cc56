/**
 * Every configuration alias of the reference's naming table (spec README): neutral value names,
 * neutral YAML block names and flag segments, and the alternative flag spellings. Output always
 * uses the real names.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { renderConfig } from './render.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

async function load(argv: string[], yaml?: string): Promise<Config> {
  const files = yaml === undefined ? {} : { 'c.yaml': yaml };
  const args = yaml === undefined ? argv : ['-config.file=c.yaml', ...argv];
  const result = await loadConfig(args, { fs: new StaticFiles(files), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config');
  return result.config;
}

describe('object-store backends: bucketa/bucketb/bucketc', () => {
  it.each([
    ['bucketa', 's3'],
    ['bucketb', 'gcs'],
    ['bucketc', 'azure'],
    ['filesystem', 'filesystem'],
  ])('backend value %s means %s, by flag and by YAML', async (neutral, real) => {
    expect((await load([`-experimental.tsdb.backend=${neutral}`])).tsdb.backend).toBe(real);
    expect((await load([], `tsdb:\n  backend: ${neutral}\n`)).tsdb.backend).toBe(real);
  });

  it('accepts the neutral block names in YAML', async () => {
    const c = await load(
      [],
      [
        'tsdb:',
        '  bucketa: {endpoint: minio:9000, bucket_name: blocks, insecure: true}',
        '  bucketb: {bucket_name: gblocks}',
        '  bucketc: {account_name: acct, max_retries: 3}',
        '',
      ].join('\n'),
    );
    expect(c.tsdb.s3).toMatchObject({
      endpoint: 'minio:9000',
      bucket_name: 'blocks',
      insecure: true,
    });
    expect(c.tsdb.gcs.bucket_name).toBe('gblocks');
    expect(c.tsdb.azure).toMatchObject({ account_name: 'acct', max_retries: 3 });
  });

  it('accepts the neutral flag segments', async () => {
    const c = await load([
      '-experimental.tsdb.bucketa.endpoint=minio:9000',
      '-experimental.tsdb.bucketa.insecure',
      '-experimental.tsdb.bucketb.service-account={}',
      '-experimental.tsdb.bucketc.endpoint-suffix=blob.example',
    ]);
    expect(c.tsdb.s3.endpoint).toBe('minio:9000');
    expect(c.tsdb.s3.insecure).toBe(true);
    expect(c.tsdb.gcs.service_account).toBe('{}');
    expect(c.tsdb.azure.endpoint_suffix).toBe('blob.example');
  });

  it('refuses one setting given under both spellings', async () => {
    await expect(
      load([], 'tsdb:\n  s3:\n    endpoint: a\n  bucketa:\n    endpoint: b\n'),
    ).rejects.toThrow(
      'tsdb.bucketa.endpoint and tsdb.s3.endpoint both set tsdb.s3.endpoint; use one spelling',
    );
  });

  it('renders only the real names', async () => {
    const c = await load([
      '-experimental.tsdb.backend=bucketc',
      '-experimental.tsdb.bucketc.account-name=acct',
    ]);
    const out = renderConfig(c, 'diff');
    expect(parse(out)).toEqual({ tsdb: { backend: 'azure', azure: { account_name: 'acct' } } });
    expect(out).not.toContain('bucket');
  });
});

describe('ring KV stores: kvone/kvtwo/gossip', () => {
  it.each([
    ['kvone', 'consul'],
    ['kvtwo', 'etcd'],
    ['gossip', 'memberlist'],
    ['inmemory', 'inmemory'],
    ['multi', 'multi'],
  ])('store value %s means %s for all three rings', async (neutral, real) => {
    const extra =
      neutral === 'multi'
        ? [
            '-multi.primary=kvone',
            '-multi.secondary=kvtwo',
            '-experimental.store-gateway.sharding-ring.multi.primary=consul',
            '-experimental.store-gateway.sharding-ring.multi.secondary=etcd',
            '-compactor.ring.multi.primary=consul',
            '-compactor.ring.multi.secondary=etcd',
          ]
        : [];
    const c = await load([
      `-ring.store=${neutral}`,
      `-experimental.store-gateway.sharding-ring.store=${neutral}`,
      `-compactor.ring.store=${neutral}`,
      ...extra,
    ]);
    expect(c.ingester.lifecycler.ring.kvstore.store).toBe(real);
    expect(c.store_gateway.sharding_ring.kvstore.store).toBe(real);
    expect(c.compactor.sharding_ring.kvstore.store).toBe(real);
  });

  it('resolves neutral names in multi primary/secondary', async () => {
    const c = await load(['-ring.store=multi', '-multi.primary=kvone', '-multi.secondary=gossip']);
    expect(c.ingester.lifecycler.ring.kvstore.multi).toMatchObject({
      primary: 'consul',
      secondary: 'memberlist',
    });
  });

  it('accepts kvone/kvtwo as YAML block names and flag segments', async () => {
    const yaml = [
      'compactor:',
      '  sharding_ring:',
      '    kvstore:',
      '      store: kvtwo',
      '      kvtwo:',
      '        endpoints: [etcd:2379]',
      '      kvone:',
      '        host: consul:8500',
      '',
    ].join('\n');
    const c = await load(
      [
        '-experimental.store-gateway.sharding-ring.kvone.hostname=sg:8500',
        '-kvtwo.dial-timeout=3s',
      ],
      yaml,
    );
    expect(c.compactor.sharding_ring.kvstore.store).toBe('etcd');
    expect(c.compactor.sharding_ring.kvstore.etcd.endpoints).toEqual(['etcd:2379']);
    expect(c.compactor.sharding_ring.kvstore.consul.host).toBe('consul:8500');
    expect(c.store_gateway.sharding_ring.kvstore.consul.host).toBe('sg:8500');
    expect(c.ingester.lifecycler.ring.kvstore.etcd.dial_timeout).toBe(3000);
  });

  it('accepts the older Cortex consul flag spellings', async () => {
    const c = await load([
      '-consul.acltoken=t',
      '-compactor.ring.consul.watch-rate=2',
      '-compactor.ring.consul.watch-burst=4',
    ]);
    expect(c.ingester.lifecycler.ring.kvstore.consul.acl_token).toBe('t');
    expect(c.compactor.sharding_ring.kvstore.consul.watch_rate_limit).toBe(2);
    expect(c.compactor.sharding_ring.kvstore.consul.watch_burst_size).toBe(4);
  });
});

describe('caches: mcache', () => {
  it('backend value mcache means memcached for all three caches', async () => {
    const c = await load([
      '-experimental.tsdb.bucket-store.index-cache.backend=mcache',
      '-experimental.tsdb.bucket-store.index-cache.mcache.addresses=dns+memcached:11211',
      '-experimental.tsdb.bucket-store.chunks-cache.backend=mcache',
      '-experimental.tsdb.bucket-store.chunks-cache.memcached.addresses=m:11211',
      '-experimental.tsdb.bucket-store.metadata-cache.backend=mcache',
      '-experimental.tsdb.bucket-store.metadata-cache.mcache.addresses=m:11211',
      '-experimental.tsdb.bucket-store.metadata-cache.mcache.timeout=250ms',
    ]);
    const bs = c.tsdb.bucket_store;
    expect([bs.index_cache.backend, bs.chunks_cache.backend, bs.metadata_cache.backend]).toEqual([
      'memcached',
      'memcached',
      'memcached',
    ]);
    expect(bs.index_cache.memcached.addresses).toBe('dns+memcached:11211');
    expect(bs.metadata_cache.memcached.timeout).toBe(250);
  });

  it('accepts mcache as the YAML client block name', async () => {
    const c = await load(
      [],
      'tsdb:\n  bucket_store:\n    chunks_cache:\n      backend: mcache\n      mcache:\n        addresses: a:1,b:2\n        max_item_size: 0\n',
    );
    expect(c.tsdb.bucket_store.chunks_cache.backend).toBe('memcached');
    expect(c.tsdb.bucket_store.chunks_cache.memcached.addresses).toBe('a:1,b:2');
    expect(c.tsdb.bucket_store.chunks_cache.memcached.max_item_size).toBe(0);
  });
});

describe('HTTP prefixes: mon and notifier', () => {
  it('accepts the neutral flags', async () => {
    const c = await load(['-http.mon-http-prefix=/mon', '-http.notifier-http-prefix=/notifier']);
    expect(c.api).toEqual({
      prometheus_http_prefix: '/mon',
      alertmanager_http_prefix: '/notifier',
    });
  });

  it('accepts the neutral YAML keys', async () => {
    const c = await load([], 'api:\n  mon_http_prefix: /mon\n  notifier_http_prefix: /notifier\n');
    expect(c.api).toEqual({
      prometheus_http_prefix: '/mon',
      alertmanager_http_prefix: '/notifier',
    });
  });

  it('accepts the real flags and YAML keys', async () => {
    const c = await load(
      ['-http.prometheus-http-prefix=/p'],
      'api:\n  alertmanager_http_prefix: /am\n',
    );
    expect(c.api).toEqual({ prometheus_http_prefix: '/p', alertmanager_http_prefix: '/am' });
  });
});

describe('API switches and other alternative spellings', () => {
  it.each([
    ['-alertmanager.enable-api'],
    ['-experimental.alertmanager.enable-api'],
    ['-notifier.enable-api'],
  ])('%s enables the alertmanager API', async (flag) => {
    expect((await load([flag])).alertmanager.enable_api).toBe(true);
  });

  it('accepts notifier as the YAML block name of alertmanager', async () => {
    expect((await load([], 'notifier:\n  enable_api: true\n')).alertmanager.enable_api).toBe(true);
  });

  it.each([['-ruler.enable-api'], ['-experimental.ruler.enable-api']])(
    '%s enables the ruler API',
    async (flag) => {
      expect((await load([flag])).ruler.enable_api).toBe(true);
    },
  );

  it.each([
    ['-blocks-storage.tsdb.flush-blocks-on-shutdown'],
    ['-experimental.tsdb.flush-blocks-on-shutdown'],
  ])('%s sets tsdb.flush_blocks_on_shutdown', async (flag) => {
    expect((await load([flag])).tsdb.flush_blocks_on_shutdown).toBe(true);
  });

  it('accepts target notifier for alertmanager and renders the real name', async () => {
    const c = await load(['-target=querier, notifier']);
    expect(c.target).toBe('querier,alertmanager');
  });

  it("accepts Cortex's own YAML locations of the ingester shutdown switches", async () => {
    const c = await load(
      [],
      'ingester:\n  lifecycler:\n    unregister_on_shutdown: false\n  walconfig:\n    flush_on_shutdown_with_wal_enabled: true\n',
    );
    expect(c.ingester.unregister_on_shutdown).toBe(false);
    expect(c.ingester.flush_on_shutdown_with_wal_enabled).toBe(true);
  });

  it('accepts the store-gateway ring flags under their later Cortex names', async () => {
    const c = await load([
      '-experimental.store-gateway.sharding-ring.replication-factor=2',
      '-experimental.store-gateway.sharding-ring.tokens-file-path=/t',
    ]);
    expect(c.store_gateway.sharding_ring.replication_factor).toBe(2);
    expect(c.store_gateway.sharding_ring.tokens_file_path).toBe('/t');
  });
});

describe("Cortex's blocks-storage and store-gateway spellings", () => {
  it.each([
    ['-blocks-storage.backend=filesystem', (c: Config) => c.tsdb.backend, 'filesystem'],
    ['-blocks-storage.s3.endpoint=minio:9000', (c: Config) => c.tsdb.s3.endpoint, 'minio:9000'],
    ['-blocks-storage.s3.bucket-name=b', (c: Config) => c.tsdb.s3.bucket_name, 'b'],
    ['-blocks-storage.gcs.bucket-name=g', (c: Config) => c.tsdb.gcs.bucket_name, 'g'],
    ['-blocks-storage.azure.max-retries=3', (c: Config) => c.tsdb.azure.max_retries, 3],
    ['-blocks-storage.filesystem.dir=/b', (c: Config) => c.tsdb.filesystem.dir, '/b'],
    ['-blocks-storage.tsdb.dir=/t', (c: Config) => c.tsdb.dir, '/t'],
    ['-blocks-storage.tsdb.ship-interval=0', (c: Config) => c.tsdb.ship_interval, 0],
    ['-blocks-storage.bucket-store.sync-dir=/s', (c: Config) => c.tsdb.bucket_store.sync_dir, '/s'],
    [
      '-blocks-storage.bucket-store.bucket-index.enabled=false',
      (c: Config) => c.tsdb.bucket_store.bucket_index.enabled,
      false,
    ],
    ['-store-gateway.sharding-enabled', (c: Config) => c.store_gateway.sharding_enabled, true],
    [
      '-store-gateway.sharding-ring.replication-factor=2',
      (c: Config) => c.store_gateway.sharding_ring.replication_factor,
      2,
    ],
    [
      '-store-gateway.sharding-ring.store=etcd',
      (c: Config) => c.store_gateway.sharding_ring.kvstore.store,
      'etcd',
    ],
  ] as const)('%s', async (flag, get, want) => {
    expect(get(await load([flag]))).toBe(want);
  });

  it('accepts the blocks_storage YAML layout', async () => {
    const c = await load(
      [],
      [
        'blocks_storage:',
        '  backend: s3',
        '  s3:',
        '    endpoint: 127.0.0.1:9000',
        '  tsdb:',
        '    dir: /data/tsdb',
        '    retention_period: 12h',
        '  bucket_store:',
        '    sync_interval: 1m',
        '',
      ].join('\n'),
    );
    expect(c.tsdb.backend).toBe('s3');
    expect(c.tsdb.s3.endpoint).toBe('127.0.0.1:9000');
    expect(c.tsdb.dir).toBe('/data/tsdb');
    expect(c.tsdb.retention_period).toBe(12 * 3600_000);
    expect(c.tsdb.bucket_store.sync_interval).toBe(60_000);
  });
});
