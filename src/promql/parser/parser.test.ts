// Table tests taken from the cases of Prometheus's promql/parser/parse_test.go: valid inputs
// with the expected tree, invalid inputs with Prometheus's exact message and position.
import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import { ParseError, parseExpr, parseMetricSelector } from './index.js';

/** The tree as plain data, matchers written as `name<op>"value"`. */
function plain(e: unknown): unknown {
  return JSON.parse(
    JSON.stringify(e, (_k, v: unknown) => {
      if (v !== null && typeof v === 'object' && v.constructor.name === 'Matcher') {
        const m = v as { name: string; type: string; value: string };
        return `${m.name}${m.type}${JSON.stringify(m.value)}`;
      }
      return v;
    }),
  ) as unknown;
}

const num = (val: number, start: number, end: number): Expr => ({
  type: 'NumberLiteral',
  val,
  posRange: { start, end },
});

/** A number literal written as a duration (Prometheus NumberLiteral.Duration). */
const dur = (val: number, start: number, end: number): Expr => ({
  type: 'NumberLiteral',
  val,
  posRange: { start, end },
  duration: true,
});

const vs = (
  name: string,
  start: number,
  end: number,
  matchers: string[] = [],
  extra: object = {},
): object => ({
  type: 'VectorSelector',
  name,
  labelMatchers: name === '' ? matchers : [...matchers, `__name__=${JSON.stringify(name)}`],
  offset: 0,
  originalOffset: 0,
  posRange: { start, end },
  ...extra,
});

const bin = (
  op: string,
  lhs: unknown,
  rhs: unknown,
  start: number,
  end: number,
  extra: object = {},
): object => ({
  type: 'BinaryExpr',
  op,
  lhs,
  rhs,
  returnBool: false,
  posRange: { start, end },
  ...extra,
});

const matching = (
  card: string,
  matchingLabels: string[] = [],
  on = false,
  include: string[] = [],
): object => ({
  vectorMatching: { card, matchingLabels, on, include },
});

const agg = (
  op: string,
  expr: unknown,
  start: number,
  end: number,
  extra: object = {},
): object => ({
  type: 'AggregateExpr',
  op,
  expr,
  grouping: [],
  without: false,
  posRange: { start, end },
  ...extra,
});

