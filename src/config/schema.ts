/**
 * The definition table: the root of the schema tree, a compile-time proof that it describes
 * exactly the `Config` interface, and the flattened, indexed form every other part of the
 * module works from (settings in table order, lookup by flag and by any accepted YAML spelling).
 */
import type { BlockSpec, SchemaNode, SettingSpec, ValueOf } from './definition.js';
import { block } from './definition.js';
import {
  alertmanagerBlock,
  apiBlock,
  authEnabled,
  httpPrefix,
  limitsBlock,
  rulerBlock,
  runtimeConfigBlock,
  serverBlock,
  storageBlock,
  target,
} from './schema_general.js';
import { compactorBlock, ingesterBlock, storeGatewayBlock } from './schema_ring.js';
import { tsdbBlock } from './schema_storage.js';
import { BLOCKS_STORAGE_RULES, STORE_GATEWAY_RULES, withCortexAliases } from './cortex_aliases.js';
import { distributorBlock, querierBlock } from './schema_components.js';
import { memberlistBlock } from './schema_memberlist.js';
import {
  frontendBlock,
  frontendWorkerBlock,
  queryRangeBlock,
  querySchedulerBlock,
} from './schema_frontend.js';
import type { Config } from './types.js';

export const configSchema = block('Top-level settings.', {
  target,
  auth_enabled: authEnabled,
  http_prefix: httpPrefix,
  api: apiBlock,
  server: serverBlock,
  distributor: distributorBlock,
  ingester: ingesterBlock,
  querier: querierBlock,
  frontend: frontendBlock,
  query_range: queryRangeBlock,
  frontend_worker: frontendWorkerBlock,
  query_scheduler: querySchedulerBlock,
  storage: storageBlock,
  limits: limitsBlock,
  tsdb: withCortexAliases(tsdbBlock, 'tsdb', BLOCKS_STORAGE_RULES),
  compactor: compactorBlock,
  store_gateway: withCortexAliases(storeGatewayBlock, 'store_gateway', STORE_GATEWAY_RULES),
  ruler: rulerBlock,
  alertmanager: alertmanagerBlock,
  runtime_config: runtimeConfigBlock,
  memberlist: memberlistBlock,
});

type Equals<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
/** Fails to compile when the definition table and the Config interface disagree. */
export type SchemaDescribesConfig = Assert<Equals<ValueOf<typeof configSchema>, Config>>;

export interface SettingEntry {
  /** Canonical YAML path segments, e.g. ['tsdb', 'bucket_store', 'sync_dir']. */
  readonly path: readonly string[];
  /** Canonical dotted YAML path. */
  readonly yamlPath: string;
  /** Dotted path of the enclosing block; '' at top level. */
  readonly blockPath: string;
  readonly spec: SettingSpec;
}

export interface BlockEntry {
  readonly path: readonly string[];
  readonly yamlPath: string;
  readonly spec: BlockSpec;
  /** Every accepted dotted spelling of this block's path, canonical first. */
  readonly spellings: readonly string[];
}

export interface ConfigTable {
  /** Settings in table (pre-order) order: the order of -help ties, /config and the reference. */
  readonly settings: readonly SettingEntry[];
  /** Blocks in pre-order, the root (path []) first. */
  readonly blocks: readonly BlockEntry[];
  /** Every flag name (primary, aliases, neutral spellings) → its setting. */
  readonly byFlag: ReadonlyMap<string, SettingEntry>;
  /** Every accepted dotted YAML spelling of a setting → the setting. */
  readonly byYamlPath: ReadonlyMap<string, SettingEntry>;
  /** Every accepted dotted YAML spelling of a block (the root is ''). */
  readonly yamlBlockPaths: ReadonlySet<string>;
}

export function buildTable(root: BlockSpec): ConfigTable {
  const settings: SettingEntry[] = [];
  const blocks: BlockEntry[] = [];
  const byFlag = new Map<string, SettingEntry>();
  const byYamlPath = new Map<string, SettingEntry>();
  const yamlBlockPaths = new Set<string>();

  const claim = <V>(map: Map<string, V>, key: string, value: V, what: string): void => {
    if (map.has(key)) throw new Error(`definition table: ${what} "${key}" is defined twice`);
    map.set(key, value);
  };
  const join = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);

  const walk = (spec: BlockSpec, path: readonly string[], spellings: readonly string[]): void => {
    const yamlPath = path.join('.');
    blocks.push({ path, yamlPath, spec, spellings });
    for (const s of spellings) yamlBlockPaths.add(s);
    for (const [key, child] of Object.entries<SchemaNode>(spec.fields)) {
      const childPath = [...path, key];
      const names = [key, ...child.yamlAliases];
      const childSpellings = spellings.flatMap((parent) => names.map((n) => join(parent, n)));
      if (child.node === 'block') {
        walk(child, childPath, childSpellings);
        continue;
      }
      const entry: SettingEntry = {
        path: childPath,
        yamlPath: childPath.join('.'),
        blockPath: yamlPath,
        spec: child,
      };
      settings.push(entry);
      for (const s of [...childSpellings, ...child.pathAliases])
        claim(byYamlPath, s, entry, 'YAML path');
      for (const alias of child.pathAliases) {
        const segments = alias.split('.');
        for (let i = 1; i < segments.length; i++)
          yamlBlockPaths.add(segments.slice(0, i).join('.'));
      }
      for (const f of [...child.flags, ...child.neutralFlags]) claim(byFlag, f, entry, 'flag');
    }
  };
  walk(root, [], ['']);
  for (const p of byYamlPath.keys()) {
    if (yamlBlockPaths.has(p))
      throw new Error(`definition table: "${p}" is both a block and a setting`);
  }
  return { settings, blocks, byFlag, byYamlPath, yamlBlockPaths };
}

/** The table of Strata's configuration; immutable after construction. */
export const CONFIG_TABLE: ConfigTable = buildTable(configSchema);
