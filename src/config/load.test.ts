import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config_tree.js';
import { ConfigError } from './errors.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

async function load(
  argv: string[],
  files: Record<string, string | Uint8Array> = {},
  env: Record<string, string | undefined> = {},
): Promise<{ config: Config; configFile: string | undefined }> {
  const result = await loadConfig(argv, { fs: new StaticFiles(files), env });
  if (result.kind !== 'config') throw new Error('expected a config, got help');
  return result;
}

async function loadYaml(yaml: string, extraArgs: string[] = []): Promise<Config> {
  return (await load(['-config.file=c.yaml', ...extraArgs], { 'c.yaml': yaml })).config;
}

describe('precedence: default < YAML < flag', () => {
  const yaml = 'tsdb:\n  ship_concurrency: 7\n  stripe_size: 1024\n';

  it('uses defaults when nothing is given', async () => {
    const { config, configFile } = await load([]);
    expect(config).toEqual(defaultConfig());
    expect(configFile).toBeUndefined();
  });

  it('YAML overrides defaults and leaves the rest alone', async () => {
    const { config, configFile } = await load(['-config.file=c.yaml'], { 'c.yaml': yaml });
    expect(configFile).toBe('c.yaml');
    expect(config.tsdb.ship_concurrency).toBe(7);
    expect(config.tsdb.stripe_size).toBe(1024);
    expect(config.tsdb.head_compaction_concurrency).toBe(5);
  });

  it('flags override YAML wherever they appear on the command line', async () => {
    for (const argv of [
      ['-experimental.tsdb.stripe-size=64', '-config.file=c.yaml'],
      ['-config.file=c.yaml', '-experimental.tsdb.stripe-size=64'],
    ]) {
      const { config } = await load(argv, { 'c.yaml': yaml });
      expect(config.tsdb.stripe_size).toBe(64);
      expect(config.tsdb.ship_concurrency).toBe(7);
    }
  });

  it('does not share list values between loads (defaults stay pristine)', async () => {
    const first = (await load([])).config;
    first.compactor.block_ranges.push(48 * HOUR);
    expect((await load([])).config.compactor.block_ranges).toEqual([
      2 * HOUR,
      12 * HOUR,
      24 * HOUR,
    ]);
  });
});

