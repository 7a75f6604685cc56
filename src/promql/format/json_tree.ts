// The syntax tree that `/api/v1/parse_query` returns for the UI's explain view: Prometheus's
// web/api/v1/translate_ast.go. Every object lists its keys in sorted order because Go's
// JSON encoder sorts map keys, so JSON.stringify of the result matches Prometheus's body
// (apart from Go's HTML escaping of `<`, `>`, `&`, which is the encoder's business).
//
// Fields for syntax Strata does not parse (the `anchored`/`smoothed` range modifiers, fill
// values of binary operators, aligned subqueries) are present with the values Prometheus
// gives when the syntax is absent, so that the shape is the same as Prometheus 3.x's.
import { formatFloatF, type Matcher } from '../../model/index.js';
import { getFunction, type Expr, type TimeModifiers } from '../parser/index.js';

export type JSONValue = null | boolean | number | string | readonly JSONValue[] | JSONObject;
export interface JSONObject {
  readonly [key: string]: JSONValue;
}

/**
 * Prometheus's translateAST. Step-invariant wrappers (never present in a freshly parsed
 * tree, which is all parse_query shows) are transparent. Throws for a call of a function
 * the parser's table does not know, which a parsed tree never contains.
 */
export function exprToJSON(expr: Expr): JSONObject {
  const tr = exprToJSON;
  switch (expr.type) {
    case 'AggregateExpr':
      return {
        expr: tr(expr.expr),
        grouping: [...expr.grouping],
        op: expr.op,
        param: expr.param === undefined ? null : tr(expr.param),
        type: 'aggregation',
        without: expr.without,
      };
    case 'BinaryExpr': {
      const vm = expr.vectorMatching;
      return {
        bool: expr.returnBool,
        lhs: tr(expr.lhs),
        matching:
          vm === undefined
            ? null
            : {
                card: vm.card,
                fillValues: { lhs: null, rhs: null },
                include: [...vm.include],
                labels: [...vm.matchingLabels],
                on: vm.on,
              },
        op: expr.op,
        rhs: tr(expr.rhs),
        type: 'binaryExpr',
      };
    }
    case 'Call': {
      const fn = getFunction(expr.func);
      if (fn === undefined) throw new Error(`unknown function ${JSON.stringify(expr.func)}`);
      return {
        args: expr.args.map(tr),
        func: {
          argTypes: [...fn.argTypes],
          name: fn.name,
          returnType: fn.returnType,
          variadic: fn.variadic,
        },
        type: 'call',
      };
    }
    case 'MatrixSelector': {
      const vs = expr.vectorSelector;
      return {
        anchored: false,
        matchers: matchersJSON(vs.labelMatchers),
        name: vs.name,
        offset: vs.originalOffset,
        range: expr.range,
        smoothed: false,
        startOrEnd: startOrEnd(vs),
        timestamp: timestamp(vs),
        type: 'matrixSelector',
      };
    }
    case 'SubqueryExpr':
      return {
        alignEvalTime: false,
        expr: tr(expr.expr),
        offset: expr.originalOffset,
        range: expr.range,
        startOrEnd: startOrEnd(expr),
        step: expr.step,
        timestamp: timestamp(expr),
        type: 'subquery',
      };
    case 'NumberLiteral':
      return { type: 'numberLiteral', val: formatFloatF(expr.val) };
    case 'ParenExpr':
      return { expr: tr(expr.expr), type: 'parenExpr' };
    case 'StringLiteral':
      return { type: 'stringLiteral', val: expr.val };
    case 'UnaryExpr':
      return { expr: tr(expr.expr), op: expr.op, type: 'unaryExpr' };
    case 'StepInvariantExpr':
      return tr(expr.expr);
    case 'VectorSelector':
      return {
        anchored: false,
        matchers: matchersJSON(expr.labelMatchers),
        name: expr.name,
        offset: expr.originalOffset,
        smoothed: false,
        startOrEnd: startOrEnd(expr),
        timestamp: timestamp(expr),
        type: 'vectorSelector',
      };
  }
}

function matchersJSON(matchers: readonly Matcher[]): JSONObject[] {
  return matchers.map((m) => ({ name: m.name, type: m.type, value: m.value }));
}

function startOrEnd(m: TimeModifiers): string | null {
  return m.startOrEnd ?? null;
}

function timestamp(m: TimeModifiers): number | null {
  return m.timestamp ?? null;
}
