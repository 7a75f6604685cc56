// exprToJSON over trees built by the parser, checked against what Prometheus's
// web/api/v1/translate_ast.go produces for the same queries.
import { describe, expect, it } from 'vitest';
import { parseExpr } from '../parser/index.js';
import { exprToJSON } from './index.js';

describe('exprToJSON (Prometheus translate_ast.go)', () => {
  const vs = (
    name: string,
    extra: Record<string, unknown> = {},
    matchers: unknown[] = [],
  ): unknown => ({
    anchored: false,
    matchers: [...matchers, { name: '__name__', type: '=', value: name }],
    name,
    offset: 0,
    smoothed: false,
    startOrEnd: null,
    timestamp: null,
    type: 'vectorSelector',
    ...extra,
  });

  it.each<[string, unknown]>([
    [
      'sum by (job) (rate(http_requests_total{job="api"}[5m] offset 1m))',
      {
        expr: {
          args: [
            {
              anchored: false,
              matchers: [
                { name: 'job', type: '=', value: 'api' },
                { name: '__name__', type: '=', value: 'http_requests_total' },
              ],
              name: 'http_requests_total',
              offset: 60000,
              range: 300000,
              smoothed: false,
              startOrEnd: null,
              timestamp: null,
              type: 'matrixSelector',
            },
          ],
          func: { argTypes: ['matrix'], name: 'rate', returnType: 'vector', variadic: 0 },
          type: 'call',
        },
        grouping: ['job'],
        op: 'sum',
        param: null,
        type: 'aggregation',
        without: false,
      },
    ],
    [
      'foo @ 100.5 > bool on (a) group_left (b) bar',
      {
        bool: true,
        lhs: vs('foo', { timestamp: 100500 }),
        matching: {
          card: 'many-to-one',
          fillValues: { lhs: null, rhs: null },
          include: ['b'],
          labels: ['a'],
          on: true,
        },
        op: '>',
        rhs: vs('bar'),
        type: 'binaryExpr',
      },
    ],
    [
      'foo and bar',
      {
        bool: false,
        lhs: vs('foo'),
        matching: {
          card: 'many-to-many',
          fillValues: { lhs: null, rhs: null },
          include: [],
          labels: [],
          on: false,
        },
        op: 'and',
        rhs: vs('bar'),
        type: 'binaryExpr',
      },
    ],
    [
      '1 - -foo',
      {
        bool: false,
        lhs: { type: 'numberLiteral', val: '1' },
        matching: null,
        op: '-',
        rhs: { expr: vs('foo'), op: '-', type: 'unaryExpr' },
        type: 'binaryExpr',
      },
    ],
    [
      'topk(3, max_over_time(foo[1h:5m] offset -1m @ end()))',
      {
        expr: {
          args: [
            {
              alignEvalTime: false,
              expr: vs('foo'),
              offset: -60000,
              range: 3600000,
              startOrEnd: 'end',
              step: 300000,
              timestamp: null,
              type: 'subquery',
            },
          ],
          func: { argTypes: ['matrix'], name: 'max_over_time', returnType: 'vector', variadic: 0 },
          type: 'call',
        },
        grouping: [],
        op: 'topk',
        param: { type: 'numberLiteral', val: '3' },
        type: 'aggregation',
        without: false,
      },
    ],
    [
      '(count_values without (x) ("v", up{a=~"b.*"} @ start()))',
      {
        expr: {
          expr: vs('up', { startOrEnd: 'start' }, [{ name: 'a', type: '=~', value: 'b.*' }]),
          grouping: ['x'],
          op: 'count_values',
          param: { type: 'stringLiteral', val: 'v' },
          type: 'aggregation',
          without: true,
        },
        type: 'parenExpr',
      },
    ],
    [
      'label_join(up, "d", ",", "a", "b")',
      {
        args: [
          vs('up'),
          { type: 'stringLiteral', val: 'd' },
          { type: 'stringLiteral', val: ',' },
          { type: 'stringLiteral', val: 'a' },
          { type: 'stringLiteral', val: 'b' },
        ],
        func: {
          argTypes: ['vector', 'string', 'string', 'string'],
          name: 'label_join',
          returnType: 'vector',
          variadic: -1,
        },
        type: 'call',
      },
    ],
    [
      'time()',
      {
        args: [],
        func: { argTypes: [], name: 'time', returnType: 'scalar', variadic: 0 },
        type: 'call',
      },
    ],
    [
      '{"my.metric", "a.b"!="c"}',
      {
        anchored: false,
        matchers: [
          { name: '__name__', type: '=', value: 'my.metric' },
          { name: 'a.b', type: '!=', value: 'c' },
        ],
        name: '',
        offset: 0,
        smoothed: false,
        startOrEnd: null,
        timestamp: null,
        type: 'vectorSelector',
      },
    ],
    [
      '1e300 ^ 2',
      {
        bool: false,
        lhs: { type: 'numberLiteral', val: `1${'0'.repeat(300)}` },
        matching: null,
        op: '^',
        rhs: { type: 'numberLiteral', val: '2' },
        type: 'binaryExpr',
      },
    ],
  ])('%s', (input, want) => {
    const tree = exprToJSON(parseExpr(input));
    expect(tree).toEqual(want);
    // Keys come out sorted, as Go's encoder writes them.
    JSON.stringify(tree, (_key, value: unknown) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const keys = Object.keys(value);
        expect(keys).toEqual([...keys].sort());
      }
      return value;
    });
  });
});