describe('YAML parsing', () => {
  it('reads every value type', async () => {
    const c = await loadYaml(`
target: ingester, querier
auth_enabled: false
limits:
  ingestion_rate: 1e3
  out_of_order_time_window: 30m
tsdb:
  block_ranges_period: [2h, 4h]
  retention_period: 1d
compactor:
  block_ranges:
  - 2h0m0s
  - 12h0m0s
ingester:
  lifecycler:
    ring:
      kvstore:
        etcd:
          endpoints: [a:1, b:2]
store_gateway:
  sharding_ring:
    kvstore:
      etcd:
        endpoints: "c:3,d:4"
`);
    expect(c.target).toBe('ingester,querier');
    expect(c.auth_enabled).toBe(false);
    expect(c.limits.ingestion_rate).toBe(1000);
    expect(c.limits.out_of_order_time_window).toBe(30 * MINUTE);
    expect(c.tsdb.block_ranges_period).toEqual([2 * HOUR, 4 * HOUR]);
    expect(c.tsdb.retention_period).toBe(24 * HOUR);
    expect(c.compactor.block_ranges).toEqual([2 * HOUR, 12 * HOUR]);
    expect(c.ingester.lifecycler.ring.kvstore.etcd.endpoints).toEqual(['a:1', 'b:2']);
    expect(c.store_gateway.sharding_ring.kvstore.etcd.endpoints).toEqual(['c:3', 'd:4']);
  });

  it('keeps plain scalars of string settings as written', async () => {
    const c = await loadYaml(
      'tsdb:\n  s3:\n    secret_access_key: 0123\n    access_key_id: true\n',
    );
    expect(c.tsdb.s3.secret_access_key).toBe('0123');
    expect(c.tsdb.s3.access_key_id).toBe('true');
  });

  it('accepts an empty file, an empty block and a null string', async () => {
    expect(await loadYaml('')).toEqual(defaultConfig());
    expect(await loadYaml('# nothing\n')).toEqual(defaultConfig());
    expect(
      (await loadYaml('tsdb:\nserver:\n  http_listen_address:\n')).server.http_listen_address,
    ).toBe('');
  });

  it('rejects an unknown key naming its full path and line, with a suggestion', async () => {
    const err: unknown = await loadYaml('tsdb:\n  bucket_store:\n    sync_dri: x\n').catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toBe(
      'c.yaml: line 3: unknown configuration key tsdb.bucket_store.sync_dri (did you mean tsdb.bucket_store.sync_dir?)',
    );
  });

  it('rejects an unknown top-level block', async () => {
    await expect(loadYaml('querier:\n  max_concurrent: 4\n')).rejects.toThrow(
      'unknown configuration key querier',
    );
  });

  it('rejects a dotted key instead of reading it as a path', async () => {
    await expect(loadYaml('tsdb.dir: x\n')).rejects.toThrow('unknown configuration key tsdb.dir');
  });

  it.each([
    [
      'tsdb:\n  stripe_size: abc\n',
      'c.yaml: line 2: tsdb.stripe_size: invalid value "abc": expected an integer',
    ],
    ['tsdb:\n  stripe_size: 1.5\n', 'tsdb.stripe_size: invalid value "1.5": expected an integer'],
    ['auth_enabled: "false"\n', 'auth_enabled: invalid value "false": expected true or false'],
    [
      'tsdb:\n  ship_interval: 30\n',
      'tsdb.ship_interval: invalid value "30": invalid duration "30": missing unit',
    ],
    [
      'tsdb:\n  ship_interval: soon\n',
      'tsdb.ship_interval: invalid value "soon": invalid duration "soon"',
    ],
    [
      'tsdb:\n  block_ranges_period: [2h, x]\n',
      'tsdb.block_ranges_period: invalid value "x": invalid duration "x"',
    ],
    ['tsdb:\n  dir: [a]\n', 'tsdb.dir: invalid value (a list): expected a string'],
    ['tsdb:\n  dir:\n    a: b\n', 'tsdb.dir: invalid value (a mapping): expected a string'],
    ['tsdb:\n  stripe_size:\n', 'tsdb.stripe_size: invalid value (empty): expected an integer'],
    ['tsdb: 3\n', 'c.yaml: line 1: tsdb must be a mapping'],
    ['- a\n- b\n', 'c.yaml: the top level of the configuration must be a mapping'],
  ])('rejects a wrongly typed value: %j', async (yaml, message) => {
    await expect(loadYaml(yaml)).rejects.toThrow(message);
  });

  it('rejects duplicate keys and malformed YAML', async () => {
    await expect(loadYaml('target: all\ntarget: ingester\n')).rejects.toThrow(
      'c.yaml: invalid YAML',
    );
    await expect(loadYaml('tsdb: [\n')).rejects.toThrow('c.yaml: invalid YAML');
  });

  it('resolves YAML anchors and aliases', async () => {
    const c = await loadYaml('tsdb:\n  dir: &d /data\n  bucket_store:\n    sync_dir: *d\n');
    expect(c.tsdb.bucket_store.sync_dir).toBe('/data');
  });

  it('fails clearly for a missing file, an empty path and non-UTF-8 content', async () => {
    await expect(load(['-config.file=missing.yaml'])).rejects.toThrow(
      'cannot read config file "missing.yaml": ENOENT',
    );
    await expect(load(['-config.file='])).rejects.toThrow('-config.file is empty');
    await expect(
      load(['-config.file=bin.yaml'], { 'bin.yaml': new Uint8Array([0xff, 0xfe]) }),
    ).rejects.toThrow('config file "bin.yaml" is not valid UTF-8');
  });

  it('validates the merged result', async () => {
    await expect(loadYaml('tsdb:\n  stripe_size: 1000\n')).rejects.toThrow(
      'tsdb.stripe_size (-experimental.tsdb.stripe-size) is 1000',
    );
    // ...and a flag can repair what the file broke, because validation runs after flags.
    expect(
      (await loadYaml('tsdb:\n  stripe_size: 1000\n', ['-experimental.tsdb.stripe-size=1024'])).tsdb
        .stripe_size,
    ).toBe(1024);
  });
});

describe('-config.expand-env', () => {
  const yaml = [
    'tsdb:',
    '  dir: ${DATA}/tsdb',
    '  s3:',
    '    endpoint: ${S3_HOST:localhost:9000}',
    '    bucket_name: $BUCKET',
    '    access_key_id: ${UNSET}',
    '    secret_access_key: "price$"',
    'server:',
    '  http_listen_port: ${PORT}',
    '',
  ].join('\n');
  const env = { DATA: '/var/strata', BUCKET: 'blocks', PORT: '9009', S3_HOST: '' };

  it('expands ${VAR}, ${VAR:default} (default also for empty values) and $VAR from the env given', async () => {
    const { config } = await load(
      ['-config.file=c.yaml', '-config.expand-env'],
      { 'c.yaml': yaml },
      env,
    );
    expect(config.tsdb.dir).toBe('/var/strata/tsdb');
    expect(config.tsdb.s3.endpoint).toBe('localhost:9000');
    expect(config.tsdb.s3.bucket_name).toBe('blocks');
    expect(config.tsdb.s3.access_key_id).toBe('');
    expect(config.tsdb.s3.secret_access_key).toBe('price$');
    expect(config.server.http_listen_port).toBe(9009);
  });

  it('leaves the text alone when the flag is not given', async () => {
    const { config } = await load(
      ['-config.file=c.yaml'],
      { 'c.yaml': 'tsdb:\n  dir: ${DATA}/tsdb\n' },
      env,
    );
    expect(config.tsdb.dir).toBe('${DATA}/tsdb');
  });

  it('rejects an unterminated reference', async () => {
    await expect(
      load(
        ['-config.file=c.yaml', '-config.expand-env'],
        { 'c.yaml': 'tsdb:\n  dir: ${DATA\n' },
        env,
      ),
    ).rejects.toThrow('unterminated "${"');
  });
});
