/**
 * The vocabulary of the definition table: a tree of blocks (YAML mappings) whose leaves are
 * settings. Each setting carries everything the module derives from it: flag names, YAML
 * aliases, type, default, description, secrecy and allowed values. Nothing here knows about
 * particular settings; those live in the `schema*.ts` files.
 */

/** The value types a setting can have. Sizes in bytes are plain `int`s. */
export type SettingKind =
  'string' | 'int' | 'float' | 'bool' | 'duration' | 'durationList' | 'stringList';

/** The TypeScript type each kind is stored as; durations are integer milliseconds. */
export interface KindValues {
  string: string;
  int: number;
  float: number;
  bool: boolean;
  duration: number;
  durationList: number[];
  stringList: string[];
}

export type SettingValue = KindValues[SettingKind];

/** An enumerated string setting: canonical values and the neutral spellings accepted for them. */
export interface Choices {
  readonly values: readonly string[];
  /** alias → canonical value; applied when parsing, so output always shows the canonical name. */
  readonly aliases: Readonly<Record<string, string>>;
  /** The setting holds a comma-separated list of choices (e.g. `-target=ingester,querier`). */
  readonly commaList: boolean;
}

export interface SettingSpec<K extends SettingKind = SettingKind> {
  readonly node: 'setting';
  readonly kind: K;
  readonly default: KindValues[K];
  /** Primary flag name first (without the leading dash), then its documented aliases. */
  readonly flags: readonly string[];
  /** Neutral-name spellings of the flag (bucketa, mcache, kvone...): accepted, kept out of -help. */
  readonly neutralFlags: readonly string[];
  readonly help: string;
  /** Rendered as `********` in /config when non-empty. */
  readonly secret: boolean;
  /** Other key names accepted for this setting in the same YAML mapping. */
  readonly yamlAliases: readonly string[];
  /** Whole alternative YAML paths (dotted) accepted for this setting, e.g. Cortex's own layout. */
  readonly pathAliases: readonly string[];
  readonly choices: Choices | undefined;
}

export interface BlockSpec<F extends Record<string, SchemaNode> = Record<string, SchemaNode>> {
  readonly node: 'block';
  readonly fields: F;
  /** Other key names accepted for this block in its parent mapping (e.g. `bucketa` for `s3`). */
  readonly yamlAliases: readonly string[];
  /** One line for the reference document. */
  readonly help: string;
}

export type SchemaNode = SettingSpec<SettingKind> | BlockSpec<Record<string, SchemaNode>>;

/** The configuration object type a schema node describes. */
export type ValueOf<N> =
  N extends SettingSpec<infer K>
    ? KindValues[K]
    : N extends BlockSpec<infer F>
      ? { [P in keyof F]: ValueOf<F[P]> }
      : never;

export interface SettingOptions {
  /** Primary flag name, or primary followed by aliases; without the leading dash. */
  readonly flag: string | readonly string[];
  readonly neutralFlags?: readonly string[];
  readonly help: string;
  readonly secret?: boolean;
  readonly yamlAliases?: readonly string[];
  readonly pathAliases?: readonly string[];
  readonly choices?: Choices;
}

export function setting<K extends SettingKind>(
  kind: K,
  defaultValue: KindValues[K],
  options: SettingOptions,
): SettingSpec<K> {
  const flags = typeof options.flag === 'string' ? [options.flag] : [...options.flag];
  if (flags.length === 0) throw new Error('a setting needs at least one flag name');
  return {
    node: 'setting',
    kind,
    default: defaultValue,
    flags,
    neutralFlags: options.neutralFlags ?? [],
    help: options.help,
    secret: options.secret ?? false,
    yamlAliases: options.yamlAliases ?? [],
    pathAliases: options.pathAliases ?? [],
    choices: options.choices,
  };
}

export function block<F extends Record<string, SchemaNode>>(
  help: string,
  fields: F,
  options: { readonly yamlAliases?: readonly string[] } = {},
): BlockSpec<F> {
  return { node: 'block', fields, yamlAliases: options.yamlAliases ?? [], help };
}

export function choices(
  values: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
  commaList = false,
): Choices {
  return { values, aliases, commaList };
}

/**
 * Flag names for one setting of a block that the reference also names with a neutral word:
 * `segmentFlags('experimental.tsdb.', 's3', 'bucketa', 'endpoint')` gives the primary
 * `experimental.tsdb.s3.endpoint` and the neutral `experimental.tsdb.bucketa.endpoint`.
 */
export function segmentFlags(
  prefix: string,
  segment: string,
  neutralSegment: string,
  suffix: string,
): { flag: string; neutralFlags: string[] } {
  return {
    flag: `${prefix}${segment}.${suffix}`,
    neutralFlags: [`${prefix}${neutralSegment}.${suffix}`],
  };
}
