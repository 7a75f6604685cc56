/**
 * Loading the configuration of a process: defaults, then the YAML file named by
 * `-config.file` (read through the FileSystem given, optionally with environment expansion),
 * then the command-line flags, then validation. Flags win over the file wherever they appear
 * on the command line, as in Cortex.
 */
import type { FileSystem } from '../runtime/index.js';
import { defaultConfig, setSetting } from './config_tree.js';
import { ConfigError } from './errors.js';
import { expandEnv } from './expand_env.js';
import { parseArgs } from './flags.js';
import { flagHelp } from './help.js';
import type { Config } from './types.js';
import { validateConfig } from './validate.js';
import { parseConfigYaml } from './yaml_source.js';

export type LoadResult =
  | { kind: 'config'; config: Config; configFile: string | undefined }
  | { kind: 'help'; text: string };

export interface LoadDeps {
  fs: FileSystem;
  env: Readonly<Record<string, string | undefined>>;
}

/** Parses argv (flags, -config.file, -help/-h/--help), applies precedence, validates. Throws ConfigError. */
export async function loadConfig(argv: readonly string[], deps: LoadDeps): Promise<LoadResult> {
  const args = parseArgs(argv);
  if (args.help) return { kind: 'help', text: flagHelp() };

  const config = defaultConfig();
  if (args.configFile !== undefined) {
    const text = await readConfigFile(deps.fs, args.configFile);
    const expanded = args.expandEnv ? expandEnv(text, deps.env) : text;
    for (const a of parseConfigYaml(expanded, args.configFile))
      setSetting(config, a.entry, a.value);
  }
  for (const a of args.assignments) setSetting(config, a.entry, a.value);
  validateConfig(config);
  return { kind: 'config', config, configFile: args.configFile };
}

async function readConfigFile(fs: FileSystem, path: string): Promise<string> {
  if (path === '') throw new ConfigError('-config.file is empty: give the path of a YAML file');
  let bytes: Uint8Array;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    throw new ConfigError(`cannot read config file "${path}": ${(err as Error).message}`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ConfigError(`config file "${path}" is not valid UTF-8`);
  }
}
