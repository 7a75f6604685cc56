// The tree helpers the engine and printer rely on: children order, pre-order inspection with
// ancestor paths, value types and parenthesis unwrapping.
import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import {
  children,
  documentedType,
  exprType,
  inspect,
  parseExpr,
  posRangeOf,
  unwrapParens,
} from './index.js';

describe('tree helpers', () => {
  it('lists children like parser.Children and walks in pre-order with the path', () => {
    const e = parseExpr('sum by (a) (rate(foo[5m])) / on(a) topk(3, bar)');
    const seen: string[] = [];
    inspect(e, (n, path) => {
      seen.push(`${path.length}:${n.type}`);
    });
    expect(seen).toEqual([
      '0:BinaryExpr',
      '1:AggregateExpr',
      '2:Call',
      '3:MatrixSelector',
      '4:VectorSelector',
      '1:AggregateExpr',
      '2:VectorSelector',
      '2:NumberLiteral',
    ]);
    const topk = children(e)[1] as Expr;
    expect(children(topk).map((c) => c.type)).toEqual(['VectorSelector', 'NumberLiteral']);
  });

  it('can skip subtrees', () => {
    const seen: string[] = [];
    inspect(parseExpr('abs(foo) + bar'), (n) => {
      seen.push(n.type);
      return n.type !== 'Call';
    });
    expect(seen).toEqual(['BinaryExpr', 'Call', 'VectorSelector']);
  });

  it('knows value types and positions', () => {
    expect(exprType(parseExpr('1 + 2 * 3'))).toBe('scalar');
    expect(exprType(parseExpr('1 + foo'))).toBe('vector');
    expect(exprType(parseExpr('foo[5m]'))).toBe('matrix');
    expect(exprType(parseExpr('(foo)[5m:]'))).toBe('matrix');
    expect(exprType(parseExpr('"a"'))).toBe('string');
    expect(exprType(parseExpr('scalar(foo)'))).toBe('scalar');
    expect(documentedType('matrix')).toBe('range vector');
    expect(posRangeOf(parseExpr(' foo[5m:] offset 1m'))).toEqual({ start: 1, end: 19 });
    expect(unwrapParens(parseExpr('((foo))')).type).toBe('VectorSelector');
  });
});
