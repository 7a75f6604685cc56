// test.go's extra instant-query checks: every instant case is also run with `@ <eval time>`
// added to each selector and subquery outside an `@`-subquery, at five other evaluation
// times (atModifierTestCases), unless it calls a function whose result depends on the
// evaluation time. Prometheus prints the rewritten tree and re-parses it; we hand the
// rewritten tree to the engine directly, which the PromQLEngine contract allows.
import { AT_MODIFIER_UNSAFE_FUNCTIONS } from '../functions/index.js';
import type { Expr, VectorSelector } from '../parser/index.js';

export interface AtModifierCase {
  readonly expr: Expr;
  readonly evalTime: number;
}

/** The `@`-pinned variants of an instant query at `evalTime` (ms); empty when unsafe. */
export function atModifierTestCases(expr: Expr, evalTime: number): AtModifierCase[] {
  const state = { unsafe: false };
  const pinned = pin(expr, evalTime, state);
  if (state.unsafe) return [];
  const times =
    evalTime === 0
      ? [-1000, 0, 1000]
      : [-10 * evalTime, 0, Math.trunc(evalTime / 5), evalTime, 10 * evalTime];
  return times.map((t) => ({ expr: pinned, evalTime: t }));
}

function pinSelector(vs: VectorSelector, ts: number): VectorSelector {
  return vs.timestamp === undefined ? { ...vs, timestamp: ts, startOrEnd: undefined } : vs;
}

function pin(e: Expr, ts: number, state: { unsafe: boolean }): Expr {
  switch (e.type) {
    case 'VectorSelector':
      return pinSelector(e, ts);
    case 'MatrixSelector':
      return { ...e, vectorSelector: pinSelector(e.vectorSelector, ts) };
    case 'SubqueryExpr':
      // Everything below a subquery that has (or now gets) an `@` stays as written.
      return e.timestamp === undefined ? { ...e, timestamp: ts, startOrEnd: undefined } : e;
    case 'Call':
      if (AT_MODIFIER_UNSAFE_FUNCTIONS.has(e.func)) state.unsafe = true;
      return { ...e, args: e.args.map((a) => pin(a, ts, state)) };
    case 'AggregateExpr':
      return {
        ...e,
        expr: pin(e.expr, ts, state),
        param: e.param === undefined ? undefined : pin(e.param, ts, state),
      };
    case 'BinaryExpr':
      return { ...e, lhs: pin(e.lhs, ts, state), rhs: pin(e.rhs, ts, state) };
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return { ...e, expr: pin(e.expr, ts, state) };
    case 'NumberLiteral':
    case 'StringLiteral':
      return e;
  }
}

/** Every vector selector of the tree (including those inside matrix selectors and subqueries). */
export function selectorsOf(e: Expr, out: VectorSelector[] = []): VectorSelector[] {
  switch (e.type) {
    case 'VectorSelector':
      out.push(e);
      break;
    case 'MatrixSelector':
      out.push(e.vectorSelector);
      break;
    case 'Call':
      for (const a of e.args) selectorsOf(a, out);
      break;
    case 'AggregateExpr':
      selectorsOf(e.expr, out);
      if (e.param !== undefined) selectorsOf(e.param, out);
      break;
    case 'BinaryExpr':
      selectorsOf(e.lhs, out);
      selectorsOf(e.rhs, out);
      break;
    case 'SubqueryExpr':
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      selectorsOf(e.expr, out);
      break;
    case 'NumberLiteral':
    case 'StringLiteral':
      break;
  }
  return out;
}

/** Whether `@ start()` / `@ end()` is still somewhere in the tree. */
export function hasStartOrEnd(e: Expr): boolean {
  switch (e.type) {
    case 'VectorSelector':
      return e.startOrEnd !== undefined;
    case 'MatrixSelector':
      return e.vectorSelector.startOrEnd !== undefined;
    case 'SubqueryExpr':
      return e.startOrEnd !== undefined || hasStartOrEnd(e.expr);
    case 'Call':
      return e.args.some(hasStartOrEnd);
    case 'AggregateExpr':
      return hasStartOrEnd(e.expr) || (e.param !== undefined && hasStartOrEnd(e.param));
    case 'BinaryExpr':
      return hasStartOrEnd(e.lhs) || hasStartOrEnd(e.rhs);
    case 'ParenExpr':
    case 'UnaryExpr':
    case 'StepInvariantExpr':
      return hasStartOrEnd(e.expr);
    case 'NumberLiteral':
    case 'StringLiteral':
      return false;
  }
}
