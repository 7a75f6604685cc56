/**
 * Reading and writing settings of a Config object by their table path, and building the
 * default Config from the table. Values are copied in and out so that list defaults in the
 * table are never shared with (and mutated through) a live Config.
 */
import type { SettingValue } from './definition.js';
import { CONFIG_TABLE, type SettingEntry } from './schema.js';
import type { Config } from './types.js';

type Tree = Record<string, unknown>;

export function copyValue<V extends SettingValue>(value: V): V {
  return (Array.isArray(value) ? [...(value as unknown[])] : value) as V;
}

/** The full default configuration, freshly allocated. */
export function defaultConfig(): Config {
  const root: Tree = {};
  for (const entry of CONFIG_TABLE.settings)
    writeAt(root, entry.path, copyValue(entry.spec.default));
  return root as unknown as Config;
}

export function getSetting(config: Config, entry: SettingEntry): SettingValue {
  let node: unknown = config;
  for (const key of entry.path) {
    if (typeof node !== 'object' || node === null) {
      throw new Error(`config object has no block on the way to ${entry.yamlPath}`);
    }
    node = (node as Tree)[key];
  }
  return node as SettingValue;
}

export function setSetting(config: Config, entry: SettingEntry, value: SettingValue): void {
  writeAt(config as unknown as Tree, entry.path, copyValue(value));
}

function writeAt(root: Tree, path: readonly string[], value: unknown): void {
  let node = root;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next === 'object' && next !== null) {
      node = next as Tree;
    } else {
      const created: Tree = {};
      node[key] = created;
      node = created;
    }
  }
  const last = path[path.length - 1];
  if (last === undefined) throw new Error('empty setting path');
  node[last] = value;
}
