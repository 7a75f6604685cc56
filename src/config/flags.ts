/**
 * Command-line parsing with the rules of Go's `flag` package, which Cortex users know:
 * `-name=value`, `-name value`, `--name=value`, `--name value`; a boolean flag takes a value
 * only after `=` and never consumes the next argument; the last occurrence of a flag wins;
 * `--` ends the flags. Unlike Go, arguments that are not flags are an error rather than being
 * silently ignored, so a forgotten dash cannot drop a setting.
 */
import type { SettingKind, SettingValue } from './definition.js';
import { ConfigError } from './errors.js';
import { CONFIG_TABLE, type ConfigTable, type SettingEntry } from './schema.js';
import { closest } from './suggest.js';
import { parseBool, parseText } from './values.js';

/** Flags that steer loading itself rather than set a configuration value. */
export interface MetaFlag {
  readonly name: string;
  readonly kind: Extract<SettingKind, 'string' | 'bool'>;
  readonly help: string;
}

export const CONFIG_FILE_FLAG = 'config.file';
export const EXPAND_ENV_FLAG = 'config.expand-env';

export const META_FLAGS: readonly MetaFlag[] = [
  { name: CONFIG_FILE_FLAG, kind: 'string', help: 'Configuration file to load.' },
  {
    name: EXPAND_ENV_FLAG,
    kind: 'bool',
    help: 'Expands ${var} or $var in config according to the values of the environment variables.',
  },
];

const HELP_FLAGS = new Set(['h', 'help']);

export interface FlagAssignment {
  readonly entry: SettingEntry;
  /** The flag name as written (without dashes), for messages. */
  readonly flag: string;
  readonly value: SettingValue;
}

export interface ParsedArgs {
  /** In command-line order; applied in that order, so the last occurrence wins. */
  readonly assignments: readonly FlagAssignment[];
  readonly configFile: string | undefined;
  readonly expandEnv: boolean;
  /** -h, -help or --help was given; parsing stopped there. */
  readonly help: boolean;
}

export function parseArgs(argv: readonly string[], table: ConfigTable = CONFIG_TABLE): ParsedArgs {
  const assignments: FlagAssignment[] = [];
  let configFile: string | undefined;
  let expandEnv = false;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--') {
      const extra = argv[i + 1];
      if (extra !== undefined)
        throw new ConfigError(`unexpected argument "${extra}": strata takes only flags`);
      break;
    }
    if (arg.length < 2 || !arg.startsWith('-')) {
      throw new ConfigError(
        `unexpected argument "${arg}": strata takes only flags (did you forget a leading "-"?)`,
      );
    }
    const body = arg.startsWith('--') ? arg.slice(2) : arg.slice(1);
    if (body === '' || body.startsWith('-') || body.startsWith('='))
      throw new ConfigError(`bad flag syntax: ${arg}`);
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const inlineValue = eq < 0 ? undefined : body.slice(eq + 1);

    if (HELP_FLAGS.has(name)) return { assignments, configFile, expandEnv, help: true };

    const meta = META_FLAGS.find((m) => m.name === name);
    const entry = meta === undefined ? table.byFlag.get(name) : undefined;
    if (meta === undefined && entry === undefined) throw unknownFlag(name, table);
    const kind = meta?.kind ?? entry?.spec.kind ?? 'string';

    let raw: string;
    if (kind === 'bool') {
      raw = inlineValue ?? 'true';
    } else if (inlineValue !== undefined) {
      raw = inlineValue;
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`flag needs an argument: -${name}`);
      raw = next;
      i++;
    }

    try {
      if (meta !== undefined) {
        if (meta.name === CONFIG_FILE_FLAG) configFile = raw;
        else expandEnv = parseBool(raw);
      } else if (entry !== undefined) {
        assignments.push({ entry, flag: name, value: parseText(entry.spec, raw) });
      }
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      throw new ConfigError(`invalid value "${raw}" for flag -${name}: ${err.message}`);
    }
  }
  return { assignments, configFile, expandEnv, help: false };
}

function unknownFlag(name: string, table: ConfigTable): ConfigError {
  const known = [...table.byFlag.keys(), ...META_FLAGS.map((m) => m.name)];
  const suggestion = closest(name, known);
  const hint = suggestion === undefined ? '' : ` (did you mean -${suggestion}?)`;
  return new ConfigError(`flag provided but not defined: -${name}${hint}`);
}
