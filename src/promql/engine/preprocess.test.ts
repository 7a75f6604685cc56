import { describe, expect, it } from 'vitest';
import type { Expr } from '../parser/ast.js';
import { parseExpr } from '../parser/index.js';
import { preprocessExpr } from './index.js';

/** A compact rendering of where StepInvariantExpr wrappers end up. */
function shape(e: Expr): string {
  switch (e.type) {
    case 'StepInvariantExpr':
      return `SI(${shape(e.expr)})`;
    case 'BinaryExpr':
      return `(${shape(e.lhs)} ${e.op} ${shape(e.rhs)})`;
    case 'Call':
      return `${e.func}(${e.args.map(shape).join(', ')})`;
    case 'AggregateExpr':
      return `${e.op}(${shape(e.expr)})`;
    case 'VectorSelector':
      return e.timestamp === undefined ? e.name : `${e.name}@${e.timestamp}`;
    case 'MatrixSelector':
      return `${shape(e.vectorSelector)}[${e.range}]`;
    case 'SubqueryExpr':
      return `${shape(e.expr)}[${e.range}:${e.step}]${e.timestamp === undefined ? '' : `@${e.timestamp}`}`;
    case 'NumberLiteral':
      return String(e.val);
    case 'ParenExpr':
      return `(${shape(e.expr)})`;
    case 'UnaryExpr':
      return `-${shape(e.expr)}`;
    case 'StringLiteral':
      return JSON.stringify(e.val);
  }
}

const pre = (q: string, start = 0, end = 0, step = 0): string =>
  shape(preprocessExpr(parseExpr(q), start, end, step));

describe('preprocessExpr (Prometheus engine_test TestPreprocessAndWrapWithStepInvariantExpr)', () => {
  it('wraps the highest step-invariant subtrees', () => {
    expect(pre('123.4567')).toBe('123.4567');
    expect(pre('"foo"')).toBe('"foo"');
    expect(pre('foo * bar')).toBe('(foo * bar)');
    expect(pre('foo @ 20 * bar @ 10')).toBe('SI((foo@20000 * bar@10000))');
    expect(pre('foo @ 20 * bar')).toBe('(SI(foo@20000) * bar)');
    expect(pre('sum(rate(foo[1m] @ 10))')).toBe('SI(sum(rate(foo@10000[60000])))');
    expect(pre('rate(foo[1m] @ 10) + time()')).toBe('(SI(rate(foo@10000[60000])) + time())');
    expect(pre('predict_linear(foo[1m] @ 10, 1)')).toBe('predict_linear(foo@10000[60000], 1)');
  });

  it('wraps the inside of a subquery and resolves @ start()/end()', () => {
    expect(pre('max_over_time(foo @ 10[5m:1m])')).toBe(
      'max_over_time(SI(foo@10000)[300000:60000])',
    );
    expect(pre('foo @ start() + bar @ end()', 1000, 5000)).toBe('SI((foo@1000 + bar@5000))');
    expect(pre('max_over_time(foo[5m:1m] @ end())', 1000, 5000)).toBe(
      'SI(max_over_time(foo[300000:60000]@5000))',
    );
  });

  it("does not touch the caller's tree", () => {
    const e = parseExpr('foo @ start()');
    preprocessExpr(e, 1000, 2000);
    expect(e.type === 'VectorSelector' && e.timestamp).toBeUndefined();
  });

  it('resolves step(), range(), start() and end() to seconds', () => {
    expect(pre('step() + range()', 10_000, 70_000, 15_000)).toBe('SI((15 + 60))');
  });
});
