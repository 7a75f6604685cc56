/**
 * Validation of a complete Config: value types and enumerations for every setting (from the
 * table), then the cross-setting rules of the reference and Cortex (block ranges, retention,
 * head compaction interval, stripe size, ring prefixes, ports...). All problems are reported
 * at once so a user fixes their file in one pass.
 */
import type { SettingSpec, SettingValue } from './definition.js';
import { formatDuration } from './duration.js';
import { ConfigError } from './errors.js';
import { getSetting } from './config_tree.js';
import { CONFIG_TABLE, type SettingEntry } from './schema.js';
import { parseTargets } from './targets.js';
import type { Config, KVStoreConfig, MemcachedClientConfig } from './types.js';
import { MINUTE } from './time_units.js';
import { memberlistProblems } from './validate_memberlist.js';
import { frontendProblems } from './validate_frontend.js';

const MAX_HEAD_COMPACTION_INTERVAL = 5 * MINUTE;

/** Throws ConfigError listing every problem found; returns normally for a valid config. */
export function validateConfig(config: Config): void {
  const problems = configProblems(config);
  if (problems.length === 1) throw new ConfigError(problems[0]);
  if (problems.length > 1) {
    throw new ConfigError(
      `${problems.length} configuration errors:\n  - ${problems.join('\n  - ')}`,
    );
  }
}

/** Every problem of the configuration, in table order; empty when it is valid. */
export function configProblems(config: Config): string[] {
  const problems: string[] = [];
  for (const entry of CONFIG_TABLE.settings) {
    const problem = settingProblem(entry, getSetting(config, entry));
    if (problem !== undefined) problems.push(problem);
  }
  // Cross-setting rules assume well-typed values; report type errors alone first.
  if (problems.length > 0) return problems;

  const add = (p: string | undefined) => {
    if (p !== undefined) problems.push(p);
  };
  try {
    parseTargets(config.target);
  } catch (err) {
    problems.push(`${name('target')}: ${(err as Error).message}`);
  }
  if (config.storage.engine !== 'tsdb') {
    problems.push(
      `${name('storage.engine')} is "${config.storage.engine}": chunks storage is not supported, only blocks storage ("tsdb")`,
    );
  }
  for (const port of ['server.http_listen_port', 'server.grpc_listen_port'] as const) {
    const value =
      port === 'server.http_listen_port'
        ? config.server.http_listen_port
        : config.server.grpc_listen_port;
    if (value < 0 || value > 65535)
      problems.push(`${name(port)} is ${value}: a port must be in 0..65535`);
  }

  for (const key of [
    'distributor.series_labels_cache_size',
    'ingester.series_labels_cache_size',
  ] as const) {
    const cacheSize =
      key === 'distributor.series_labels_cache_size'
        ? config.distributor.series_labels_cache_size
        : config.ingester.series_labels_cache_size;
    if (cacheSize < 0 || cacheSize === 1)
      problems.push(
        `${name(key)} is ${cacheSize}: it must be 0 (off) or at least 2 (two generations)`,
      );
  }

  // Per-tenant limits are sizes, counts, rates and ages: a negative one has no meaning (the
  // runtime-config overrides reject negatives for the same keys).
  for (const entry of CONFIG_TABLE.settings) {
    if (entry.blockPath !== 'limits') continue;
    const value = getSetting(config, entry);
    if (typeof value === 'number' && value < 0) {
      const shown = entry.spec.kind === 'duration' ? formatDuration(value) : String(value);
      problems.push(`${describeSetting(entry)} is ${shown}: it must not be negative`);
    }
  }

  const tsdb = config.tsdb;
  add(blockRangesProblem('tsdb.block_ranges_period', tsdb.block_ranges_period));
  const largestRange = Math.max(0, ...tsdb.block_ranges_period);
  if (tsdb.retention_period <= largestRange) {
    problems.push(
      `${name('tsdb.retention_period')} is ${formatDuration(tsdb.retention_period)}: it must be greater than the largest block range (${formatDuration(largestRange)})`,
    );
  }
  if (
    tsdb.head_compaction_interval <= 0 ||
    tsdb.head_compaction_interval > MAX_HEAD_COMPACTION_INTERVAL
  ) {
    problems.push(
      `${name('tsdb.head_compaction_interval')} is ${formatDuration(tsdb.head_compaction_interval)}: it must be greater than 0 and at most 5m0s`,
    );
  }
  if (
    tsdb.stripe_size <= 1 ||
    (tsdb.stripe_size & (tsdb.stripe_size - 1)) !== 0 ||
    tsdb.stripe_size > 2 ** 30
  ) {
    problems.push(
      `${name('tsdb.stripe_size')} is ${tsdb.stripe_size}: it must be a power of 2 greater than 1 (at most 1073741824)`,
    );
  }
  if (tsdb.ship_interval > 0)
    add(positive('tsdb.ship_concurrency', tsdb.ship_concurrency, 'when shipping is enabled'));
  add(positive('tsdb.head_compaction_concurrency', tsdb.head_compaction_concurrency));
  add(
    positive(
      'tsdb.max_tsdb_opening_concurrency_on_startup',
      tsdb.max_tsdb_opening_concurrency_on_startup,
    ),
  );

  const caches = tsdb.bucket_store;
  add(
    memcachedProblem(
      'tsdb.bucket_store.index_cache',
      caches.index_cache.backend,
      caches.index_cache.memcached,
    ),
  );
  add(
    memcachedProblem(
      'tsdb.bucket_store.chunks_cache',
      caches.chunks_cache.backend,
      caches.chunks_cache.memcached,
    ),
  );
  add(
    memcachedProblem(
      'tsdb.bucket_store.metadata_cache',
      caches.metadata_cache.backend,
      caches.metadata_cache.memcached,
    ),
  );

  add(blockRangesProblem('compactor.block_ranges', config.compactor.block_ranges));
  add(positive('compactor.compaction_concurrency', config.compactor.compaction_concurrency));
  // Cortex's errInvalidTenantShardSize: a shuffle-sharded compactor needs a default shard size.
  if (
    config.compactor.sharding_enabled &&
    config.compactor.sharding_strategy === 'shuffle-sharding'
  )
    add(
      positive(
        'limits.compactor_tenant_shard_size',
        config.limits.compactor_tenant_shard_size,
        'when the compactor uses the shuffle-sharding strategy',
      ),
    );

  const rings: [string, KVStoreConfig][] = [
    ['ingester.lifecycler.ring.kvstore', config.ingester.lifecycler.ring.kvstore],
    ['store_gateway.sharding_ring.kvstore', config.store_gateway.sharding_ring.kvstore],
    ['compactor.sharding_ring.kvstore', config.compactor.sharding_ring.kvstore],
  ];
  for (const [path, kv] of rings) {
    if (!kv.prefix.endsWith('/'))
      problems.push(
        `${name(`${path}.prefix`)} is "${kv.prefix}": the ring key prefix must end with "/"`,
      );
    add(multiProblem(path, kv));
  }
  add(
    positive(
      'ingester.lifecycler.ring.replication_factor',
      config.ingester.lifecycler.ring.replication_factor,
    ),
  );
  add(
    positive(
      'store_gateway.sharding_ring.replication_factor',
      config.store_gateway.sharding_ring.replication_factor,
    ),
  );
  problems.push(...memberlistProblems(config.memberlist, name));
  problems.push(...frontendProblems(config, name));
  return problems;
}

