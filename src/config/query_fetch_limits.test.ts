// The querier's per-tenant fetch limits (Cortex's -querier.max-fetched-*-per-query): flags
// and YAML keys, default 0 (off), negative values refused, runtime overrides accepted.
import { describe, expect, it } from 'vitest';
import { parseRuntimeConfig } from '../overrides/index.js';
import { defaultConfig } from './config_tree.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

async function load(argv: string[], yaml?: string): Promise<Config> {
  const files: Record<string, string> = yaml === undefined ? {} : { 'c.yaml': yaml };
  const args = yaml === undefined ? argv : ['-config.file=c.yaml', ...argv];
  const result = await loadConfig(args, { fs: new StaticFiles(files), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config, got help');
  return result.config;
}

const LIMITS = [
  ['max_fetched_series_per_query', 'querier.max-fetched-series-per-query'],
  ['max_fetched_chunk_bytes_per_query', 'querier.max-fetched-chunk-bytes-per-query'],
  ['max_fetched_data_bytes_per_query', 'querier.max-fetched-data-bytes-per-query'],
] as const;

describe('querier fetch limits', () => {
  it.each(LIMITS)('%s: default 0, set by -%s or YAML', async (key, flag) => {
    expect(defaultConfig().limits[key]).toBe(0);
    expect((await load([`-${flag}=1048576`])).limits[key]).toBe(1048576);
    expect((await load([], `limits:\n  ${key}: 2048\n`)).limits[key]).toBe(2048);
  });

  it.each(LIMITS)('%s: a negative value is refused', async (key, flag) => {
    await expect(load([`-${flag}=-1`])).rejects.toThrow(
      `limits.${key} (-${flag}) is -1: it must not be negative`,
    );
  });

  it('per-tenant runtime overrides take the byte limits, not negative ones', () => {
    const config = parseRuntimeConfig(
      'overrides:\n  a:\n    max_fetched_chunk_bytes_per_query: 100\n    max_fetched_data_bytes_per_query: 200\n',
    );
    expect(config.overrides.get('a')).toMatchObject({
      max_fetched_chunk_bytes_per_query: 100,
      max_fetched_data_bytes_per_query: 200,
    });
    expect(() =>
      parseRuntimeConfig('overrides:\n  a:\n    max_fetched_data_bytes_per_query: -5\n'),
    ).toThrow();
  });
});
