/**
 * Label matchers (`=`, `!=`, `=~`, `!~`) with Prometheus semantics: regex matchers use RE2
 * syntax, are anchored at both ends, and let `.` match newlines (Prometheus compiles
 * `^(?s:re)$`). An invalid regex fails construction with Go's error text.
 */
import { FastRegexMatcher } from './fast_regex.js';
import { goQuote } from './go_strings.js';
import { isValidLegacyLabelName } from './names.js';

export type MatchType = '=' | '!=' | '=~' | '!~';

const MATCH_TYPES: readonly MatchType[] = ['=', '!=', '=~', '!~'];

const INVERSE: Readonly<Record<MatchType, MatchType>> = {
  '=': '!=',
  '!=': '=',
  '=~': '!~',
  '!~': '=~',
};

export function isMatchType(s: string): s is MatchType {
  return (MATCH_TYPES as readonly string[]).includes(s);
}

export class Matcher {
  readonly type: MatchType;
  readonly name: string;
  readonly value: string;
  private readonly regex: FastRegexMatcher | undefined;

  /** Throws Re2SyntaxError for an invalid regular expression, Error for an unknown type. */
  constructor(type: MatchType, name: string, value: string) {
    if (!isMatchType(type)) throw new Error(`unknown label matcher type ${goQuote(String(type))}`);
    this.type = type;
    this.name = name;
    this.value = value;
    this.regex = type === '=~' || type === '!~' ? new FastRegexMatcher(value) : undefined;
  }

  static equal(name: string, value: string): Matcher {
    return new Matcher('=', name, value);
  }

  static notEqual(name: string, value: string): Matcher {
    return new Matcher('!=', name, value);
  }

  static regex(name: string, value: string): Matcher {
    return new Matcher('=~', name, value);
  }

  static notRegex(name: string, value: string): Matcher {
    return new Matcher('!~', name, value);
  }

  /** Whether a label value satisfies the matcher; an absent label has the value ''. */
  matches(value: string): boolean {
    switch (this.type) {
      case '=':
        return value === this.value;
      case '!=':
        return value !== this.value;
      case '=~':
        return (this.regex as FastRegexMatcher).matches(value);
      case '!~':
        return !(this.regex as FastRegexMatcher).matches(value);
    }
  }

  /** True when series lacking the label would match (the matcher accepts ''). */
  matchesEmpty(): boolean {
    return this.matches('');
  }

  /** The matcher with the opposite type, e.g. `=~` ↔ `!~`. */
  inverse(): Matcher {
    return new Matcher(INVERSE[this.type], this.name, this.value);
  }

  /**
   * For `=` the value itself; for `=~` the exact strings it can match when that is a small
   * case-sensitive set (Prometheus's SetMatches), otherwise empty.
   */
  setMatches(): readonly string[] {
    if (this.type === '=') return [this.value];
    if (this.type === '=~') return (this.regex as FastRegexMatcher).setMatches();
    return [];
  }

  /** A literal every matching value starts with ('' if unknown); only for `=` and `=~`. */
  prefix(): string {
    if (this.type === '=') return this.value;
    if (this.type === '=~') return (this.regex as FastRegexMatcher).prefix();
    return '';
  }

  /** Prometheus's Matcher.String: `job=~"a.*"`, the name quoted when not a legacy name. */
  toString(): string {
    const name = isValidLegacyLabelName(this.name) ? this.name : goQuote(this.name);
    return `${name}${this.type}${goQuote(this.value)}`;
  }
}
