import { type LimitsConfig, parseDuration } from '../config/index.js';
import {
  isLimitName,
  LIMIT_NAMES,
  limitChoices,
  type LimitName,
  limitKind,
} from './limit_fields.js';
import { RuntimeConfigError } from './runtime_config_error.js';
import {
  describeYamlValue,
  parseSingleYamlDocument,
  type YamlEntry,
  type YamlMapping,
  type YamlValue,
} from './yaml_tree.js';

/** One tenant's entry in the runtime config: only the limits the file sets. */
export type TenantLimitsOverride = Readonly<Partial<LimitsConfig>>;

/**
 * Cortex's `multi_kv_config` block: switches the multi KV store's primary and mirroring at
 * run time. An absent field means "keep what the static configuration says".
 */
export interface MultiKVRuntimeConfig {
  /** One of consul, etcd, memberlist, inmemory (neutral aliases are normalised). */
  primary?: string;
  mirror_enabled?: boolean;
}

/** The runtime configuration file, validated. */
export interface RuntimeConfig {
  /** Per-tenant overrides in file order. */
  readonly overrides: ReadonlyMap<string, TenantLimitsOverride>;
  readonly multi_kv_config: Readonly<MultiKVRuntimeConfig>;
}

export function emptyRuntimeConfig(): RuntimeConfig {
  return { overrides: new Map(), multi_kv_config: {} };
}

// The KV store names the multi client can switch to, with the reference's neutral spellings.
const KV_STORE_NAMES: Readonly<Record<string, string>> = {
  consul: 'consul',
  etcd: 'etcd',
  memberlist: 'memberlist',
  inmemory: 'inmemory',
  kvone: 'consul',
  kvtwo: 'etcd',
  gossip: 'memberlist',
};

/**
 * Parses and validates the runtime configuration file (Cortex format). Decoding is strict
 * like Cortex's: unknown keys, wrongly typed or negative values and multiple documents are
 * errors. An empty file, or one without `overrides`, is a valid config with no overrides.
 */
export function parseRuntimeConfig(text: string): RuntimeConfig {
  const root = parseSingleYamlDocument(text);
  let overrides = new Map<string, TenantLimitsOverride>();
  let multiKV: MultiKVRuntimeConfig = {};
  if (root === undefined) return { overrides, multi_kv_config: multiKV };
  if (root.kind !== 'map') {
    throw new RuntimeConfigError(
      `the runtime configuration must be a mapping, got ${describeYamlValue(root)} (line ${root.line})`,
    );
  }
  for (const entry of root.entries) {
    switch (entry.key) {
      case 'overrides':
        overrides = parseOverrides(entry);
        break;
      case 'multi_kv_config':
        multiKV = parseMultiKV(entry);
        break;
      default:
        throw new RuntimeConfigError(
          `unknown field ${JSON.stringify(entry.key)} at the top level of the runtime configuration (line ${entry.line}); known fields: overrides, multi_kv_config`,
        );
    }
  }
  return { overrides, multi_kv_config: multiKV };
}

function parseOverrides(entry: YamlEntry): Map<string, TenantLimitsOverride> {
  const byTenant = new Map<string, TenantLimitsOverride>();
  const map = mappingOrNull(entry, 'overrides must map tenant IDs to limits');
  if (map === undefined) return byTenant;
  for (const tenantEntry of map.entries) {
    const tenant = tenantEntry.key;
    if (tenant === '') {
      throw new RuntimeConfigError(`empty tenant ID in overrides (line ${tenantEntry.line})`);
    }
    if (byTenant.has(tenant)) {
      // Only reachable through a merge key; plain duplicates are YAML errors already.
      throw new RuntimeConfigError(
        `tenant ${JSON.stringify(tenant)} appears twice in overrides (line ${tenantEntry.line})`,
      );
    }
    byTenant.set(tenant, parseTenantLimits(tenant, tenantEntry));
  }
  return byTenant;
}

function parseTenantLimits(tenant: string, entry: YamlEntry): TenantLimitsOverride {
  const t = JSON.stringify(tenant);
  const map = mappingOrNull(entry, `the overrides of tenant ${t} must be a mapping of limits`);
  const limits: Partial<Record<LimitName, LimitValue>> = {};
  if (map === undefined) return limits as TenantLimitsOverride;
  for (const { key, line, value } of map.entries) {
    if (!isLimitName(key)) {
      throw new RuntimeConfigError(
        `unknown limit ${JSON.stringify(key)} for tenant ${t} (line ${line}); known limits: ${LIMIT_NAMES.join(', ')}`,
      );
    }
    limits[key] = parseLimitValue(key, value, `limit ${key} of tenant ${t} (line ${line})`);
  }
  // parseLimitValue returns the type limitKind(key) stands for, which is LimitsConfig[key].
  return limits as TenantLimitsOverride;
}

