// Which cases may be skipped, and why. The conformance bar is every float-sample case, so a
// case is skipped only when it needs native histograms or a feature Prometheus itself gates
// behind a flag (the scripts run with those flags on). Features are recognised from the
// script: the data a `load` describes (histogram literals, load_with_nhcb, `@st` lines,
// type/unit labels) and, when our parser rejects an expression, the gated syntax in it.
import type { Labels } from '../../model/index.js';
import type { VectorSelector } from '../parser/index.js';

export const SKIP_NATIVE_HISTOGRAMS =
  'native histograms (the query selects series with histogram samples)';
export const SKIP_NATIVE_HISTOGRAM_RESULT = 'native histograms (expected result is a histogram)';
export const SKIP_NHCB =
  'native histograms (load_with_nhcb converts classic histograms to custom-bucket native histograms)';
export const SKIP_START_TIMESTAMPS =
  'start timestamps (@st lines, start_timestamp(); behind Prometheus feature flags)';
export const SKIP_TYPE_AND_UNIT = 'type-and-unit labels (feature flag type-and-unit-labels)';
export const SKIP_INFO =
  'info() function (feature flag promql-experimental-functions, not required by issue 4)';
export const SKIP_DURATION_EXPR = 'duration expressions (feature flag promql-duration-expr)';
export const SKIP_EXTENDED_RANGE =
  'extended range selectors anchored/smoothed (feature flag promql-extended-range-selectors)';
export const SKIP_FILL =
  'binary operator fill modifiers (feature flag promql-binop-fill-modifiers)';

/**
 * A series loaded without its gated part (histogram samples, start timestamps, type/unit
 * semantics): a case selecting it is skipped if its answer differs without that part.
 */
export interface FlaggedSeries {
  readonly labels: Labels;
  readonly reason: string;
}

/** The feature of the first flagged series some selector matches, if any. */
export function flaggedBySelectors(
  selectors: readonly VectorSelector[],
  flagged: readonly FlaggedSeries[],
): string | undefined {
  for (const f of flagged) {
    for (const vs of selectors) {
      if (vs.labelMatchers.every((m) => m.matches(f.labels.get(m.name)))) return f.reason;
    }
  }
  return undefined;
}

export const SKIP_HISTOGRAM_TRIM = 'native histograms (histogram trim operators </ and >/)';

/**
 * Gated functions, skipped whether or not our parser accepts them: info(), start_timestamp(),
 * and the duration-expression forms usable as expressions — step(), range(), min_of(),
 * max_of(), and start()/end() outside an `@` modifier.
 */
export function alwaysSkipped(expr: string): string | undefined {
  if (/\binfo\s*\(/.test(expr)) return SKIP_INFO;
  if (/\bstart_timestamp\s*\(/.test(expr)) return SKIP_START_TIMESTAMPS;
  if (/\b(step|range)\s*\(\s*\)/i.test(expr) || /\b(min_of|max_of)\s*\(/i.test(expr))
    return SKIP_DURATION_EXPR;
  if (/(?<!@\s*)\b(start|end)\s*\(\s*\)/i.test(expr)) return SKIP_DURATION_EXPR;
  return undefined;
}

const DURATION = '[0-9]+(?:ms|[smhdwy])(?:[0-9]+(?:ms|[smhdwy]))*';

/**
 * The gated feature an expression our parser rejected uses, if it uses one. Only consulted
 * after a parse error, so the patterns may be generous: a case that parses is always run.
 */
export function gatedFeatureOf(expr: string, parseError: string): string | undefined {
  const err = parseError.toLowerCase();
  if (/\]\s*(anchored|smoothed)\b/.test(expr) || /anchored|smoothed|extended range/.test(err)) {
    return SKIP_EXTENDED_RANGE;
  }
  if (/\bfill(?:_left|_right)?\s*\(/i.test(expr) || /fill modifier/.test(err)) return SKIP_FILL;
  if (isDurationExpression(expr) || /duration expression/.test(err)) return SKIP_DURATION_EXPR;
  if (/[<>]\//.test(expr) || /trim operator/.test(err)) return SKIP_HISTOGRAM_TRIM;
  return undefined;
}

function isDurationExpression(expr: string): boolean {
  if (/\b(step|range)\s*\(\s*\)/i.test(expr) || /\b(min_of|max_of)\s*\(/i.test(expr)) return true;
  // Arithmetic or a bare number inside [range] / [range:step].
  for (const m of expr.matchAll(/\[([^\]]*)\]/g)) {
    const body = (m[1] as string).trim();
    for (const part of body.split(':')) {
      const p = part.trim();
      if (p === '') continue;
      if (!new RegExp(`^${DURATION}$`).test(p)) return true;
    }
  }
  // offset followed by something other than a plain (possibly negative) duration.
  for (const m of expr.matchAll(/\boffset\s+(-?\s*)(\S+)/g)) {
    const operand = m[2] as string;
    if (!new RegExp(`^${DURATION}(?![0-9a-zA-Z_.(])`).test(operand)) return true;
  }
  return false;
}
