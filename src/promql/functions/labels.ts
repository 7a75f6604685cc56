// label_replace and label_join of Prometheus 3 (evalLabelReplace / evalLabelJoin): they
// rewrite one label of every series and keep the values. Prometheus runs them on the whole
// evaluated matrix inside the engine; here the same transformation is a FunctionCall over
// one step's vector (the result per series is the same at every step), plus helpers the
// engine can apply to whole series. Invalid arguments fail the query with Prometheus's text.
import {
  Re2SyntaxError,
  isValidLabelName,
  METRIC_NAME_LABEL,
  type Labels,
  SubmatchRegex,
} from '../../model/index.js';
import { QueryExecutionError } from '../errors.js';
import type { EvalNodeHelper, FunctionCall } from '../function_call.js';
import type { Expr } from '../parser/ast.js';
import { withLabel } from './common.js';

function stringArg(args: readonly Expr[], i: number): string {
  const a = args[i];
  return a?.type === 'StringLiteral' ? a.val : '';
}

/**
 * Go's regexp.Expand: `$1`, `${1}`, `$name`, `${name}` insert submatches (the longest run of
 * letters, digits and `_` forms the name, so `$1x` is group "1x"), `$$` is a literal `$`,
 * unknown or non-participating groups insert nothing, a malformed reference stays literal.
 */
export function expandTemplate(
  template: string,
  src: string,
  match: readonly number[],
  names: readonly (string | undefined)[],
): string {
  let out = '';
  let rest = template;
  for (;;) {
    const dollar = rest.indexOf('$');
    if (dollar < 0) break;
    out += rest.slice(0, dollar);
    rest = rest.slice(dollar + 1);
    if (rest.startsWith('$')) {
      out += '$';
      rest = rest.slice(1);
      continue;
    }
    const ref = extractReference(rest);
    if (ref === undefined) {
      out += '$';
      continue;
    }
    rest = ref.rest;
    let group = ref.num;
    if (group < 0) group = names.findIndex((n) => n !== undefined && n === ref.name);
    if (group >= 0 && 2 * group + 1 < match.length) {
      const start = match[2 * group]!;
      const end = match[2 * group + 1]!;
      if (start >= 0) out += src.slice(start, end);
    }
  }
  return out + rest;
}

const NAME_CHAR = /^[\p{L}\p{Nd}_]/u;

/** Go's regexp extract(): the reference after a `$`, or undefined when malformed. */
function extractReference(str: string): { name: string; num: number; rest: string } | undefined {
  if (str === '') return undefined;
  let s = str;
  const brace = s.startsWith('{');
  if (brace) s = s.slice(1);
  let i = 0;
  while (i < s.length) {
    const ch = String.fromCodePoint(s.codePointAt(i) as number);
    if (!NAME_CHAR.test(ch)) break;
    i += ch.length;
  }
  if (i === 0) return undefined; // an empty name is not a reference
  const name = s.slice(0, i);
  if (brace) {
    if (i >= s.length || s[i] !== '}') return undefined; // missing closing brace
    i++;
  }
  let num = 0;
  for (const c of name) {
    if (c < '0' || c > '9' || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c.charCodeAt(0) - 48);
  }
  if (name.startsWith('0') && name.length > 1) num = -1; // no leading zeros
  return { name, num, rest: s.slice(i) };
}

/** A validated label_replace: apply() rewrites one label set. */
export interface LabelReplacer {
  /** The new labels, or undefined when the regex does not match (labels unchanged). */
  apply(metric: Labels): Labels | undefined;
  /** True when the destination is `__name__`, which re-establishes the name. */
  readonly setsName: boolean;
}

/**
 * Validates label_replace's arguments the way Prometheus does (regex first, then the
 * destination name) and compiles the regex `^(?s:<regex>)$`.
 */
export function compileLabelReplace(
  dst: string,
  replacement: string,
  src: string,
  regex: string,
): LabelReplacer {
  let re: SubmatchRegex;
  try {
    re = new SubmatchRegex(`^(?s:${regex})$`);
  } catch (err) {
    if (err instanceof Re2SyntaxError)
      throw new QueryExecutionError(`invalid regular expression in label_replace(): ${regex}`);
    throw err;
  }
  if (!isValidLabelName(dst))
    throw new QueryExecutionError(`invalid destination label name in label_replace(): ${dst}`);
  return {
    setsName: dst === METRIC_NAME_LABEL,
    apply(metric) {
      const srcVal = metric.get(src);
      const match = re.matchAt0(srcVal);
      if (match === undefined) return undefined;
      return withLabel(metric, dst, expandTemplate(replacement, srcVal, match, re.subexpNames));
    },
  };
}

/** A validated label_join: apply() rewrites one label set. */
export interface LabelJoiner {
  apply(metric: Labels): Labels;
  readonly setsName: boolean;
}

/** Validates label_join's arguments as Prometheus does (sources first, then destination). */
export function compileLabelJoin(
  dst: string,
  separator: string,
  srcLabels: readonly string[],
): LabelJoiner {
  for (const src of srcLabels)
    if (!isValidLabelName(src))
      throw new QueryExecutionError(`invalid source label name in label_join(): ${src}`);
  if (!isValidLabelName(dst))
    throw new QueryExecutionError(`invalid destination label name in label_join(): ${dst}`);
  return {
    setsName: dst === METRIC_NAME_LABEL,
    apply: (metric) => withLabel(metric, dst, srcLabels.map((s) => metric.get(s)).join(separator)),
  };
}

function cached<T>(enh: EvalNodeHelper, key: string, make: () => T): T {
  const hit = enh.cache.get(key);
  if (hit !== undefined) return hit as T;
  const value = make();
  enh.cache.set(key, value);
  return value;
}

/**
 * label_replace(v, dst, replacement, src, regex). Writing `__name__` keeps the name (clears
 * the pending drop); otherwise the pending drop carries over.
 */
export const funcLabelReplace: FunctionCall = (vectorVals, _m, args, enh) => {
  const replacer = cached(enh, 'label_replace', () =>
    compileLabelReplace(
      stringArg(args, 1),
      stringArg(args, 2),
      stringArg(args, 3),
      stringArg(args, 4),
    ),
  );
  for (const el of vectorVals[0] ?? []) {
    const metric = replacer.apply(el.metric);
    if (metric === undefined) {
      enh.out.push(el);
      continue;
    }
    enh.out.push({
      metric,
      t: el.t,
      f: el.f,
      dropName: replacer.setsName ? false : el.dropName === true,
    });
  }
  return enh.out;
};

/** label_join(v, dst, separator, src...). */
export const funcLabelJoin: FunctionCall = (vectorVals, _m, args, enh) => {
  const joiner = cached(enh, 'label_join', () =>
    compileLabelJoin(
      stringArg(args, 1),
      stringArg(args, 2),
      args.slice(3).map((_, i) => stringArg(args, i + 3)),
    ),
  );
  for (const el of vectorVals[0] ?? [])
    enh.out.push({
      metric: joiner.apply(el.metric),
      t: el.t,
      f: el.f,
      dropName: joiner.setsName ? false : el.dropName === true,
    });
  return enh.out;
};
