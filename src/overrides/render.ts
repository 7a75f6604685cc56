import { Document, isScalar, visit } from 'yaml';
import { formatDuration, type LimitsConfig } from '../config/index.js';
import { LIMIT_NAMES, type LimitName, limitKind } from './limit_fields.js';
import type { RuntimeConfig } from './runtime_config.js';

export type RuntimeConfigRenderMode = 'all' | 'diff';

/**
 * The applied runtime configuration as YAML, as Cortex's `/runtime_config` shows it.
 *
 * `all`: every tenant in the file with its complete effective limits (defaults filled in),
 * and the multi KV block (`primary: ""` and `mirror_enabled: null` when unset, as Cortex
 * prints them). `diff`: per tenant only the limits that differ from `defaults`, tenants
 * without differences left out, and only the multi KV fields that are set; `{}` when nothing
 * differs. Tenants are sorted so the output is stable.
 */
export function renderRuntimeConfig(
  config: RuntimeConfig,
  mode: RuntimeConfigRenderMode,
  defaults: LimitsConfig,
): string {
  const tenants = [...config.overrides.keys()].sort();
  const out = new Map<string, unknown>();
  const overrides = new Map<string, Map<string, unknown>>();
  for (const tenant of tenants) {
    const effective: LimitsConfig = { ...defaults, ...config.overrides.get(tenant) };
    const shown = new Map<string, unknown>();
    for (const name of LIMIT_NAMES) {
      if (mode === 'diff' && effective[name] === defaults[name]) continue;
      shown.set(name, renderLimit(name, effective[name]));
    }
    if (mode === 'all' || shown.size > 0) overrides.set(tenant, shown);
  }
  if (mode === 'all' || overrides.size > 0) out.set('overrides', overrides);

  const multi = new Map<string, unknown>();
  const { primary, mirror_enabled } = config.multi_kv_config;
  if (mode === 'all' || primary !== undefined) multi.set('primary', primary ?? '');
  if (mode === 'all' || mirror_enabled !== undefined)
    multi.set('mirror_enabled', mirror_enabled ?? null);
  if (multi.size > 0) out.set('multi_kv_config', multi);

  const doc = new Document(out);
  // A plain `<<` key would read back as a YAML merge key; a tenant may really be called that.
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === '<<') pair.key.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString();
}

function renderLimit(name: LimitName, value: LimitsConfig[LimitName]): unknown {
  return limitKind(name) === 'duration' && typeof value === 'number'
    ? formatDuration(value)
    : value;
}