const VALID: readonly (readonly [string, unknown])[] = [
  ['1', num(1, 0, 1)],
  ['+Inf', num(Infinity, 0, 4)],
  ['-Inf', num(-Infinity, 0, 4)],
  ['.5', num(0.5, 0, 2)],
  ['5.', num(5, 0, 2)],
  ['123.4567', num(123.4567, 0, 8)],
  ['5e-3', num(0.005, 0, 4)],
  ['5e3', num(5000, 0, 3)],
  ['0xc', num(12, 0, 3)],
  ['0755', num(493, 0, 4)],
  ['+5.5e-3', num(0.0055, 0, 7)],
  ['-0755', num(-493, 0, 5)],
  ['1h', dur(3600, 0, 2)],
  ['1 + 1', bin('+', num(1, 0, 1), num(1, 4, 5), 0, 5)],
  ['1 - 1', bin('-', num(1, 0, 1), num(1, 4, 5), 0, 5)],
  ['1 % 1', bin('%', num(1, 0, 1), num(1, 4, 5), 0, 5)],
  [
    '-1^2',
    { type: 'UnaryExpr', op: '-', expr: bin('^', num(1, 1, 2), num(2, 3, 4), 1, 4), startPos: 0 },
  ],
  ['-1*2', bin('*', num(-1, 0, 2), num(2, 3, 4), 0, 4)],
  ['-1+2', bin('+', num(-1, 0, 2), num(2, 3, 4), 0, 4)],
  [
    '-1^-2',
    { type: 'UnaryExpr', op: '-', expr: bin('^', num(1, 1, 2), num(-2, 3, 5), 1, 5), startPos: 0 },
  ],
  ['+1 + -2 * 1', bin('+', num(1, 0, 2), bin('*', num(-2, 5, 7), num(1, 10, 11), 5, 11), 0, 11)],
  [
    '1 + 2/(3*1)',
    bin(
      '+',
      num(1, 0, 1),
      bin(
        '/',
        num(2, 4, 5),
        {
          type: 'ParenExpr',
          expr: bin('*', num(3, 7, 8), num(1, 9, 10), 7, 10),
          posRange: { start: 6, end: 11 },
        },
        4,
        11,
      ),
      0,
      11,
    ),
  ],
  [
    '1 < bool 2 - 1 * 2',
    bin(
      '<',
      num(1, 0, 1),
      bin('-', num(2, 9, 10), bin('*', num(1, 13, 14), num(2, 17, 18), 13, 18), 9, 18),
      0,
      18,
      {
        returnBool: true,
      },
    ),
  ],
  ['1 == bool 1', bin('==', num(1, 0, 1), num(1, 10, 11), 0, 11, { returnBool: true })],
  ['2^3^2', bin('^', num(2, 0, 1), bin('^', num(3, 2, 3), num(2, 4, 5), 2, 5), 0, 5)],
  ['-some_metric', { type: 'UnaryExpr', op: '-', expr: vs('some_metric', 1, 12), startPos: 0 }],
  [' +some_metric', { type: 'UnaryExpr', op: '+', expr: vs('some_metric', 2, 13), startPos: 1 }],
  [
    ' +{"some_metric"}',
    { type: 'UnaryExpr', op: '+', expr: vs('', 2, 17, ['__name__="some_metric"']), startPos: 1 },
  ],
  ['foo * bar', bin('*', vs('foo', 0, 3), vs('bar', 6, 9), 0, 9, matching('one-to-one'))],
  ['foo * sum', bin('*', vs('foo', 0, 3), vs('sum', 6, 9), 0, 9, matching('one-to-one'))],
  ['foo == 1', bin('==', vs('foo', 0, 3), num(1, 7, 8), 0, 8)],
  ['2.5 / bar', bin('/', num(2.5, 0, 3), vs('bar', 6, 9), 0, 9)],
  ['foo and bar', bin('and', vs('foo', 0, 3), vs('bar', 8, 11), 0, 11, matching('many-to-many'))],
  [
    'foo + bar or bla and blub',
    bin(
      'or',
      bin('+', vs('foo', 0, 3), vs('bar', 6, 9), 0, 9, matching('one-to-one')),
      bin('and', vs('bla', 13, 16), vs('blub', 21, 25), 13, 25, matching('many-to-many')),
      0,
      25,
      matching('many-to-many'),
    ),
  ],
  [
    'foo and bar unless baz or qux',
    bin(
      'or',
      bin(
        'unless',
        bin('and', vs('foo', 0, 3), vs('bar', 8, 11), 0, 11, matching('many-to-many')),
        vs('baz', 19, 22),
        0,
        22,
        matching('many-to-many'),
      ),
      vs('qux', 26, 29),
      0,
      29,
      matching('many-to-many'),
    ),
  ],
  [
    'bar + on(foo) bla / on(baz, buz) group_right(test) blub',
    bin(
      '+',
      vs('bar', 0, 3),
      bin(
        '/',
        vs('bla', 14, 17),
        vs('blub', 51, 55),
        14,
        55,
        matching('one-to-many', ['baz', 'buz'], true, ['test']),
      ),
      0,
      55,
      matching('one-to-one', ['foo'], true),
    ),
  ],
  [
    'foo * on(test,blub) group_left bar',
    bin(
      '*',
      vs('foo', 0, 3),
      vs('bar', 31, 34),
      0,
      34,
      matching('many-to-one', ['test', 'blub'], true),
    ),
  ],
  [
    'foo and on(test,blub) bar',
    bin(
      'and',
      vs('foo', 0, 3),
      vs('bar', 22, 25),
      0,
      25,
      matching('many-to-many', ['test', 'blub'], true),
    ),
  ],
  [
    'foo and on() bar',
    bin('and', vs('foo', 0, 3), vs('bar', 13, 16), 0, 16, matching('many-to-many', [], true)),
  ],
  [
    'foo and ignoring(test,blub) bar',
    bin(
      'and',
      vs('foo', 0, 3),
      vs('bar', 28, 31),
      0,
      31,
      matching('many-to-many', ['test', 'blub']),
    ),
  ],
  [
    'foo / ignoring(test,blub) group_left(bar) bar',
    bin(
      '/',
      vs('foo', 0, 3),
      vs('bar', 42, 45),
      0,
      45,
      matching('many-to-one', ['test', 'blub'], false, ['bar']),
    ),
  ],
  [
    'offset{step="1s"}[5m]',
    {
      type: 'MatrixSelector',
      vectorSelector: vs('offset', 0, 17, ['step="1s"']),
      range: 300000,
      endPos: 21,
    },
  ],
  ['anchored{job="test"}', vs('anchored', 0, 20, ['job="test"'])],
  ['foo', vs('foo', 0, 3)],
  ['min', vs('min', 0, 3)],
  ['sum', vs('sum', 0, 3)],
  ['step', vs('step', 0, 4)],
  ['foo offset 5m', vs('foo', 0, 13, [], { offset: 300000, originalOffset: 300000 })],
  ['foo offset -7m', vs('foo', 0, 14, [], { offset: -420000, originalOffset: -420000 })],
  ['foo OFFSET 1h30m', vs('foo', 0, 16, [], { offset: 5400000, originalOffset: 5400000 })],
  ['foo OFFSET 1m30ms', vs('foo', 0, 17, [], { offset: 60030, originalOffset: 60030 })],
  ['foo offset - -5m', vs('foo', 0, 16, [], { offset: 300000, originalOffset: 300000 })],
  ['foo @ 1603774568', vs('foo', 0, 16, [], { timestamp: 1603774568000 })],
  ['foo @ -100', vs('foo', 0, 10, [], { timestamp: -100000 })],
  ['foo @ .3', vs('foo', 0, 8, [], { timestamp: 300 })],
  ['foo @ 3.', vs('foo', 0, 8, [], { timestamp: 3000 })],
  ['foo @ 3.3333', vs('foo', 0, 12, [], { timestamp: 3333 })],
  ['foo @ 3.3335', vs('foo', 0, 12, [], { timestamp: 3334 })],
  ['foo @ 3e2', vs('foo', 0, 9, [], { timestamp: 300000 })],
  ['foo @ 0xA', vs('foo', 0, 9, [], { timestamp: 10000 })],
  ['foo @ -3.3e1', vs('foo', 0, 12, [], { timestamp: -33000 })],
  ['foo @ start()', vs('foo', 0, 13, [], { startOrEnd: 'start' })],
  [
    'foo @ end() offset 1m',
    vs('foo', 0, 21, [], { startOrEnd: 'end', offset: 60000, originalOffset: 60000 }),
  ],
  ['foo:bar{a="bc"}', vs('foo:bar', 0, 15, ['a="bc"'])],
  ["foo{NaN='bc'}", vs('foo', 0, 13, ['NaN="bc"'])],
  ["foo{bar='}'}", vs('foo', 0, 12, ['bar="}"'])],
  ['foo{bar=`baz`}', vs('foo', 0, 14, ['bar="baz"'])],
  [
    'foo{a="b", foo!="bar", test=~"test", bar!~"baz",}',
    vs('foo', 0, 49, ['a="b"', 'foo!="bar"', 'test=~"test"', 'bar!~"baz"']),
  ],
  [
    '{a="b", foo!="bar", "foo", test=~"test", bar!~"baz"}',
    vs('', 0, 52, ['a="b"', 'foo!="bar"', '__name__="foo"', 'test=~"test"', 'bar!~"baz"']),
  ],
  ['{"foo"}', vs('', 0, 7, ['__name__="foo"'])],
  [
    "{'foo\\'bar', 'a\\\\dos\\\\path'='boo\\\\urns'}",
    vs('', 0, 40, ['__name__="foo\'bar"', 'a\\dos\\path="boo\\\\urns"']),
  ],
  ['{"foo", "bar"="baz"}', vs('', 0, 20, ['__name__="foo"', 'bar="baz"'])],
  ['{__name__="bar", __name__="baz"}', vs('', 0, 32, ['__name__="bar"', '__name__="baz"'])],
  ['{__name__=~"foo.+"}', vs('', 0, 19, ['__name__=~"foo.+"'])],
  [
    'test[5s]',
    { type: 'MatrixSelector', vectorSelector: vs('test', 0, 4), range: 5000, endPos: 8 },
  ],
  [
    'test[1001ms]',
    { type: 'MatrixSelector', vectorSelector: vs('test', 0, 4), range: 1001, endPos: 12 },
  ],
  ['test[5]', { type: 'MatrixSelector', vectorSelector: vs('test', 0, 4), range: 5000, endPos: 7 }],
  [
    'test[1.5]',
    { type: 'MatrixSelector', vectorSelector: vs('test', 0, 4), range: 1500, endPos: 9 },
  ],
  [
    'foo[4.018] @ 2.345',
    {
      type: 'MatrixSelector',
      vectorSelector: vs('foo', 0, 3, [], { timestamp: 2345 }),
      range: 4018,
      endPos: 18,
    },
  ],
  [
    'test{a="b"}[5y] OFFSET 3d',
    {
      type: 'MatrixSelector',
      vectorSelector: vs('test', 0, 11, ['a="b"'], {
        offset: 259200000,
        originalOffset: 259200000,
      }),
      range: 5 * 365 * 86400000,
      endPos: 25,
    },
  ],
  [
    'test{a="b"}[5m] OFFSET 3600',
    {
      type: 'MatrixSelector',
      vectorSelector: vs('test', 0, 11, ['a="b"'], { offset: 3600000, originalOffset: 3600000 }),
      range: 300000,
      endPos: 27,
    },
  ],
  [
    'sum by (foo)(some_metric)',
    agg('sum', vs('some_metric', 13, 24), 0, 25, { grouping: ['foo'] }),
  ],
  [
    'sum by (smoothed)(some_metric)',
    agg('sum', vs('some_metric', 18, 29), 0, 30, { grouping: ['smoothed'] }),
  ],
  [
    'sum by ("foo bar")({"some.metric"})',
    agg('sum', vs('', 19, 34, ['__name__="some.metric"']), 0, 35, { grouping: ['foo bar'] }),
  ],
  [
    'sum (some_metric) without (foo)',
    agg('sum', vs('some_metric', 5, 16), 0, 31, { grouping: ['foo'], without: true }),
  ],
  ['stddev(some_metric)', agg('stddev', vs('some_metric', 7, 18), 0, 19)],
  ['sum by ()(some_metric)', agg('sum', vs('some_metric', 10, 21), 0, 22)],
  [
    'sum by (foo,bar,)(some_metric)',
    agg('sum', vs('some_metric', 18, 29), 0, 30, { grouping: ['foo', 'bar'] }),
  ],
  [
    'sum without(and, by, avg, count, alert, annotations)(some_metric)',
    agg('sum', vs('some_metric', 53, 64), 0, 65, {
      grouping: ['and', 'by', 'avg', 'count', 'alert', 'annotations'],
      without: true,
    }),
  ],
  ['topk(5, some_metric)', agg('topk', vs('some_metric', 8, 19), 0, 20, { param: num(5, 5, 6) })],
  [
    'count_values("value", some_metric)',
    agg('count_values', vs('some_metric', 22, 33), 0, 34, {
      param: { type: 'StringLiteral', val: 'value', posRange: { start: 13, end: 20 } },
    }),
  ],
  [
    'limitk(2, some_metric)',
    agg('limitk', vs('some_metric', 10, 21), 0, 22, { param: num(2, 7, 8) }),
  ],
  ['time()', { type: 'Call', func: 'time', args: [], posRange: { start: 0, end: 6 } }],
  ['step()', { type: 'Call', func: 'step', args: [], posRange: { start: 0, end: 6 } }],
  [
    'min_of(3, 5)',
    {
      type: 'Call',
      func: 'min_of',
      args: [num(3, 7, 8), num(5, 10, 11)],
      posRange: { start: 0, end: 12 },
    },
  ],
  [
    'rate(some_metric[5m])',
    {
      type: 'Call',
      func: 'rate',
      args: [
        {
          type: 'MatrixSelector',
          vectorSelector: vs('some_metric', 5, 16),
          range: 300000,
          endPos: 20,
        },
      ],
      posRange: { start: 0, end: 21 },
    },
  ],
  [
    '"double-quoted string \\" with escaped quote"',
    {
      type: 'StringLiteral',
      val: 'double-quoted string " with escaped quote',
      posRange: { start: 0, end: 44 },
    },
  ],
  ['`\\a\\b`', { type: 'StringLiteral', val: '\\a\\b', posRange: { start: 0, end: 6 } }],
  [
    '"\\x41\\u00e9\\U0001F600\\101\\n"',
    { type: 'StringLiteral', val: 'Aé😀A\n', posRange: { start: 0, end: 28 } },
  ],
  [
    'foo[10m:6s]',
    {
      type: 'SubqueryExpr',
      expr: vs('foo', 0, 3),
      range: 600000,
      step: 6000,
      offset: 0,
      originalOffset: 0,
      endPos: 11,
    },
  ],
  [
    'foo[10m:] offset 1m',
    {
      type: 'SubqueryExpr',
      expr: vs('foo', 0, 3),
      range: 600000,
      step: 0,
      offset: 60000,
      originalOffset: 60000,
      endPos: 19,
    },
  ],
  ['foo offset (5)', vs('foo', 0, 14, [], { offset: 5000, originalOffset: 5000 })],
  ['foo offset -(5)', vs('foo', 0, 15, [], { offset: -5000, originalOffset: -5000 })],
  [
    'foo[(5s)]',
    { type: 'MatrixSelector', vectorSelector: vs('foo', 0, 3), range: 5000, endPos: 9 },
  ],
  ['foo # a comment\n', vs('foo', 0, 3)],
  ['sum(sum)', agg('sum', vs('sum', 4, 7), 0, 8)],
  ['foo{}', vs('foo', 0, 5)],
  ['5m * foo', bin('*', dur(300, 0, 2), vs('foo', 5, 8), 0, 8)],
  [
    'some_metric[5m] @ 1m',
    {
      type: 'MatrixSelector',
      vectorSelector: vs('some_metric', 0, 11, [], { timestamp: 60000 }),
      range: 300000,
      endPos: 20,
    },
  ],
  [
    '(sum(foo) )',
    { type: 'ParenExpr', expr: agg('sum', vs('foo', 5, 8), 1, 9), posRange: { start: 0, end: 11 } },
  ],
  [
    '(sum(foo) by (bar))',
    {
      type: 'ParenExpr',
      expr: agg('sum', vs('foo', 5, 8), 1, 18, { grouping: ['bar'] }),
      posRange: { start: 0, end: 19 },
    },
  ],
  ['start', vs('start', 0, 5)],
  ['start()', { type: 'Call', func: 'start', args: [], posRange: { start: 0, end: 7 } }],
  ['end{start="foo"}', vs('end', 0, 16, ['start="foo"'])],
  [
    'foo unless on(start) bar',
    bin(
      'unless',
      vs('foo', 0, 3),
      vs('bar', 21, 24),
      0,
      24,
      matching('many-to-many', ['start'], true),
    ),
  ],
  [
    'info(http_request_counter_total{namespace="zzz"}, {foo="bar", bar="baz"})',
    {
      type: 'Call',
      func: 'info',
      args: [
        vs('http_request_counter_total', 5, 48, ['namespace="zzz"']),
        vs('', 50, 72, ['foo="bar"', 'bar="baz"']),
      ],
      posRange: { start: 0, end: 73 },
    },
  ],
  [
    'some_metric @ 123 offset 1m [10m:5s]',
    {
      type: 'SubqueryExpr',
      expr: vs('some_metric', 0, 27, [], {
        timestamp: 123000,
        offset: 60000,
        originalOffset: 60000,
      }),
      range: 600000,
      step: 5000,
      offset: 0,
      originalOffset: 0,
      endPos: 36,
    },
  ],
  [
    'some_metric[10m:5s] offset 1m @ 123',
    {
      type: 'SubqueryExpr',
      expr: vs('some_metric', 0, 11),
      range: 600000,
      step: 5000,
      offset: 60000,
      originalOffset: 60000,
      timestamp: 123000,
      endPos: 35,
    },
  ],
  [
    'foo offset 5s-8',
    bin('-', vs('foo', 0, 13, [], { offset: 5000, originalOffset: 5000 }), num(8, 14, 15), 0, 15),
  ],
  [
    'foo offset -1^1',
    bin('^', vs('foo', 0, 13, [], { offset: -1000, originalOffset: -1000 }), num(1, 14, 15), 0, 15),
  ],
];

