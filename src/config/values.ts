/**
 * Converting setting values between their stored form and text: parsing flag arguments (Go
 * `flag` package rules), resolving neutral value aliases, and formatting values the way Go
 * prints them (`2h0m0s`, comma-joined lists) for -help, /config and the reference.
 */
import type { Choices, SettingKind, SettingSpec, SettingValue } from './definition.js';
import { formatDuration, parseDuration } from './duration.js';
import { ConfigError } from './errors.js';

/** The detail Go's flag package reports for a malformed number or boolean. */
export const PARSE_ERROR = 'parse error';

const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Parses the text form of a value (a flag argument, or a YAML scalar for the text-based kinds).
 * Throws ConfigError whose message is only the reason; callers add which flag or key it was.
 */
export function parseText(spec: SettingSpec, text: string): SettingValue {
  switch (spec.kind) {
    case 'string':
      return normalizeChoice(spec, text);
    case 'int':
      return parseInteger(text);
    case 'float':
      return parseFloatText(text);
    case 'bool':
      return parseBool(text);
    case 'duration':
      return parseDuration(text);
    case 'durationList':
      return splitList(text).map((d) => parseDuration(d));
    case 'stringList':
      return splitList(text);
  }
}

export function parseBool(text: string): boolean {
  if (TRUE_WORDS.has(text)) return true;
  if (FALSE_WORDS.has(text)) return false;
  throw new ConfigError(PARSE_ERROR);
}

export function parseInteger(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new ConfigError(PARSE_ERROR);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new ConfigError('value out of range');
  return n;
}

function parseFloatText(text: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new ConfigError(PARSE_ERROR);
  const n = Number(text);
  if (!Number.isFinite(n)) throw new ConfigError('value out of range');
  return n;
}

/** Comma-separated list; surrounding blanks trimmed; `""` is the empty list, `a,,b` an error (as in Go). */
function splitList(text: string): string[] {
  if (text.trim() === '') return [];
  const parts = text.split(',').map((s) => s.trim());
  if (parts.includes('')) throw new ConfigError('empty entry in list');
  return parts;
}

/** Maps neutral spellings (bucketa, kvone, mcache, notifier...) to the canonical value. */
export function normalizeChoice(spec: SettingSpec, value: string): string {
  const c = spec.choices;
  if (c === undefined) return value;
  if (c.commaList) {
    return value
      .split(',')
      .map((part) => {
        const t = part.trim();
        return c.aliases[t] ?? t;
      })
      .join(',');
  }
  return c.aliases[value] ?? value;
}

/** Go's `%v` rendering of a value: durations in Go form, lists comma-joined. */
export function formatValue(spec: SettingSpec, value: SettingValue): string {
  switch (spec.kind) {
    case 'duration':
      return formatDuration(value as number);
    case 'durationList':
      return (value as number[]).map(formatDuration).join(',');
    case 'stringList':
      return (value as string[]).join(',');
    default:
      return String(value);
  }
}

/** The value as it appears in rendered YAML: durations as Go strings, everything else as is. */
export function toYamlValue(spec: SettingSpec, value: SettingValue): unknown {
  switch (spec.kind) {
    case 'duration':
      return formatDuration(value as number);
    case 'durationList':
      return (value as number[]).map(formatDuration);
    case 'stringList':
      return [...(value as string[])];
    default:
      return value;
  }
}

export function sameValue(a: SettingValue, b: SettingValue): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }
  return a === b;
}

/** Go's notion of a zero value, used to leave `(default ...)` off -help lines. */
export function isZeroValue(value: SettingValue): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return value === '' || value === 0 || value === false;
}

/** The type word -help prints after the flag name (Go prints none for booleans). */
export function helpTypeName(kind: SettingKind): string {
  switch (kind) {
    case 'bool':
      return '';
    case 'durationList':
    case 'stringList':
      return 'value';
    default:
      return kind;
  }
}

/** The type as the reference document names it. */
export function referenceTypeName(kind: SettingKind): string {
  switch (kind) {
    case 'bool':
      return 'boolean';
    case 'durationList':
      return 'list of durations';
    case 'stringList':
      return 'list of strings';
    default:
      return kind;
  }
}

/** "Supported values: ..." for -help (plain) and the reference (markdown code spans). */
export function choicesSentence(c: Choices, markdown: boolean): string {
  const q = (v: string) => (markdown ? `\`${v}\`` : v);
  const values = c.values
    .map((v) => (v === '' ? `${markdown ? '`""`' : '""'} (disabled)` : q(v)))
    .join(', ');
  const aliases = Object.entries(c.aliases).map(([alias, value]) => `${q(alias)} for ${q(value)}`);
  const list = c.commaList ? ' (a comma-separated list)' : '';
  return `Supported values: ${values}${list}.${aliases.length > 0 ? ` Also accepted: ${aliases.join(', ')}.` : ''}`;
}
