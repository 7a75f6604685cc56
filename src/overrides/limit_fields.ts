import type { LimitsConfig } from '../config/index.js';

export type LimitName = keyof LimitsConfig;

/**
 * How a limit is written in YAML: `rate` is any non-negative number (samples per second),
 * `count` a non-negative integer, `duration` a Go duration string held as milliseconds.
 */
export type LimitKind = 'rate' | 'count' | 'duration';

// A Record over every key, so adding a field to LimitsConfig fails to compile until it is
// described here; the key order is the order `/runtime_config` prints.
const LIMIT_KINDS: Readonly<Record<LimitName, LimitKind>> = {
  ingestion_rate: 'rate',
  ingestion_burst_size: 'count',
  max_global_series_per_user: 'count',
  max_global_series_per_metric: 'count',
  ruler_max_rules_per_rule_group: 'count',
  ruler_max_rule_groups_per_tenant: 'count',
  out_of_order_time_window: 'duration',
};

export const LIMIT_NAMES: readonly LimitName[] = Object.keys(LIMIT_KINDS) as LimitName[];

export function isLimitName(key: string): key is LimitName {
  return Object.hasOwn(LIMIT_KINDS, key);
}

export function limitKind(name: LimitName): LimitKind {
  return LIMIT_KINDS[name];
}
