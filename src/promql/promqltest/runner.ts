// Runs parsed test scripts against a PromQLEngine over a MemoryStorage, case by case, with
// Prometheus's test.go semantics: `load` appends samples from t=0, `clear` empties the
// storage, each `eval` is one case. An instant case also runs with `@`-pinned variants and,
// unless excluded, as a range query around its time (the middle step must agree). Every
// case ends passed, failed (with what differed) or skipped (with the gated feature).
import { Labels } from '../../model/index.js';
import { PromQLError } from '../errors.js';
import { MemoryStorage } from '../memory_storage.js';
import type { Expr } from '../parser/index.js';
import type { PromQLEngine, QueryResult } from '../query.js';
import type { QueryValue, Sample } from '../value.js';
import { atModifierTestCases, hasStartOrEnd, selectorsOf } from './at_modifier.js';
import {
  assertMatrixSorted,
  checkAnnotations,
  checkExpectedFailure,
  compareResult,
} from './compare.js';
import { parseScript } from './script_parser.js';
import { isFail, isOrdered, ScriptError, type EvalCmd, type LoadCmd } from './script_types.js';
import {
  alwaysSkipped,
  flaggedBySelectors,
  gatedFeatureOf,
  SKIP_NATIVE_HISTOGRAM_RESULT,
  SKIP_NATIVE_HISTOGRAMS,
  SKIP_NHCB,
  SKIP_START_TIMESTAMPS,
  SKIP_TYPE_AND_UNIT,
  type FlaggedSeries,
} from './skips.js';

export type CaseStatus = 'passed' | 'failed' | 'skipped';

export interface CaseResult {
  readonly file: string;
  /** 1-based line of the `eval` (or of the script error). */
  readonly line: number;
  readonly expr: string;
  readonly status: CaseStatus;
  /** What differed (failed) or which feature (skipped); empty when passed. */
  readonly reason: string;
  /** For a case skipped after running: what differed without the gated data. */
  readonly detail?: string;
}

export interface ConformanceDeps {
  readonly engine: PromQLEngine;
  /** The engine's parser; parse errors must be thrown, not returned. */
  readonly parseExpr: (query: string) => Expr;
}

/** Matches queries whose result depends on the query's own range (test.go reQueryContextFuncs). */
const QUERY_CONTEXT_FUNCS = /(start|end|range|step)\(\)/;
const MINUTE = 60_000;

/** Runs one script. A malformed script yields one failed entry at the offending line. */
export async function runScript(
  file: string,
  text: string,
  deps: ConformanceDeps,
): Promise<CaseResult[]> {
  let cmds;
  try {
    cmds = parseScript(file, text);
  } catch (e) {
    if (e instanceof ScriptError) {
      return [
        { file, line: e.line, expr: '', status: 'failed', reason: `invalid script: ${e.detail}` },
      ];
    }
    throw e;
  }
  const storage = new MemoryStorage();
  let flagged: FlaggedSeries[] = [];
  const results: CaseResult[] = [];
  for (const cmd of cmds) {
    switch (cmd.kind) {
      case 'clear':
        storage.clear();
        flagged = [];
        break;
      case 'load':
        flagged.push(...load(storage, cmd));
        break;
      case 'eval': {
        const outcome = await runCase(cmd, storage, flagged, deps);
        results.push({ file, line: cmd.line, expr: cmd.expr, ...outcome });
        break;
      }
    }
  }
  return results;
}

function load(storage: MemoryStorage, cmd: LoadCmd): FlaggedSeries[] {
  const flagged: FlaggedSeries[] = [];
  const withSt = new Set(cmd.startTimestampSeries.map((l) => l.toString()));
  for (const s of cmd.series) {
    let hasHistogram = false;
    s.values.forEach((v, i) => {
      if (v.kind === 'float') storage.add(s.labels, i * cmd.intervalMs, v.value);
      else if (v.kind === 'histogram') hasHistogram = true;
    });
    if (hasHistogram) flagged.push({ labels: s.labels, reason: SKIP_NATIVE_HISTOGRAMS });
    if (cmd.defaultStartTimestamps || withSt.has(s.labels.toString())) {
      flagged.push({ labels: s.labels, reason: SKIP_START_TIMESTAMPS });
    }
    if (s.labels.has('__type__') || s.labels.has('__unit__')) {
      flagged.push({ labels: s.labels, reason: SKIP_TYPE_AND_UNIT });
    }
    const twin = cmd.withNhcb ? nhcbTwin(s.labels) : undefined;
    if (twin !== undefined) flagged.push({ labels: twin, reason: SKIP_NHCB });
  }
  return flagged;
}

