/**
 * The syntax tree the RE2 parser produces. Characters are Unicode code points (Go runes);
 * character classes are kept as cleaned range lists plus Unicode-property predicates.
 */
import type { CharClass } from './charclass.js';

/** Zero-width assertions; `bol`/`eol` only arise under `(?m)`, otherwise `^`/`$` are text anchors. */
export type AssertKind = 'bot' | 'eot' | 'bol' | 'eol' | 'wordBoundary' | 'noWordBoundary';

export type Node =
  | { readonly op: 'empty' }
  | { readonly op: 'literal'; readonly rune: number; readonly fold: boolean }
  | { readonly op: 'class'; readonly cls: CharClass }
  /** `.`: `nl` says whether it also matches `\n` (flag `s`). */
  | { readonly op: 'any'; readonly nl: boolean }
  | { readonly op: 'assert'; readonly kind: AssertKind }
  | { readonly op: 'capture'; readonly sub: Node; readonly name: string | undefined }
  | { readonly op: 'concat'; readonly subs: readonly Node[] }
  | { readonly op: 'alternate'; readonly subs: readonly Node[] }
  /**
   * `max` is -1 for "unbounded"; `greedy` never changes whether a full match exists.
   * `counted` marks the `{n,m}` form, which RE2 limits to 1000 (also when nested).
   */
  | {
      readonly op: 'repeat';
      readonly sub: Node;
      readonly min: number;
      readonly max: number;
      readonly greedy: boolean;
      readonly counted: boolean;
    };
