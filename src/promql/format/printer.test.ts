// Printer, prettifier and JSON tree over hand-built trees: node shapes the parser never
// produces on its own (StepInvariantExpr, an empty selector) and every modifier combination,
// independent of the parser. The parser-driven tables live in printer_parsed.test.ts,
// json_tree.test.ts and round_trip.test.ts.
import { describe, expect, it } from 'vitest';
import { Matcher, type MatchType } from '../../model/index.js';
import type {
  AggregateExpr,
  AggregateOp,
  BinaryExpr,
  BinaryOp,
  Expr,
  MatrixSelector,
  SubqueryExpr,
  VectorMatching,
  VectorSelector,
} from '../parser/index.js';
import { exprToJSON } from './json_tree.js';
import { prettify } from './prettier.js';
import { exprToString } from './printer.js';

const P = { start: 0, end: 0 };

interface Mods {
  offset?: number;
  timestamp?: number;
  startOrEnd?: 'start' | 'end';
}

function sel(
  name: string,
  matchers: [MatchType, string, string][] = [],
  mods: Mods = {},
): VectorSelector {
  const all = matchers.map(([t, n, v]) => new Matcher(t, n, v));
  if (name !== '') all.push(Matcher.equal('__name__', name));
  return {
    type: 'VectorSelector',
    name,
    labelMatchers: all,
    offset: mods.offset ?? 0,
    originalOffset: mods.offset ?? 0,
    timestamp: mods.timestamp,
    startOrEnd: mods.startOrEnd,
    posRange: P,
  };
}

function mat(vs: VectorSelector, range: number): MatrixSelector {
  return { type: 'MatrixSelector', vectorSelector: vs, range, endPos: 0 };
}

function sub(expr: Expr, range: number, step: number, mods: Mods = {}): SubqueryExpr {
  return {
    type: 'SubqueryExpr',
    expr,
    range,
    step,
    offset: mods.offset ?? 0,
    originalOffset: mods.offset ?? 0,
    timestamp: mods.timestamp,
    startOrEnd: mods.startOrEnd,
    endPos: 0,
  };
}

function num(val: number): Expr {
  return { type: 'NumberLiteral', val, posRange: P };
}

function durationNum(val: number): Expr {
  const node = { type: 'NumberLiteral', val, duration: true, posRange: P } as const;
  return node;
}

function str(val: string): Expr {
  return { type: 'StringLiteral', val, posRange: P };
}

function call(func: string, ...args: Expr[]): Expr {
  return { type: 'Call', func, args, posRange: P };
}

function paren(expr: Expr): Expr {
  return { type: 'ParenExpr', expr, posRange: P };
}

function agg(op: AggregateOp, expr: Expr, opts: Partial<AggregateExpr> = {}): AggregateExpr {
  return {
    type: 'AggregateExpr',
    op,
    expr,
    param: opts.param,
    grouping: opts.grouping ?? [],
    without: opts.without ?? false,
    posRange: P,
  };
}

function bin(
  op: BinaryOp,
  lhs: Expr,
  rhs: Expr,
  vm?: Partial<VectorMatching>,
  returnBool = false,
): BinaryExpr {
  return {
    type: 'BinaryExpr',
    op,
    lhs,
    rhs,
    vectorMatching:
      vm === undefined
        ? undefined
        : {
            card: vm.card ?? 'one-to-one',
            matchingLabels: vm.matchingLabels ?? [],
            on: vm.on ?? false,
            include: vm.include ?? [],
          },
    returnBool,
    posRange: P,
  };
}

const M = 60_000;

