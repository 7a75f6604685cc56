// The checks Prometheus's test.go applies to one query's outcome: results against the
// expected lines (floats within almost.Equal's relative epsilon, NaN equal to NaN, series
// matched by labels, order only when the case says `ordered`), annotations against the
// `expect warn|info|no_warn|no_info` lines, and errors against `expect fail` and the older
// `expected_fail_message` / `expected_fail_regexp`. Each check returns an error text or
// undefined, in Prometheus's wording where it has one.
import { formatFloatG, Labels } from '../../model/index.js';
import type { Annotations } from '../annotations.js';
import { almostEqual } from '../functions/index.js';
import type { QueryValue, Series } from '../value.js';
import { isFail, isOrdered, type EvalCmd, type ExpectMatcher } from './script_types.js';
import type { SequenceValue } from './series_desc.js';

/** Relative error allowed for sample values (test.go defaultEpsilon). */
export const DEFAULT_EPSILON = 0.000001;

function expectedFloat(v: SequenceValue | undefined): number {
  return v?.kind === 'float' ? v.value : 0;
}

function formatSeries(s: Series): string {
  const pts = s.floats.map((p) => `${formatFloatG(p.f)} @[${p.t}]`).join(' ');
  return `${s.floats.length} float point${s.floats.length === 1 ? '' : 's'} [${pts}]`;
}

function formatValues(vals: readonly SequenceValue[]): string {
  return `[${vals.map((v) => (v.kind === 'float' ? formatFloatG(v.value) : v.kind === 'omitted' ? '_' : '{{…}}')).join(' ')}]`;
}

/** Matrices must always come back sorted by labels. */
export function assertMatrixSorted(m: readonly Series[]): string | undefined {
  for (let i = 0; i + 1 < m.length; i++) {
    const a = (m[i] as Series).metric;
    const b = (m[i + 1] as Series).metric;
    if (Labels.compare(a, b) > 0) {
      return `matrix results should always be sorted by labels, but matrix is not sorted: series at index ${i + 1} with labels ${b.toString()} sorts before series at index ${i} with labels ${a.toString()}`;
    }
  }
  return undefined;
}

/** Compares a query's value with the case's expected lines (test.go compareResult). */
export function compareResult(cmd: EvalCmd, value: QueryValue): string | undefined {
  switch (value.type) {
    case 'matrix': {
      if (isOrdered(cmd)) return 'expected ordered result, but query returned a matrix';
      if (cmd.expectScalar) return 'expected scalar result, but got matrix';
      const unsorted = assertMatrixSorted(value.matrix);
      if (unsorted !== undefined) return unsorted;
      const seen = new Set<string>();
      for (const s of value.matrix) {
        const key = s.metric.toString();
        const exp = cmd.expected.get(key);
        if (exp === undefined) return `unexpected metric ${key} in result, has ${formatSeries(s)}`;
        seen.add(key);
        const expectedPoints: { t: number; f: number }[] = [];
        for (let i = 0; i < exp.values.length; i++) {
          const t = cmd.start + i * cmd.step;
          if (cmd.end === undefined || t > cmd.end) {
            return `expected ${exp.values.length} points for ${key}, but query time range cannot return this many points`;
          }
          const v = exp.values[i] as SequenceValue;
          if (v.kind === 'float') expectedPoints.push({ t, f: v.value });
        }
        if (expectedPoints.length !== s.floats.length) {
          return `expected ${expectedPoints.length} float points and 0 histogram points for ${key}, but got ${formatSeries(s)}`;
        }
        for (let i = 0; i < expectedPoints.length; i++) {
          const e = expectedPoints[i] as { t: number; f: number };
          const a = s.floats[i] as { t: number; f: number };
          if (e.t !== a.t) {
            return `expected float value at index ${i} for ${key} to have timestamp ${e.t}, but it had timestamp ${a.t} (result has ${formatSeries(s)})`;
          }
          if (!almostEqual(a.f, e.f, DEFAULT_EPSILON)) {
            return `expected float value at index ${i} (t=${a.t}) for ${key} to be ${formatFloatG(e.f)}, but got ${formatFloatG(a.f)} (result has ${formatSeries(s)})`;
          }
        }
      }
      for (const [key] of cmd.expected) {
        if (!seen.has(key)) return `expected metric ${key} not found`;
      }
      return undefined;
    }
    case 'vector': {
      if (cmd.expectScalar) return 'expected scalar result, but got vector';
      const seen = new Set<string>();
      const ordered = isOrdered(cmd);
      for (let pos = 0; pos < value.vector.length; pos++) {
        const v = value.vector[pos] as { metric: Labels; f: number };
        const key = v.metric.toString();
        const exp = cmd.expected.get(key);
        if (exp === undefined)
          return `unexpected metric ${key} in result, has value ${formatFloatG(v.f)}`;
        if (ordered && exp.pos !== pos + 1) {
          return `expected metric ${key} with ${formatValues(exp.values)} at position ${exp.pos} but was at ${pos + 1}`;
        }
        const e = expectedFloat(exp.values[0]);
        if (!almostEqual(e, v.f, DEFAULT_EPSILON))
          return `expected ${formatFloatG(e)} for ${key} but got ${formatFloatG(v.f)}`;
        seen.add(key);
      }
      for (const [key, exp] of cmd.expected) {
        if (!seen.has(key))
          return `expected metric ${key} with ${formatValues(exp.values)} not found`;
      }
      return undefined;
    }
    case 'scalar': {
      if (!cmd.expectScalar)
        return `expected vector or matrix result, but got scalar ${formatFloatG(value.scalar.v)}`;
      const e = expectedFloat(cmd.expected.get('')?.values[0]);
      if (!almostEqual(e, value.scalar.v, DEFAULT_EPSILON))
        return `expected scalar ${formatFloatG(e)} but got ${formatFloatG(value.scalar.v)}`;
      return undefined;
    }
    case 'string':
      if (cmd.expectedString !== value.string.v) {
        return `expected string "${cmd.expectedString ?? ''}" but got "${value.string.v}"`;
      }
      return undefined;
  }
}

