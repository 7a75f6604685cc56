/**
 * Cortex's later spellings of the blocks-storage and store-gateway settings. The reference
 * names them `-experimental.tsdb.*` / YAML `tsdb.*` and `-experimental.store-gateway.*`;
 * Cortex since 1.4 writes `-blocks-storage.{tsdb,bucket-store,s3,...}.*` / YAML
 * `blocks_storage.*` and `-store-gateway.*`. Both are accepted; output uses the reference's.
 * The aliases are derived from the primary names by rule, so a new setting gets its Cortex
 * spelling without a second table to keep in step.
 */
import type { BlockSpec, SchemaNode, SettingSpec } from './definition.js';

export interface AliasRules {
  /** The Cortex flag for one of the setting's flag names, or undefined when it has none. */
  flag(primary: string): string | undefined;
  /** The Cortex YAML path for a canonical dotted path, or undefined. */
  yamlPath(path: string): string | undefined;
}

/** A copy of `root` (found at YAML path `prefix`) whose settings also accept Cortex's names. */
export function withCortexAliases<B extends BlockSpec>(
  root: B,
  prefix: string,
  rules: AliasRules,
): B {
  const walk = (spec: BlockSpec, path: string): BlockSpec => {
    const fields: Record<string, SchemaNode> = {};
    for (const [key, child] of Object.entries<SchemaNode>(spec.fields)) {
      const childPath = `${path}.${key}`;
      fields[key] = child.node === 'block' ? walk(child, childPath) : aliased(child, childPath);
    }
    return { ...spec, fields };
  };
  const aliased = (spec: SettingSpec, path: string): SettingSpec => {
    const flags = [...spec.flags];
    for (const f of spec.flags) {
      const alias = rules.flag(f);
      if (alias !== undefined && !flags.includes(alias)) flags.push(alias);
    }
    const yaml = rules.yamlPath(path);
    return {
      ...spec,
      flags,
      pathAliases:
        yaml === undefined || spec.pathAliases.includes(yaml)
          ? spec.pathAliases
          : [...spec.pathAliases, yaml],
    };
  };
  return walk(root, prefix) as B;
}

const TSDB_FLAG = 'experimental.tsdb.';
/** Parts of `tsdb` that Cortex moved directly under `blocks_storage`. */
const TOP_LEVEL_PARTS = ['backend', 'bucket_store', 's3', 'gcs', 'azure', 'filesystem'];

/** `-experimental.tsdb.s3.endpoint` → `-blocks-storage.s3.endpoint`; `tsdb.dir` → `blocks_storage.tsdb.dir`. */
export const BLOCKS_STORAGE_RULES: AliasRules = {
  flag(primary) {
    if (!primary.startsWith(TSDB_FLAG)) return undefined;
    const rest = primary.slice(TSDB_FLAG.length);
    const top = TOP_LEVEL_PARTS.some(
      (p) => rest === p || rest.startsWith(`${p.replace('_', '-')}.`),
    );
    return top ? `blocks-storage.${rest}` : `blocks-storage.tsdb.${rest}`;
  },
  yamlPath(path) {
    const rest = path.slice('tsdb.'.length);
    const first = rest.split('.')[0] as string;
    return TOP_LEVEL_PARTS.includes(first)
      ? `blocks_storage.${rest}`
      : `blocks_storage.tsdb.${rest}`;
  },
};

const SG_FLAG = 'experimental.store-gateway.';

/** `-experimental.store-gateway.sharding-enabled` → `-store-gateway.sharding-enabled`. */
export const STORE_GATEWAY_RULES: AliasRules = {
  flag: (primary) =>
    primary.startsWith(SG_FLAG) ? `store-gateway.${primary.slice(SG_FLAG.length)}` : undefined,
  yamlPath: () => undefined,
};