const INVALID: readonly (readonly [string, string])[] = [
  ['', 'unknown position: parse error: no expression found in input'],
  ['# just a comment\n\n', '1:1: parse error: no expression found in input'],
  ['1+', '1:3: parse error: unexpected end of input'],
  ['.', "1:1: parse error: unexpected character: '.'"],
  ['2.5.', '1:1: parse error: bad number or duration syntax: "2.5."'],
  ['100..4', '1:1: parse error: bad number or duration syntax: "100.."'],
  ['0deadbeef', '1:1: parse error: bad number or duration syntax: "0de"'],
  ['1 /', '1:4: parse error: unexpected end of input'],
  ['*1', '1:1: parse error: unexpected <op:*>'],
  ['(1))', "1:5: parse error: unexpected right parenthesis ')'"],
  ['((1)', '1:5: parse error: unclosed left parenthesis'],
  ['(', '1:2: parse error: unclosed left parenthesis'],
  ['1 and 1', '1:1: parse error: set operator "and" not allowed in binary scalar expression'],
  ['1 == 1', '1:3: parse error: comparisons between scalars must use BOOL modifier'],
  ['1 !~ 1', "1:3: parse error: unexpected character after '!': '~'"],
  ['1 =~ 1', "1:3: parse error: unexpected character after '=': '~'"],
  [
    '-"string"',
    '1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "string"',
  ],
  [
    '-test[5m]',
    '1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "range vector"',
  ],
  ['*test', '1:1: parse error: unexpected <op:*>'],
  ['@@', '1:1: parse error: unexpected <op:@>'],
  [
    '1 offset 1d',
    '1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery',
  ],
  ['foo offset 1s offset 2s', '1:1: parse error: offset may not be set multiple times'],
  ['a - on(b) ignoring(c) d', '1:11: parse error: unexpected <ignoring>'],
  ['foo and 1', '1:1: parse error: set operator "and" not allowed in binary scalar expression'],
  ['foo == on(bar) 10', '1:1: parse error: vector matching only allowed between instant vectors'],
  ['foo + bool bar', '1:5: parse error: bool modifier can only be used on comparison operators'],
  ['foo and bool 10', '1:5: parse error: bool modifier can only be used on comparison operators'],
  [
    'foo and on(bar) group_left(baz) bar',
    '1:1: parse error: no grouping allowed for "and" operation',
  ],
  [
    'foo or on(bar) group_right(baz) bar',
    '1:1: parse error: no grouping allowed for "or" operation',
  ],
  [
    'http_requests{group="production"} + on(instance) group_left(job,instance) cpu_count{type="smp"}',
    '1:35: parse error: label "instance" must not occur in ON and GROUP clause at once',
  ],
  ['{', '1:2: parse error: unexpected end of input inside braces'],
  ['}', "1:1: parse error: unexpected character: '}'"],
  ['some{', '1:6: parse error: unexpected end of input inside braces'],
  ['some}', "1:5: parse error: unexpected character: '}'"],
  ['foo{a="b"', '1:10: parse error: unexpected end of input inside braces'],
  [
    'some_metric{a=b}',
    '1:15: parse error: unexpected identifier "b" in label matching, expected string',
  ],
  ['some_metric{a:b="b"}', "1:14: parse error: unexpected character inside braces: ':'"],
  ['foo{a*"b"}', "1:6: parse error: unexpected character inside braces: '*'"],
  ['foo{a>="b"}', "1:6: parse error: unexpected character inside braces: '>'"],
  [
    'foo{gibberish}',
    '1:14: parse error: unexpected "}" in label matching, expected label matching operator',
  ],
  ['foo{1}', "1:5: parse error: unexpected character inside braces: '1'"],
  ['foo{__name__= =}', '1:15: parse error: unexpected "=" in label matching, expected string'],
  ['foo{,}', '1:5: parse error: unexpected "," in label matching, expected identifier or "}"'],
  [
    'foo{__name__ == "bar"}',
    '1:15: parse error: unexpected "=" in label matching, expected string',
  ],
  [
    'foo{__name__="bar" lol}',
    '1:20: parse error: unexpected identifier "lol" in label matching, expected "," or "}"',
  ],
  ['foo{"a"=}', '1:9: parse error: unexpected "}" in label matching, expected string'],
  ['foo{a=~"("}', '1:5: parse error: error parsing regexp: missing closing ): `^(?s:()$`'],
  ['{}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['{x=""}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['{x=~".*"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['{x!~".+"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['{x!="a"}', '1:1: parse error: vector selector must contain at least one non-empty matcher'],
  ['foo{__name__="bar"}', '1:1: parse error: metric name must not be set twice: "foo" or "bar"'],
  ['foo[5mm]', '1:5: parse error: bad number or duration syntax: "5mm"'],
  ['foo[5m1]', '1:5: parse error: bad number or duration syntax: "5m1"'],
  ['foo[5m:1m1]', '1:8: parse error: bad number or duration syntax: "1m1"'],
  ['foo[5y1hs]', '1:5: parse error: unknown unit "hs" in duration "5y1hs"'],
  ['foo[5m1h]', '1:5: parse error: not a valid duration string: "5m1h"'],
  ['foo[5m1m]', '1:5: parse error: not a valid duration string: "5m1m"'],
  ['foo[0m]', '1:5: parse error: duration must be greater than 0'],
  ['foo[-1]', '1:5: parse error: duration must be greater than 0'],
  ['foo["5m"]', "1:5: parse error: unexpected character in duration expression: '\"'"],
  ['foo[5m', '1:7: parse error: unclosed left bracket'],
  ['foo[', '1:5: parse error: unexpected end of input in duration expression'],
  [
    'foo[]',
    '1:5: parse error: unexpected "]" in subquery or range selector, expected number, duration, step(), or range()',
  ],
  [
    'foo[5m 6m]',
    '1:8: parse error: unexpected duration "6m" in subquery or range, expected ":" or "]"',
  ],
  ['foo[5m:1m:1m]', "1:10: parse error: unexpected colon ':'"],
  ['some_metric[5m] OFFSET 1mm', '1:24: parse error: bad number or duration syntax: "1mm"'],
  [
    'some_metric[5m] OFFSET',
    '1:23: parse error: unexpected end of input in offset, expected number, duration, step(), or range()',
  ],
  ['some_metric OFFSET 1m[5m]', '1:22: parse error: no offset modifiers allowed before range'],
  ['some_metric[5m] @', '1:18: parse error: unexpected end of input in @, expected timestamp'],
  ['some_metric @ 1234 [5m]', '1:20: parse error: no @ modifiers allowed before range'],
  ['some_metric @ start() [5m]', '1:23: parse error: no @ modifiers allowed before range'],
  ['(foo + bar)[5m]', '1:12: parse error: ranges only allowed for vector selectors'],
  ['foo[5m][5m]', '1:8: parse error: ranges only allowed for vector selectors'],
  ['foo[5m] offset 1m [5m]', '1:19: parse error: ranges only allowed for vector selectors'],
  ['foo @ start', '1:12: parse error: unexpected end of input in @, expected timestamp'],
  ['foo @ 1 @ 2', '1:1: parse error: @ <timestamp> may not be set multiple times'],
  ['foo @ +Inf', '1:1: parse error: timestamp out of bounds for @ modifier: +Inf'],
  ['foo @ NaN', '1:1: parse error: timestamp out of bounds for @ modifier: NaN'],
  [
    'foo @ 9223372036854775808.000000',
    '1:1: parse error: timestamp out of bounds for @ modifier: 9223372036854775808.000000',
  ],
  [
    'sum(1) @ 1',
    '1:1: parse error: @ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
  ],
  ['sum(foo bar)', '1:9: parse error: unexpected identifier "bar" in aggregation'],
  [
    'sum by foo (bar)',
    '1:8: parse error: unexpected identifier "foo" in grouping opts, expected "("',
  ],
  [
    'sum by (foo bar) (baz)',
    '1:13: parse error: unexpected identifier "bar" in grouping opts, expected "," or ")"',
  ],
  ['sum by (1) (baz)', '1:9: parse error: unexpected number "1" in grouping opts, expected label'],
  [
    'sum without(==)(some_metric)',
    '1:13: parse error: unexpected <op:==> in grouping opts, expected label',
  ],
  [
    'sum without(,)(some_metric)',
    '1:13: parse error: unexpected "," in grouping opts, expected label',
  ],
  [
    'sum without(foo,,)(some_metric)',
    '1:17: parse error: unexpected "," in grouping opts, expected label',
  ],
  ['sum some_metric by (test)', '1:5: parse error: unexpected identifier "some_metric"'],
  [
    'sum (some_metric) by test',
    '1:22: parse error: unexpected identifier "test" in grouping opts, expected "("',
  ],
  ['sum () by (test)', '1:1: parse error: no arguments for aggregate expression provided'],
  ['MIN keep_common (some_metric)', '1:5: parse error: unexpected identifier "keep_common"'],
  ['MIN (some_metric) keep_common', '1:19: parse error: unexpected identifier "keep_common"'],
  ['sum (some_metric) without (test) by (test)', '1:34: parse error: unexpected <by>'],
  ['sum without (test) (some_metric) by (test)', '1:34: parse error: unexpected <by>'],
  ['sum by ("foo)(some_metric{})', '1:9: parse error: unterminated quoted string'],
  ['sum()', '1:1: parse error: no arguments for aggregate expression provided'],
  [
    'topk(some_metric)',
    '1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1',
  ],
  [
    'topk("5", some_metric)',
    '1:6: parse error: expected type scalar in aggregation parameter, got string',
  ],
  [
    'count_values(5, other_metric)',
    '1:14: parse error: expected type string in aggregation parameter, got scalar',
  ],
  [
    'sum(some_metric[5m])',
    '1:5: parse error: expected type instant vector in aggregation expression, got range vector',
  ],
  [
    'non_existent_function_far_bar()',
    '1:1: parse error: unknown function with name "non_existent_function_far_bar"',
  ],
  [
    'rate(some_metric)',
    '1:6: parse error: expected type range vector in call to function "rate", got instant vector',
  ],
  ['floor()', '1:1: parse error: expected 1 argument(s) in call to "floor", got 0'],
  [
    'floor(some_metric, other_metric)',
    '1:1: parse error: expected 1 argument(s) in call to "floor", got 2',
  ],
  [
    'label_replace(a, b, c)',
    '1:1: parse error: expected 5 argument(s) in call to "label_replace", got 3',
  ],
  [
    'label_join(a, b)',
    '1:1: parse error: expected at least 3 argument(s) in call to "label_join", got 2',
  ],
  ['round(a, 1, 2)', '1:1: parse error: expected at most 2 argument(s) in call to "round", got 3'],
  ['rate(foo[5m],)', '1:13: parse error: trailing commas not allowed in function call args'],
  [
    'rate(foo[5m])[5m:1m] offset 1m offset 2m',
    '1:1: parse error: offset may not be set multiple times',
  ],
  ['"foo', '1:1: parse error: unterminated quoted string'],
  ['`foo', '1:1: parse error: unterminated raw string'],
  ['"\\q"', "1:1: parse error: unknown escape sequence U+0071 'q'"],
  ['"\\xZZ"', "1:1: parse error: illegal character U+005A 'Z' in escape sequence"],
  ['"\\uD800"', '1:1: parse error: escape sequence is an invalid Unicode code point'],
  ['foo\n  +\n  ', '3:3: parse error: unexpected end of input'],
  ['foo[5m+1m]', '1:5: parse error: experimental duration expression is not enabled'],
  ['sum(', '1:5: parse error: unclosed left parenthesis'],
  ['sum(rate(', '1:10: parse error: unclosed left parenthesis'],
  ['foo[5s x 5s]', "1:8: parse error: unexpected character: 'x', expected ':'"],
  ['foo[5s s 5s]', "1:8: parse error: unexpected character: 's', expected ':'"],
  ['foo offset 9.5e10', '1:12: parse error: duration out of range'],
  ['foo[9.5e10]', '1:5: parse error: duration out of range'],
  [
    'foo[step]',
    '1:9: parse error: unexpected "]" in subquery or range selector, expected number, duration, step(), or range()',
  ],
  ['1[5m] smoothed', '1:2: parse error: ranges only allowed for vector selectors'],
  [
    'test[5d] OFFSET 10s [10m:5s]',
    '1:1: parse error: subquery is only allowed on instant vector, got matrix instead',
  ],
  ['rate(food[1m])[1h] offset 1h', '1:15: parse error: ranges only allowed for vector selectors'],
  ['topk(some_metric,)', '1:17: parse error: trailing commas not allowed in function call args'],
  [
    'topk(some_metric, other_metric)',
    '1:6: parse error: expected type scalar in aggregation parameter, got instant vector',
  ],
  [
    'rate(some_metric[5m]) @ 1234',
    '1:1: parse error: @ modifier must be preceded by an instant vector selector or range vector selector or a subquery',
  ],
  [
    'floor(1)',
    '1:7: parse error: expected type instant vector in call to function "floor", got scalar',
  ],
  [
    'hour(some_metric, some_metric, some_metric)',
    '1:1: parse error: expected at most 1 argument(s) in call to "hour", got 3',
  ],
  ['time(some_metric)', '1:1: parse error: expected 0 argument(s) in call to "time", got 1'],
  ['-=', '1:2: parse error: unexpected "="'],
  ['++-++-+-+-<', '1:11: parse error: unexpected <op:<>'],
  ['e-+=/(0)', '1:4: parse error: unexpected "="'],
  ['a>b()', '1:3: parse error: unknown function with name "b"'],
  [
    'rate(avg)',
    '1:6: parse error: expected type range vector in call to function "rate", got instant vector',
  ],
  ['`\\``', '1:4: parse error: unterminated raw string'],
  ['"\\', '1:1: parse error: escape sequence not terminated'],
  ['"\\x."', "1:1: parse error: illegal character U+002E '.' in escape sequence"],
  ['foo{bar="baz"}[', '1:16: parse error: unexpected end of input in duration expression'],
  [
    'info(rate(http_request_counter_total{}[5m]), target_info{foo="bar"})',
    '1:46: parse error: expected label selectors only, got vector selector instead',
  ],
  [
    'info(http_request_counter_total{namespace="zzz"}, {foo="bar"} == 1)',
    '1:51: parse error: expected label selectors only',
  ],
  ['foo offset (5m*2)', '1:13: parse error: experimental duration expression is not enabled'],
  [
    'foo offset step()',
    '1:12: parse error: duration expression step() is not supported (promql-duration-expr)',
  ],
  ['foo anchored', '1:1: parse error: anchored modifier is experimental and not enabled'],
  ['foo + fill(0) bar', '1:1: parse error: binop fill modifiers are experimental and not enabled'],
  ['foo >/ 2', '1:5: parse error: histogram trim operator >/ is not supported (native histograms)'],
  [
    '9'.repeat(309),
    `1:1: parse error: error parsing number: strconv.ParseFloat: parsing "${'9'.repeat(309)}": value out of range`,
  ],
];

describe('parseExpr', () => {
  for (const [input, want] of VALID) {
    it(`parses ${JSON.stringify(input)}`, () => {
      expect(plain(parseExpr(input))).toEqual(plain(want));
    });
  }
  for (const [input, message] of INVALID) {
    it(`rejects ${JSON.stringify(input.slice(0, 60))}`, () => {
      let err: unknown;
      try {
        parseExpr(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ParseError);
      expect((err as ParseError).message).toBe(message);
      expect((err as ParseError).errorType).toBe('bad_data');
      expect((err as ParseError).query).toBe(input);
    });
  }

  it('rejects experimental functions and aggregations when they are disabled', () => {
    const off = { enableExperimentalFunctions: false };
    expect(() => parseExpr('sort_by_label(foo, "a")', off)).toThrow(
      '1:1: parse error: function "sort_by_label" is not enabled',
    );
    expect(() => parseExpr('limitk(1, foo)', off)).toThrow(
      '1:1: parse error: limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions',
    );
    expect(parseExpr('limitk(1, foo)').type).toBe('AggregateExpr');
  });

  it('keeps every error and the position of the first', () => {
    let err: ParseError | undefined;
    try {
      parseExpr('foo[5m1h]');
    } catch (e) {
      err = e as ParseError;
    }
    expect(err?.positionRange).toEqual({ start: 4, end: 8 });
    expect(err?.errors.map((e) => e.message)).toEqual([
      'not a valid duration string: "5m1h"',
      'duration must be greater than 0',
    ]);
  });

  it('checks long operator chains without deep recursion (parse_test.go regression)', () => {
    const q = '(' + '-{}-1'.repeat(10000) + ')' + '[1m:]'.repeat(1000);
    let err: ParseError | undefined;
    try {
      parseExpr(q);
    } catch (e) {
      err = e as ParseError;
    }
    expect(err?.errors.length).toBe(10999);
    expect(err?.errors[0]).toEqual({
      positionRange: { start: 2, end: 4 },
      message: 'vector selector must contain at least one non-empty matcher',
    });
    expect(err?.errors[10000]).toEqual({
      positionRange: { start: 0, end: 50012 },
      message: 'subquery is only allowed on instant vector, got matrix instead',
    });
  });

  it('counts columns in bytes like Prometheus', () => {
    expect(() => parseExpr('{a="é"} +')).toThrow('1:11: parse error: unexpected end of input');
  });
});

describe('parseMetricSelector', () => {
  it('returns the matchers with the name matcher last', () => {
    expect(plain(parseMetricSelector('up{job="a"}'))).toEqual(['job="a"', '__name__="up"']);
    expect(plain(parseMetricSelector('{}'))).toEqual([]);
  });
  it('reports Prometheus errors', () => {
    expect(() => parseMetricSelector('up[5m]')).toThrow('1:3: parse error: unexpected "["');
    expect(() => parseMetricSelector('')).toThrow(
      'unknown position: parse error: unexpected end of input',
    );
    expect(() => parseMetricSelector('{a=}')).toThrow(
      '1:4: parse error: unexpected "}" in label matching, expected string',
    );
  });
});
