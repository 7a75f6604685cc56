/**
 * Reading the YAML configuration file into setting assignments. Strict like Cortex: an
 * unknown key is an error naming its full path (with a suggestion), as is a value of the
 * wrong type. Every accepted spelling (real names, neutral aliases, Cortex's own layout) maps
 * to one setting; giving one setting under two spellings is an error rather than a silent pick.
 */
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Scalar,
  type Document,
  type YAMLMap,
} from 'yaml';
import type { SettingSpec, SettingValue } from './definition.js';
import { parseDuration } from './duration.js';
import { ConfigError } from './errors.js';
import { CONFIG_TABLE, type ConfigTable, type SettingEntry } from './schema.js';
import { closest } from './suggest.js';
import { normalizeChoice, parseText } from './values.js';

export interface YamlAssignment {
  readonly entry: SettingEntry;
  readonly value: SettingValue;
  /** The dotted path as spelled in the file. */
  readonly spelling: string;
  readonly line: number;
}

/** Parses YAML text; `source` names the file in error messages. */
export function parseConfigYaml(
  text: string,
  source: string,
  table: ConfigTable = CONFIG_TABLE,
): YamlAssignment[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const firstError = doc.errors[0];
  if (firstError !== undefined)
    throw new ConfigError(`${source}: invalid YAML: ${firstError.message}`);
  const root = resolve(doc, doc.contents);
  if (root === null || (isScalar(root) && root.value === null)) return [];
  if (!isMap(root))
    throw new ConfigError(`${source}: the top level of the configuration must be a mapping`);

  const out: YamlAssignment[] = [];
  const seen = new Map<string, string>();
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? 0 : lineCounter.linePos(offset).line;

  const walk = (map: YAMLMap, prefix: string): void => {
    for (const pair of map.items) {
      const keyNode = pair.key;
      const line = lineOf(isScalar(keyNode) ? keyNode.range?.[0] : undefined);
      if (!isScalar(keyNode))
        throw new ConfigError(`${source}: line ${line}: keys must be plain strings`);
      const key = String(keyNode.value);
      const spelling = prefix === '' ? key : `${prefix}.${key}`;
      const valueNode = resolve(doc, pair.value);
      const entry = key.includes('.') ? undefined : table.byYamlPath.get(spelling);
      if (entry !== undefined) {
        const earlier = seen.get(entry.yamlPath);
        if (earlier !== undefined) {
          throw new ConfigError(
            `${source}: line ${line}: ${spelling} and ${earlier} both set ${entry.yamlPath}; use one spelling`,
          );
        }
        seen.set(entry.yamlPath, spelling);
        out.push({
          entry,
          spelling,
          line,
          value: yamlValue(entry.spec, valueNode, text, `${source}: line ${line}: ${spelling}`),
        });
      } else if (!key.includes('.') && table.yamlBlockPaths.has(spelling)) {
        if (valueNode === null || (isScalar(valueNode) && valueNode.value === null)) continue;
        if (!isMap(valueNode))
          throw new ConfigError(`${source}: line ${line}: ${spelling} must be a mapping`);
        walk(valueNode, spelling);
      } else {
        throw unknownKey(source, line, spelling, table);
      }
    }
  };
  walk(root, '');
  return out;
}

type AnyNode = NonNullable<Document['contents']>;

function resolve(doc: Document, node: unknown): AnyNode | null {
  if (node === null || node === undefined) return null;
  if (isAlias(node)) return (node.resolve(doc) as AnyNode | undefined) ?? null;
  return node as AnyNode;
}

function unknownKey(
  source: string,
  line: number,
  spelling: string,
  table: ConfigTable,
): ConfigError {
  const known = [
    ...table.settings.map((s) => s.yamlPath),
    ...table.blocks.map((b) => b.yamlPath).filter((p) => p !== ''),
  ];
  const suggestion = closest(spelling, known);
  const hint = suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;
  return new ConfigError(`${source}: line ${line}: unknown configuration key ${spelling}${hint}`);
}

/** Converts one YAML value node to the setting's stored type; `where` prefixes messages. */
function yamlValue(
  spec: SettingSpec,
  node: AnyNode | null,
  text: string,
  where: string,
): SettingValue {
  const fail = (shown: string, why: string): never => {
    throw new ConfigError(`${where}: invalid value ${shown}: ${why}`);
  };
  if (node === null || (isScalar(node) && node.value === null)) {
    if (spec.kind === 'string') return '';
    if (spec.kind === 'durationList' || spec.kind === 'stringList') return [];
    return fail('(empty)', `expected ${expected(spec)}`);
  }
  if (isSeq(node)) {
    if (spec.kind !== 'durationList' && spec.kind !== 'stringList')
      return fail('(a list)', `expected ${expected(spec)}`);
    return node.items.map((item) => {
      if (!isScalar(item) || item.value === null)
        return fail('(a list item)', `expected ${expected(spec)} items`);
      const itemText = scalarText(item, text);
      if (spec.kind === 'stringList') return itemText;
      try {
        return parseDuration(itemText);
      } catch (err) {
        return fail(JSON.stringify(itemText), (err as Error).message);
      }
    }) as SettingValue;
  }
  if (!isScalar(node)) return fail('(a mapping)', `expected ${expected(spec)}`);
  const v: unknown = node.value;
  const shown = JSON.stringify(scalarText(node, text));
  switch (spec.kind) {
    case 'string':
      return normalizeChoice(spec, scalarText(node, text));
    case 'bool':
      return typeof v === 'boolean' ? v : fail(shown, 'expected true or false');
    case 'int':
      return typeof v === 'number' && Number.isSafeInteger(v)
        ? v
        : fail(shown, 'expected an integer');
    case 'float':
      return typeof v === 'number' && Number.isFinite(v) ? v : fail(shown, 'expected a number');
    case 'duration':
      try {
        return parseDuration(scalarText(node, text));
      } catch (err) {
        return fail(shown, (err as Error).message);
      }
    case 'durationList':
    case 'stringList':
      // A single scalar is read as a comma-separated list, as on the command line.
      try {
        return parseText(spec, scalarText(node, text));
      } catch (err) {
        return fail(shown, (err as Error).message);
      }
  }
}

/**
 * The scalar as written: strings as parsed, other plain scalars by their source text, so that
 * `acl_token: 0123` stays "0123" and `timeout: 30` reports the missing unit.
 */
function scalarText(node: Scalar, text: string): string {
  if (typeof node.value === 'string') return node.value;
  const range = node.range;
  if (node.type === Scalar.PLAIN && range !== undefined && range !== null)
    return text.slice(range[0], range[1]);
  return String(node.value);
}

function expected(spec: SettingSpec): string {
  switch (spec.kind) {
    case 'string':
      return 'a string';
    case 'int':
      return 'an integer';
    case 'float':
      return 'a number';
    case 'bool':
      return 'true or false';
    case 'duration':
      return 'a duration such as 1m30s';
    case 'durationList':
      return 'a list of durations';
    case 'stringList':
      return 'a list of strings';
  }
}