/** The native-histogram series load_with_nhcb derives from a classic histogram series. */
function nhcbTwin(labels: Labels): Labels | undefined {
  const name = labels.get('__name__');
  const m = /^(.*)_(bucket|count|sum)$/.exec(name);
  if (m === null) return undefined;
  if (m[2] === 'bucket' && (!labels.has('le') || !isBucketBound(labels.get('le'))))
    return undefined;
  const pairs: [string, string][] = [];
  labels.forEach((n, v) => {
    if (n !== 'le' && n !== '__name__') pairs.push([n, v]);
  });
  pairs.push(['__name__', m[1] as string]);
  return Labels.fromPairs(pairs);
}

/** Whether `le` parses as a Go float bucket bound (`+Inf` included, which JS Number rejects). */
function isBucketBound(le: string): boolean {
  return /^[+-]?inf$/i.test(le) || !Number.isNaN(Number(le));
}

type Outcome = { status: CaseStatus; reason: string; detail?: string };

const passed: Outcome = { status: 'passed', reason: '' };
const failed = (reason: string): Outcome => ({ status: 'failed', reason });
const skipped = (reason: string): Outcome => ({ status: 'skipped', reason });

async function runCase(
  cmd: EvalCmd,
  storage: MemoryStorage,
  flagged: readonly FlaggedSeries[],
  deps: ConformanceDeps,
): Promise<Outcome> {
  for (const exp of cmd.expected.values()) {
    if (exp.values.some((v) => v.kind === 'histogram'))
      return skipped(SKIP_NATIVE_HISTOGRAM_RESULT);
  }
  const always = alwaysSkipped(cmd.expr);
  if (always !== undefined) return skipped(always);
  let expr: Expr;
  try {
    expr = deps.parseExpr(cmd.expr);
  } catch (e) {
    const message = errorMessage(e);
    const gated = gatedFeatureOf(cmd.expr, message);
    if (gated !== undefined) return skipped(gated);
    return failed(`parse error (Prometheus accepts this expression): ${message}`);
  }
  // A case selecting series whose gated data (histogram samples, start timestamps, …) was
  // not loaded still runs: if the answer is right without that data it passes, otherwise it
  // is skipped for the feature, with what differed kept as detail.
  const flaggedReason = flaggedBySelectors(selectorsOf(expr), flagged);
  let problem: string | undefined;
  try {
    problem = cmd.isRange
      ? await runRange(cmd, storage, deps)
      : await runInstant(cmd, expr, storage, deps);
  } catch (e) {
    return failed(`engine crashed: ${describeCrash(e)}`);
  }
  if (problem === undefined) return passed;
  if (flaggedReason !== undefined)
    return { status: 'skipped', reason: flaggedReason, detail: problem };
  return failed(problem);
}

