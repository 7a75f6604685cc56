// compactor_tenant_shard_size through the runtime-config overrides: the default from the
// limits block, a tenant's own value (0 included: that tenant uses every compactor).
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config/index.js';
import { Overrides } from './overrides.js';
import { parseRuntimeConfig } from './runtime_config.js';

describe('compactorTenantShardSize', () => {
  it('takes the default, or the tenant override, including 0', () => {
    const defaults = { ...defaultConfig().limits, compactor_tenant_shard_size: 3 };
    const config = parseRuntimeConfig(`
overrides:
  big:
    compactor_tenant_shard_size: 5
  everywhere:
    compactor_tenant_shard_size: 0
`);
    const o = new Overrides(defaults, { current: () => config });
    expect(o.compactorTenantShardSize('big')).toBe(5);
    expect(o.compactorTenantShardSize('everywhere')).toBe(0);
    expect(o.compactorTenantShardSize('other')).toBe(3);
  });

  it('refuses a negative or fractional shard size', () => {
    expect(() =>
      parseRuntimeConfig('overrides:\n  t:\n    compactor_tenant_shard_size: -1\n'),
    ).toThrow('compactor_tenant_shard_size');
    expect(() =>
      parseRuntimeConfig('overrides:\n  t:\n    compactor_tenant_shard_size: 1.5\n'),
    ).toThrow('compactor_tenant_shard_size');
  });
});