describe('exprToString over hand-built trees', () => {
  it.each<[string, Expr]>([
    ['', sel('')],
    ['foobar', sel('foobar')],
    ['foobar{a="x"}', sel('foobar', [['=', 'a', 'x']])],
    [
      'foobar{a="x",b="y"}',
      sel('foobar', [
        ['=', 'b', 'y'],
        ['=', 'a', 'x'],
      ]),
    ],
    [
      '{a="x",b="y"}',
      sel('', [
        ['=', 'a', 'x'],
        ['=', 'b', 'y'],
      ]),
    ],
    ['{__name__="foobar"}', sel('', [['=', '__name__', 'foobar']])],
    [
      '{__name__="",a="x"}',
      sel('', [
        ['=', '__name__', ''],
        ['=', 'a', 'x'],
      ]),
    ],
    [
      'a{"a.b"="c",b!~"x|y",c=~"\\\\d+"}',
      sel('a', [
        ['=~', 'c', '\\d+'],
        ['=', 'a.b', 'c'],
        ['!~', 'b', 'x|y'],
      ]),
    ],
    ['a{b="\\n\\"é"}', sel('a', [['=', 'b', '\n"é']])],
    ['a offset 1m', sel('a', [], { offset: M })],
    ['a offset -7m', sel('a', [], { offset: -7 * M })],
    ['a @ 10.000', sel('a', [], { timestamp: 10_000 })],
    ['a @ -1.500', sel('a', [], { timestamp: -1500 })],
    ['a @ start() offset 1h30m', sel('a', [], { startOrEnd: 'start', offset: 90 * M })],
    ['a @ end()', sel('a', [], { startOrEnd: 'end' })],
    ['a{c="d"}[5m] offset 1m', mat(sel('a', [['=', 'c', 'd']], { offset: M }), 5 * M)],
    ['a[1m] @ 10.000 offset -3m', mat(sel('a', [], { timestamp: 10_000, offset: -3 * M }), M)],
    ['a[1d]', mat(sel('a'), 24 * 60 * M)],
    ['a[1h:5m] offset 1m', sub(sel('a'), 60 * M, 5 * M, { offset: M })],
    [
      'rate(a[5m])[1w:] @ start()',
      sub(call('rate', mat(sel('a'), 5 * M)), 7 * 24 * 60 * M, 0, { startOrEnd: 'start' }),
    ],
    ['1048576', num(1048576)],
    ['-0.5', num(-0.5)],
    ['+Inf', num(Infinity)],
    ['NaN', num(NaN)],
    // A literal the parser marks as written as a duration (Prometheus NumberLiteral.Duration).
    ['1h', durationNum(3600)],
    ['-1m30s', durationNum(-90)],
    ['"a\\tb\\u200b"', str('a\tb\u200b')],
    ['time()', call('time')],
    [
      'label_join(a, "d", ",", "s1", "s2")',
      call('label_join', sel('a'), str('d'), str(','), str('s1'), str('s2')),
    ],
    ['-a', { type: 'UnaryExpr', op: '-', expr: sel('a'), startPos: 0 }],
    ['+(a)', { type: 'UnaryExpr', op: '+', expr: paren(sel('a')), startPos: 0 }],
    ['a', { type: 'StepInvariantExpr', expr: sel('a') }],
    ['sum(a)', agg('sum', sel('a'))],
    ['sum by (code) (a)', agg('sum', sel('a'), { grouping: ['code'] })],
    ['sum without () (a)', agg('sum', sel('a'), { without: true })],
    [
      'sum without (instance, "foo.bar") (a)',
      agg('sum', sel('a'), { without: true, grouping: ['instance', 'foo.bar'] }),
    ],
    ['topk(5, a)', agg('topk', sel('a'), { param: num(5) })],
    [
      'count_values by (x) ("value", a)',
      agg('count_values', sel('a'), { param: str('value'), grouping: ['x'] }),
    ],
    ['limit_ratio(0.5, a)', agg('limit_ratio', sel('a'), { param: num(0.5) })],
    ['1 + 2', bin('+', num(1), num(2))],
    ['a - c', bin('-', sel('a'), sel('c'), {})],
    ['a - on () c', bin('-', sel('a'), sel('c'), { on: true })],
    ['a - on (b) c', bin('-', sel('a'), sel('c'), { on: true, matchingLabels: ['b'] })],
    ['a - ignoring (b) c', bin('-', sel('a'), sel('c'), { matchingLabels: ['b'] })],
    [
      'a - on (b) group_left (x, y) c',
      bin('-', sel('a'), sel('c'), {
        on: true,
        matchingLabels: ['b'],
        card: 'many-to-one',
        include: ['x', 'y'],
      }),
    ],
    ['a - ignoring () group_right () c', bin('-', sel('a'), sel('c'), { card: 'one-to-many' })],
    ['up > bool 0', bin('>', sel('up'), num(0), undefined, true)],
    [
      'a == bool on (x) b',
      bin('==', sel('a'), sel('b'), { on: true, matchingLabels: ['x'] }, true),
    ],
    [
      'a and on ("a.b") b',
      bin('and', sel('a'), sel('b'), { card: 'many-to-many', on: true, matchingLabels: ['a.b'] }),
    ],
    ['a or b', bin('or', sel('a'), sel('b'), { card: 'many-to-many' })],
  ])('%s', (want, expr) => {
    expect(exprToString(expr)).toBe(want);
  });
});

describe('prettify over hand-built trees', () => {
  it('keeps short expressions on one line and splits long ones', () => {
    expect(prettify(sel('a'))).toBe('a');
    expect(prettify(bin('+', sel('foo_1'), sel('foo_2')), { maxCharactersPerLine: 10 })).toBe(
      '  foo_1\n+\n  foo_2',
    );
  });

  it('prints a step-invariant wrapper as its inner expression', () => {
    const inner = call('rate', mat(sel('foo'), M));
    expect(prettify({ type: 'StepInvariantExpr', expr: inner }, { maxCharactersPerLine: 10 })).toBe(
      'rate(\n  foo[1m]\n)',
    );
  });

  it('counts bytes, not characters, against the limit', () => {
    // 10 characters but 20 bytes: Prometheus splits it.
    const expr = call('f', sel('', [['=', 'a', 'ééééé']]));
    expect(exprToString(expr)).toBe('f({a="ééééé"})');
    expect(prettify(expr, { maxCharactersPerLine: 15 })).toBe('f(\n  {a="ééééé"}\n)');
  });

  it('does not indent a subquery that fits on one line (Prometheus quirk)', () => {
    const expr = call('max_over_time', sub(sel('foo'), 5 * M, M));
    expect(prettify(expr, { maxCharactersPerLine: 15 })).toBe('max_over_time(\nfoo[5m:1m]\n)');
  });
});

describe('exprToJSON over hand-built trees', () => {
  it('unwraps step-invariant wrappers and keeps sorted keys', () => {
    const tree = exprToJSON({ type: 'StepInvariantExpr', expr: num(1) });
    expect(tree).toEqual({ type: 'numberLiteral', val: '1' });
    const vs = exprToJSON(sel('a', [], { timestamp: 5, offset: -M }));
    expect(JSON.stringify(vs)).toBe(
      '{"anchored":false,"matchers":[{"name":"__name__","type":"=","value":"a"}],"name":"a","offset":-60000,' +
        '"smoothed":false,"startOrEnd":null,"timestamp":5,"type":"vectorSelector"}',
    );
  });

  it("describes a call by the parser's signature table", () => {
    expect(exprToJSON(call('rate', mat(sel('a'), M)))).toMatchObject({
      func: { argTypes: ['matrix'], name: 'rate', returnType: 'vector', variadic: 0 },
      type: 'call',
    });
  });

  it('rejects a function the table does not know', () => {
    expect(() => exprToJSON(call('nope'))).toThrow('unknown function "nope"');
  });
});