/** `TypeError: message (at the innermost frame)`: enough to find the bug, one line long. */
function describeCrash(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const frame = e.stack
    ?.split('\n')
    .find((l) => l.trim().startsWith('at '))
    ?.trim();
  return `${e.name}: ${e.message}${frame === undefined ? '' : ` (${frame})`}`;
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Errors a query may legitimately end with; anything else is an engine bug. */
function isQueryError(e: unknown): e is Error {
  if (e instanceof PromQLError) return true;
  return (
    e instanceof Error &&
    !(
      e instanceof TypeError ||
      e instanceof ReferenceError ||
      e instanceof RangeError ||
      e instanceof SyntaxError
    )
  );
}

async function attempt(run: () => Promise<QueryResult>): Promise<QueryResult | Error> {
  try {
    return await run();
  } catch (e) {
    if (isQueryError(e)) return e;
    throw e;
  }
}

async function runRange(
  cmd: EvalCmd,
  storage: MemoryStorage,
  deps: ConformanceDeps,
): Promise<string | undefined> {
  const res = await attempt(() =>
    deps.engine.rangeQuery(storage, cmd.expr, cmd.start, cmd.end ?? cmd.start, cmd.step),
  );
  if (res instanceof Error) {
    return checkExpectedFailure(cmd, res.message);
  }
  if (isFail(cmd))
    return `expected error evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}) but got none`;
  const annos = checkAnnotations(cmd, cmd.expr, res.annotations);
  if (annos !== undefined) return annos;
  const diff = compareResult(cmd, res.value);
  return diff === undefined ? undefined : `range query: ${diff}`;
}

interface InstantQuery {
  readonly query: string | Expr;
  readonly evalTime: number;
  /** How the query is described in messages. */
  readonly label: string;
  readonly usesQueryContext: boolean;
}

async function runInstant(
  cmd: EvalCmd,
  expr: Expr,
  storage: MemoryStorage,
  deps: ConformanceDeps,
): Promise<string | undefined> {
  const queries: InstantQuery[] = [
    {
      query: cmd.expr,
      evalTime: cmd.evalTime,
      label: 'instant query',
      usesQueryContext: QUERY_CONTEXT_FUNCS.test(cmd.expr),
    },
  ];
  // Once pinned with `@`, `@ start()`/`@ end()` no longer appear in the printed query.
  const withoutAtStartEnd = cmd.expr.replace(/@\s*(start|end)\s*\(\s*\)/g, '');
  for (const v of atModifierTestCases(expr, cmd.evalTime)) {
    queries.push({
      query: v.expr,
      evalTime: v.evalTime,
      label: `instant query with every selector pinned to @ ${cmd.evalTime / 1000}, evaluated at ${v.evalTime / 1000}s`,
      usesQueryContext: hasStartOrEnd(v.expr) || QUERY_CONTEXT_FUNCS.test(withoutAtStartEnd),
    });
  }
  for (const q of queries) {
    const problem = await runInstantQuery(cmd, q, storage, deps);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

async function runInstantQuery(
  cmd: EvalCmd,
  q: InstantQuery,
  storage: MemoryStorage,
  deps: ConformanceDeps,
): Promise<string | undefined> {
  const res = await attempt(() => deps.engine.instantQuery(storage, q.query, q.evalTime));
  if (res instanceof Error) {
    const problem = checkExpectedFailure(cmd, res.message);
    return problem === undefined ? undefined : `${q.label}: ${problem}`;
  }
  if (isFail(cmd)) {
    return `${q.label}: expected error evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}) but got none`;
  }
  const annos = checkAnnotations(cmd, cmd.expr, res.annotations);
  if (annos !== undefined) return `${q.label}: ${annos}`;
  const diff = compareResult(cmd, res.value);
  if (diff !== undefined) return `${q.label}: ${diff}`;

  if (cmd.excludeFromRangeQuery || q.usesQueryContext) return undefined;
  const rangeRes = await attempt(() =>
    deps.engine.rangeQuery(storage, q.query, q.evalTime - MINUTE, q.evalTime + MINUTE, MINUTE),
  );
  if (rangeRes instanceof Error) {
    return `${q.label}, in range mode: error evaluating query ${JSON.stringify(cmd.expr)} (line ${cmd.line}): ${rangeRes.message}`;
  }
  // Range results are always sorted by labels, so an ordered case cannot be compared.
  if (isOrdered(cmd)) return undefined;
  if (rangeRes.value.type !== 'matrix') {
    return `${q.label}, in range mode: range query returned a ${rangeRes.value.type}, not a matrix`;
  }
  const middle = middleStep(rangeRes.value, q.evalTime);
  if (typeof middle === 'string') return `${q.label}, in range mode: ${middle}`;
  let value: QueryValue;
  if (res.value.type === 'scalar') {
    const first = middle[0];
    if (first === undefined)
      return `${q.label}, in range mode: no point at the evaluation time for a scalar query`;
    value = { type: 'scalar', scalar: { t: q.evalTime, v: first.f } };
  } else {
    value = { type: 'vector', vector: middle };
  }
  const rangeDiff = compareResult(cmd, value);
  return rangeDiff === undefined ? undefined : `${q.label}, in range mode: ${rangeDiff}`;
}

function middleStep(value: QueryValue & { type: 'matrix' }, t: number): Sample[] | string {
  const unsorted = assertMatrixSorted(value.matrix);
  if (unsorted !== undefined) return unsorted;
  const out: Sample[] = [];
  for (const s of value.matrix) {
    const p = s.floats.find((pt) => pt.t === t);
    if (p !== undefined) out.push({ metric: s.metric, t: p.t, f: p.f });
  }
  return out;
}