type LimitValue = LimitsConfig[LimitName];

function parseLimitValue(name: LimitName, value: YamlValue, where: string): LimitValue {
  const kind = limitKind(name);
  const wrongType = () =>
    new RuntimeConfigError(
      `${where}: expected ${expectation(name)}, got ${describeYamlValue(value)}`,
    );
  if (value.kind !== 'scalar' || value.value === null) throw wrongType();
  switch (kind) {
    case 'duration':
      return parseDurationLimit(value.source, where);
    case 'bool':
      if (typeof value.value !== 'boolean' || value.quoted) throw wrongType();
      return value.value;
    case 'string':
      // Like Go's YAML decoder, any scalar fills a string field with its text (`ha_cluster_label: 1`).
      return value.source;
    case 'choice': {
      const allowed = limitChoices(name);
      if (!allowed.includes(value.source)) {
        throw new RuntimeConfigError(
          `${where}: invalid value ${JSON.stringify(value.source)}; expected one of ${allowed.join(', ')}`,
        );
      }
      return value.source;
    }
    case 'rate':
    case 'count':
      break;
  }
  const n = value.value;
  if (typeof n !== 'number' || value.quoted) throw wrongType();
  if (!Number.isFinite(n)) {
    throw new RuntimeConfigError(`${where}: value ${value.source} is not a finite number`);
  }
  if (n < 0) {
    throw new RuntimeConfigError(`${where}: value ${value.source} must not be negative`);
  }
  if (kind === 'count' && !Number.isSafeInteger(n)) {
    throw new RuntimeConfigError(`${where}: value ${value.source} must be a whole number`);
  }
  return n;
}

/**
 * Durations are Go strings (`30m`, `1h30m`, `0s`); the YAML integer 0 reads as "0", which Go
 * accepts as the one unitless duration, while other bare numbers are errors as in Cortex.
 */
function parseDurationLimit(source: string, where: string): number {
  let ms: number;
  try {
    ms = parseDuration(source);
  } catch (err) {
    // parseDuration's message already names the value and what is wrong with it.
    throw new RuntimeConfigError(`${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!Number.isFinite(ms) || ms < 0) {
    throw new RuntimeConfigError(
      `${where}: duration ${JSON.stringify(source)} must not be negative`,
    );
  }
  return ms;
}

function expectation(name: LimitName): string {
  switch (limitKind(name)) {
    case 'rate':
      return 'a non-negative number';
    case 'count':
      return 'a non-negative whole number';
    case 'duration':
      return 'a duration like 30m';
    case 'bool':
      return 'true or false';
    case 'string':
      return 'a string';
    case 'choice':
      return `one of ${limitChoices(name).join(', ')}`;
  }
}

function parseMultiKV(entry: YamlEntry): MultiKVRuntimeConfig {
  const map = mappingOrNull(entry, 'multi_kv_config must be a mapping');
  const out: MultiKVRuntimeConfig = {};
  if (map === undefined) return out;
  for (const { key, line, value } of map.entries) {
    const where = `multi_kv_config.${key} (line ${line})`;
    if (key === 'primary') {
      if (value.kind !== 'scalar' || typeof value.value !== 'string') {
        throw new RuntimeConfigError(
          `${where}: expected a KV store name, got ${describeYamlValue(value)}`,
        );
      }
      // Cortex ignores an empty primary ("no change").
      if (value.value === '') continue;
      const store = Object.hasOwn(KV_STORE_NAMES, value.value)
        ? KV_STORE_NAMES[value.value]
        : undefined;
      if (store === undefined) {
        throw new RuntimeConfigError(
          `${where}: unknown KV store ${JSON.stringify(value.value)}; expected one of consul, etcd, memberlist, inmemory`,
        );
      }
      out.primary = store;
    } else if (key === 'mirror_enabled') {
      if (value.kind === 'scalar' && value.value === null) continue;
      if (value.kind !== 'scalar' || typeof value.value !== 'boolean') {
        throw new RuntimeConfigError(
          `${where}: expected true or false, got ${describeYamlValue(value)}`,
        );
      }
      out.mirror_enabled = value.value;
    } else {
      throw new RuntimeConfigError(
        `unknown field ${JSON.stringify(key)} in multi_kv_config (line ${line}); known fields: primary, mirror_enabled`,
      );
    }
  }
  return out;
}

/** The entry's mapping, or undefined when it is null (`overrides:` with nothing under it). */
function mappingOrNull(entry: YamlEntry, expected: string): YamlMapping | undefined {
  const v = entry.value;
  if (v.kind === 'map') return v;
  if (v.kind === 'scalar' && v.value === null) return undefined;
  throw new RuntimeConfigError(`${expected}, got ${describeYamlValue(v)} (line ${entry.line})`);
}
