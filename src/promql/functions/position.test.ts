// Position suffixes of annotations: the engine's formatter when present, else the
// single-line default `1:<start + 1>`; positionRange mirrors Prometheus's PositionRange().
import { describe, expect, it } from 'vitest';
import type { Expr } from '../parser/ast.js';
import { addInvalidQuantileWarning } from './annotations.js';
import { POSITION_FORMATTER_KEY, positionRange, positionSuffix } from './position.js';
import { makeEnh, matrixSelector, num, vectorSelector } from './testing.js';

describe('positions', () => {
  it('cover every node shape', () => {
    const ms = matrixSelector('foo', 60_000, 0, 5);
    expect(positionRange(ms)).toEqual({ start: 5, end: ms.endPos });
    const sub: Expr = {
      type: 'SubqueryExpr',
      expr: vectorSelector('foo', 0, 3),
      range: 1,
      step: 0,
      endPos: 20,
      offset: 0,
      originalOffset: 0,
    };
    expect(positionRange(sub)).toEqual({ start: 3, end: 20 });
    expect(positionRange({ type: 'UnaryExpr', op: '-', expr: num(1, 4), startPos: 2 })).toEqual({
      start: 2,
      end: 5,
    });
    expect(positionRange({ type: 'StepInvariantExpr', expr: num(1, 7) })).toEqual({
      start: 7,
      end: 8,
    });
  });

  it('use the engine formatter, or the single-line default', () => {
    expect(positionSuffix(makeEnh(0), num(1, 9))).toBe(' (1:10)');
    const enh = makeEnh(
      0,
      new Map([[POSITION_FORMATTER_KEY, (e: Expr) => `2:${positionRange(e).start}`]]),
    );
    expect(positionSuffix(enh, num(1, 9))).toBe(' (2:9)');
    const none = makeEnh(0, new Map([[POSITION_FORMATTER_KEY, () => '']]));
    addInvalidQuantileWarning(none, 1.5, num(1.5));
    expect(none.annotations.warnings()).toEqual([
      'PromQL warning: quantile value should be between 0 and 1, got 1.5',
    ]);
    expect(positionSuffix(makeEnh(0), undefined)).toBe('');
  });
});
