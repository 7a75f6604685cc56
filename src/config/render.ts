/**
 * `/config` rendering: the configuration as YAML in table order, durations in Go form,
 * secrets masked. `diff` keeps only values that differ from the defaults (parents without any
 * differing child are left out); `defaults` renders the default configuration.
 */
import { stringify } from 'yaml';
import { defaultConfig, getSetting } from './config_tree.js';
import { ConfigError } from './errors.js';
import { CONFIG_TABLE } from './schema.js';
import type { Config } from './types.js';
import { sameValue, toYamlValue } from './values.js';

export type RenderMode = 'all' | 'diff' | 'defaults';

export const SECRET_MASK = '********';

export function renderConfig(config: Config, mode: RenderMode): string {
  if (mode !== 'all' && mode !== 'diff' && mode !== 'defaults') {
    throw new ConfigError(
      `unknown config render mode "${String(mode)}": valid modes are all, diff, defaults`,
    );
  }
  const defaults = defaultConfig();
  const source = mode === 'defaults' ? defaults : config;
  const root: Record<string, unknown> = {};
  for (const entry of CONFIG_TABLE.settings) {
    const value = getSetting(source, entry);
    if (mode === 'diff' && sameValue(value, getSetting(defaults, entry))) continue;
    const shown = entry.spec.secret && value !== '' ? SECRET_MASK : toYamlValue(entry.spec, value);
    let node = root;
    for (const key of entry.path.slice(0, -1)) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    node[entry.path[entry.path.length - 1] ?? ''] = shown;
  }
  // Block sequences without indentation and no line folding: the way Cortex (yaml.v2) prints.
  return stringify(root, { indentSeq: false, lineWidth: 0 });
}
