import { describe, expect, it } from 'vitest';
import { Overrides, emptyRuntimeConfig } from '../overrides/index.js';
import { DEFAULT_DISTRIBUTOR_LIMITS, distributorLimitsFromOverrides } from './limits.js';

describe('distributorLimitsFromOverrides', () => {
  it('takes rate and burst from Overrides (tenant overrides included) and the rest from defaults', () => {
    const runtime = {
      ...emptyRuntimeConfig(),
      overrides: new Map([['big', { ingestion_rate: 1e6 }]]),
    };
    const overrides = new Overrides(
      {
        ingestion_rate: 100,
        ingestion_burst_size: 200,
        max_global_series_per_user: 0,
        max_global_series_per_metric: 0,
        ruler_max_rules_per_rule_group: 0,
        ruler_max_rule_groups_per_tenant: 0,
        out_of_order_time_window: 0,
      },
      { current: () => runtime },
    );
    const limits = distributorLimitsFromOverrides(overrides, { acceptHASamples: true });
    expect(limits('small')).toEqual({
      ...DEFAULT_DISTRIBUTOR_LIMITS,
      acceptHASamples: true,
      ingestionRate: 100,
      ingestionBurstSize: 200,
    });
    expect(limits('big').ingestionRate).toBe(1e6);
    expect(limits('big').maxLabelValueLength).toBe(2048);
  });
});
