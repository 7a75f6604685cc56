import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { parseArgs } from './flags.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

async function load(argv: string[]): Promise<Config> {
  const result = await loadConfig(argv, { fs: new StaticFiles({}), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config, got help');
  return result.config;
}

describe('flag syntaxes', () => {
  it.each([
    [['-experimental.tsdb.dir=/a']],
    [['-experimental.tsdb.dir', '/a']],
    [['--experimental.tsdb.dir=/a']],
    [['--experimental.tsdb.dir', '/a']],
  ])('accepts %j for a string flag', async (argv) => {
    expect((await load(argv)).tsdb.dir).toBe('/a');
  });

  it.each([
    [['-experimental.tsdb.stripe-size=1024']],
    [['-experimental.tsdb.stripe-size', '1024']],
    [['--experimental.tsdb.stripe-size=1024']],
    [['--experimental.tsdb.stripe-size', '1024']],
  ])('accepts %j for an int flag', async (argv) => {
    expect((await load(argv)).tsdb.stripe_size).toBe(1024);
  });

  it('takes the next argument as the value even when it starts with a dash', async () => {
    expect((await load(['-server.http-listen-address', '-x'])).server.http_listen_address).toBe(
      '-x',
    );
  });

  it('parses floats, durations, duration lists and string lists', async () => {
    const c = await load([
      '-distributor.ingestion-rate-limit=12.5',
      '-experimental.tsdb.retention-period=1.5d',
      '-compactor.block-ranges=2h,12h,24h,48h',
      '-experimental.tsdb.block-ranges-period',
      '1h, 2h',
      '-etcd.endpoints=a:2379,b:2379',
    ]);
    expect(c.limits.ingestion_rate).toBe(12.5);
    expect(c.tsdb.retention_period).toBe(36 * 3600_000);
    expect(c.compactor.block_ranges).toEqual([2, 12, 24, 48].map((h) => h * 3600_000));
    expect(c.tsdb.block_ranges_period).toEqual([3600_000, 7200_000]);
    expect(c.ingester.lifecycler.ring.kvstore.etcd.endpoints).toEqual(['a:2379', 'b:2379']);
  });

  it('lets the last occurrence of a flag win', async () => {
    expect((await load(['-log.level=debug', '-log.level=error'])).server.log_level).toBe('error');
  });
});

describe('boolean flags', () => {
  it('sets true when bare, and never consumes the next argument', async () => {
    const c = await load(['-experimental.tsdb.wal-compression-enabled', '-log.level=warn']);
    expect(c.tsdb.wal_compression_enabled).toBe(true);
    expect(c.server.log_level).toBe('warn');
  });

  it('treats a word after a bare boolean as a stray argument, not its value', async () => {
    await expect(load(['-auth.enabled', 'false'])).rejects.toThrow('unexpected argument "false"');
  });

  it.each([
    ['-auth.enabled=false', false],
    ['-auth.enabled=true', true],
    ['--auth.enabled=0', false],
    ['-auth.enabled=F', false],
    ['-auth.enabled=TRUE', true],
  ])('%s', async (arg, expected) => {
    expect((await load([arg])).auth_enabled).toBe(expected);
  });

  it('rejects a non-boolean value with Go wording', async () => {
    await expect(load(['-auth.enabled=yes'])).rejects.toThrow(
      'invalid value "yes" for flag -auth.enabled: parse error',
    );
  });
});

describe('bad flags', () => {
  it('names flag and value for a malformed int', async () => {
    const err = await load(['-experimental.tsdb.stripe-size=abc']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe(
      'invalid value "abc" for flag -experimental.tsdb.stripe-size: parse error',
    );
  });

  it('names flag and value for a malformed duration', async () => {
    await expect(load(['-experimental.tsdb.ship-interval', '5x'])).rejects.toThrow(
      'invalid value "5x" for flag -experimental.tsdb.ship-interval: invalid duration "5x": unknown unit "x"',
    );
  });

  it('names flag and value for a malformed float and a bad list item', async () => {
    await expect(load(['-distributor.ingestion-rate-limit=fast'])).rejects.toThrow(
      'invalid value "fast" for flag -distributor.ingestion-rate-limit: parse error',
    );
    await expect(load(['-compactor.block-ranges=2h,,24h'])).rejects.toThrow(
      'invalid value "2h,,24h" for flag -compactor.block-ranges: empty entry in list',
    );
    await expect(load(['-compactor.block-ranges=2h,oops'])).rejects.toThrow(
      'invalid value "2h,oops" for flag -compactor.block-ranges: invalid duration "oops"',
    );
  });

  it('reports an out-of-range int', async () => {
    await expect(load(['-server.http-listen-port=99999999999999999999'])).rejects.toThrow(
      'value out of range',
    );
  });

  it('names an unknown flag and suggests the closest known one', async () => {
    await expect(load(['-experimental.tsdb.stripe-sise=2'])).rejects.toThrow(
      'flag provided but not defined: -experimental.tsdb.stripe-sise (did you mean -experimental.tsdb.stripe-size?)',
    );
  });

  it('does not suggest anything for a flag far from every known one', async () => {
    await expect(load(['-zzzzzzzzzzzzzzzzzzz'])).rejects.toThrow(
      /^flag provided but not defined: -zzzzzzzzzzzzzzzzzzz$/,
    );
  });

  it('needs an argument for a non-boolean flag at the end', async () => {
    await expect(load(['-log.level'])).rejects.toThrow('flag needs an argument: -log.level');
  });

  it.each([['---x'], ['-=x'], ['--=x']])('rejects bad syntax %s', async (arg) => {
    await expect(load([arg])).rejects.toThrow(`bad flag syntax: ${arg}`);
  });

  it('rejects positional arguments, also after --', async () => {
    await expect(load(['serve'])).rejects.toThrow('unexpected argument "serve"');
    await expect(load(['-log.level=debug', '--', 'x'])).rejects.toThrow('unexpected argument "x"');
  });

  it('accepts a trailing --', async () => {
    expect((await load(['-log.level=debug', '--'])).server.log_level).toBe('debug');
  });
});

describe('help', () => {
  it.each([['-h'], ['-help'], ['--help'], ['--h']])('%s returns the help text', async (arg) => {
    const result = await loadConfig(['-log.level=debug', arg, '-not-a-flag'], {
      fs: new StaticFiles({}),
      env: {},
    });
    expect(result.kind).toBe('help');
    if (result.kind === 'help')
      expect(result.text).toContain('  -experimental.tsdb.stripe-size int\n');
  });

  it('stops parsing at the help flag', () => {
    expect(parseArgs(['-h', '-unknown']).help).toBe(true);
  });
});

describe('meta flags', () => {
  it('records -config.file and -config.expand-env without treating them as settings', () => {
    const parsed = parseArgs(['-config.file', 'a.yaml', '-config.expand-env']);
    expect(parsed.configFile).toBe('a.yaml');
    expect(parsed.expandEnv).toBe(true);
    expect(parsed.assignments).toHaveLength(0);
  });

  it('validates -config.expand-env as a boolean', () => {
    expect(() => parseArgs(['-config.expand-env=maybe'])).toThrow(
      'invalid value "maybe" for flag -config.expand-env: parse error',
    );
  });
});
