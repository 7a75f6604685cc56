// The compactor's sharding-strategy settings: flags, YAML, defaults and validation.
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

const MINUTE = 60_000;

async function load(argv: string[], files: Record<string, string> = {}): Promise<Config> {
  const result = await loadConfig(argv, { fs: new StaticFiles(files), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config, got help');
  return result.config;
}

describe('compactor sharding strategy settings', () => {
  it("defaults to Cortex's values", async () => {
    const c = await load([]);
    expect(c.compactor.sharding_strategy).toBe('default');
    expect(c.compactor.block_visit_marker_timeout).toBe(5 * MINUTE);
    expect(c.compactor.block_visit_marker_file_update_interval).toBe(MINUTE);
    expect(c.compactor.sharding_ring.auto_forget_delay).toBe(2 * MINUTE);
    expect(c.compactor.sharding_ring.wait_stability_min_duration).toBe(MINUTE);
    expect(c.compactor.sharding_ring.wait_stability_max_duration).toBe(5 * MINUTE);
    expect(c.limits.compactor_tenant_shard_size).toBe(0);
  });

  it('takes every setting from its flag', async () => {
    const c = await load([
      '-compactor.sharding-strategy=shuffle-sharding',
      '-compactor.tenant-shard-size=3',
      '-compactor.block-visit-marker-timeout=10m',
      '-compactor.block-visit-marker-file-update-interval=30s',
      '-compactor.auto-forget-delay=0s',
      '-compactor.ring.wait-stability-min-duration=0s',
      '-compactor.ring.wait-stability-max-duration=2m',
    ]);
    expect(c.compactor.sharding_strategy).toBe('shuffle-sharding');
    expect(c.limits.compactor_tenant_shard_size).toBe(3);
    expect(c.compactor.block_visit_marker_timeout).toBe(10 * MINUTE);
    expect(c.compactor.block_visit_marker_file_update_interval).toBe(30_000);
    expect(c.compactor.sharding_ring.auto_forget_delay).toBe(0);
    expect(c.compactor.sharding_ring.wait_stability_min_duration).toBe(0);
    expect(c.compactor.sharding_ring.wait_stability_max_duration).toBe(2 * MINUTE);
  });

  it('takes them from YAML', async () => {
    const yaml = [
      'compactor:',
      '  sharding_enabled: true',
      '  sharding_strategy: shuffle-sharding',
      '  block_visit_marker_timeout: 7m',
      '  sharding_ring:',
      '    wait_stability_min_duration: 0s',
      'limits:',
      '  compactor_tenant_shard_size: 2',
      '',
    ].join('\n');
    const c = await load(['-config.file=c.yaml'], { 'c.yaml': yaml });
    expect(c.compactor.sharding_strategy).toBe('shuffle-sharding');
    expect(c.compactor.block_visit_marker_timeout).toBe(7 * MINUTE);
    expect(c.compactor.sharding_ring.wait_stability_min_duration).toBe(0);
    expect(c.limits.compactor_tenant_shard_size).toBe(2);
  });

  it('refuses an unknown strategy, naming the setting and the value', async () => {
    const err = await load(['-compactor.sharding-strategy=random']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toContain('compactor.sharding-strategy');
    expect(String(err)).toContain('random');
  });

  it('requires a default shard size above 0 for a sharded shuffle-sharding compactor', async () => {
    const argv = [
      '-compactor.sharding-enabled=true',
      '-compactor.sharding-strategy=shuffle-sharding',
    ];
    await expect(load(argv)).rejects.toThrow(
      'limits.compactor_tenant_shard_size (-compactor.tenant-shard-size) is 0: it must be greater than 0 when the compactor uses the shuffle-sharding strategy',
    );
    expect(
      (await load([...argv, '-compactor.tenant-shard-size=2'])).compactor.sharding_strategy,
    ).toBe('shuffle-sharding');
    // Without sharding the limit is not needed (every tenant is this compactor's).
    expect(
      (await load(['-compactor.sharding-strategy=shuffle-sharding'])).limits
        .compactor_tenant_shard_size,
    ).toBe(0);
  });
});