/** `tsdb.stripe_size (-experimental.tsdb.stripe-size)`: how messages name a setting. */
export function name(yamlPath: string): string {
  const entry = CONFIG_TABLE.byYamlPath.get(yamlPath);
  if (entry === undefined) throw new Error(`validation refers to unknown setting ${yamlPath}`);
  return describeSetting(entry);
}

export function describeSetting(entry: SettingEntry): string {
  return `${entry.yamlPath} (-${entry.spec.flags[0] ?? '?'})`;
}

function settingProblem(entry: SettingEntry, value: SettingValue | undefined): string | undefined {
  const spec = entry.spec;
  const typeOk = hasKind(spec, value);
  if (!typeOk)
    return `${describeSetting(entry)} is ${JSON.stringify(value) ?? 'missing'}: expected ${spec.kind}`;
  const c = spec.choices;
  if (c === undefined || c.commaList) return undefined;
  if (c.values.includes(value as string)) return undefined;
  const valid = c.values.map((v) => (v === '' ? '"" (disabled)' : v)).join(', ');
  return `invalid value "${String(value)}" for ${describeSetting(entry)}: valid values are ${valid}`;
}

function hasKind(spec: SettingSpec, value: SettingValue | undefined): boolean {
  switch (spec.kind) {
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'int':
    case 'duration':
      return Number.isSafeInteger(value);
    case 'float':
      return typeof value === 'number' && Number.isFinite(value);
    case 'durationList':
      return Array.isArray(value) && value.every((v) => Number.isSafeInteger(v));
    case 'stringList':
      return Array.isArray(value) && value.every((v) => typeof v === 'string');
  }
}

function blockRangesProblem(path: string, ranges: readonly number[]): string | undefined {
  if (ranges.length === 0) return `${name(path)} is empty: at least one block range is required`;
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i] ?? 0;
    if (r <= 0) return `${name(path)} contains ${formatDuration(r)}: block ranges must be positive`;
    const previous = ranges[i - 1];
    if (previous !== undefined && r % previous !== 0) {
      return `${name(path)}: block range ${formatDuration(r)} is not a multiple of the previous one (${formatDuration(previous)})`;
    }
  }
  return undefined;
}

function positive(path: string, value: number, when = ''): string | undefined {
  if (value > 0) return undefined;
  return `${name(path)} is ${value}: it must be greater than 0${when === '' ? '' : ` ${when}`}`;
}

function memcachedProblem(
  cachePath: string,
  backend: string,
  client: MemcachedClientConfig,
): string | undefined {
  if (backend !== 'memcached' || client.addresses.trim() !== '') return undefined;
  return `${name(`${cachePath}.backend`)} is memcached but ${name(`${cachePath}.memcached.addresses`)} is empty: give at least one memcached address`;
}

function multiProblem(path: string, kv: KVStoreConfig): string | undefined {
  if (kv.store !== 'multi') return undefined;
  const { primary, secondary } = kv.multi;
  if (primary === '' || secondary === '') {
    return `${name(`${path}.store`)} is multi: ${name(`${path}.multi.primary`)} and ${name(`${path}.multi.secondary`)} must both be set`;
  }
  if (primary === secondary) {
    return `${name(`${path}.multi.primary`)} and ${name(`${path}.multi.secondary`)} are both "${primary}": they must differ`;
  }
  return undefined;
}