function matches(e: ExpectMatcher, s: string): boolean {
  return e.regex !== undefined ? e.regex.test(s) : e.message === s;
}

function describeMatcher(e: ExpectMatcher): string {
  return e.regex !== undefined
    ? `pattern ${JSON.stringify(e.regex.source)}`
    : `message ${JSON.stringify(e.message ?? '')}`;
}

function checkOfType(
  expr: string,
  line: number,
  expected: readonly ExpectMatcher[],
  actual: readonly string[],
  kind: string,
  all: readonly string[],
): string | undefined {
  if (expected.length === 0) return undefined;
  if (actual.length === 0) {
    return `expected ${kind} annotations but none were found for query ${JSON.stringify(expr)} (line ${line})`;
  }
  for (const e of expected) {
    if (!actual.some((a) => matches(e, a))) {
      return `expected ${kind} annotation matching ${describeMatcher(e)} but no matching annotation was found for query ${JSON.stringify(expr)} (line ${line}), found: [${all.join(' ')}]`;
    }
  }
  for (const a of actual) {
    if (!expected.some((e) => matches(e, a))) {
      return `unexpected ${kind} annotation ${JSON.stringify(a)} found for query ${expr} (line ${line})`;
    }
  }
  return undefined;
}

/**
 * An annotation as test.go sees it. Our annotations carry the query position the HTTP API
 * prints (` (1:25)`); Prometheus adds that only when rendering for the API, so the scripts'
 * expected messages never have it.
 */
export function annotationText(message: string): string {
  return message.replace(/ \(\d+:\d+\)$/, '');
}

/** Checks a successful query's annotations against the case (test.go checkAnnotations). */
export function checkAnnotations(
  cmd: EvalCmd,
  expr: string,
  annos: Annotations,
): string | undefined {
  const warnings = annos.warnings().map(annotationText);
  const infos = annos.infos().map(annotationText);
  const all = annos.all().map((a) => annotationText(a.message));
  if (cmd.warn && warnings.length === 0) {
    return `expected warnings evaluating query ${JSON.stringify(expr)} (line ${cmd.line}) but got none`;
  }
  if (cmd.info && infos.length === 0) {
    return `expected info annotations evaluating query ${JSON.stringify(expr)} (line ${cmd.line}) but got none`;
  }
  const w = checkOfType(expr, cmd.line, cmd.expects.warn, warnings, 'warn', all);
  if (w !== undefined) return w;
  const i = checkOfType(expr, cmd.line, cmd.expects.info, infos, 'info', all);
  if (i !== undefined) return i;
  if (cmd.expects.no_warn.length > 0 && warnings.length > 0) {
    return `unexpected warning annotations evaluating query ${JSON.stringify(expr)} (line ${cmd.line}): [${all.join(' ')}]`;
  }
  if (cmd.expects.no_info.length > 0 && infos.length > 0) {
    return `unexpected info annotations evaluating query ${JSON.stringify(expr)} (line ${cmd.line}): [${all.join(' ')}]`;
  }
  return undefined;
}

/** Checks the error of a query that was expected to fail (test.go checkExpectedFailure). */
export function checkExpectedFailure(cmd: EvalCmd, message: string): string | undefined {
  if (!isFail(cmd))
    return `error evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}): ${message}`;
  if (
    cmd.expectedFailMessage !== undefined &&
    cmd.expectedFailMessage !== '' &&
    cmd.expectedFailMessage !== message
  ) {
    return `expected error ${JSON.stringify(cmd.expectedFailMessage)} evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}), but got: ${message}`;
  }
  if (cmd.expectedFailRegexp !== undefined && !cmd.expectedFailRegexp.test(message)) {
    return `expected error matching pattern ${JSON.stringify(cmd.expectedFailRegexp.source)} evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}), but got: ${message}`;
  }
  const fail = cmd.expects.fail[0];
  if (fail !== undefined && !matches(fail, message)) {
    return `expected error matching ${JSON.stringify(fail.regex?.source ?? fail.message ?? '')} evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}), but got: ${message}`;
  }
  return undefined;
}
