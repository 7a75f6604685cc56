// exprToString and prettify over trees built by the parser: tables after Prometheus's
// printer_test.go and prettier_test.go (which shrinks the line limit to 10 to exercise
// splitting), plus cases at the real 100-byte limit.
import { describe, expect, it } from 'vitest';
import { parseExpr } from '../parser/index.js';
import { exprToString, prettify } from './index.js';

describe('exprToString (Prometheus printer_test.go)', () => {
  it.each<[string, string?]>([
    ['sum by() (task:errors:rate10s{job="s"})', 'sum(task:errors:rate10s{job="s"})'],
    ['sum by(code) (task:errors:rate10s{job="s"})', 'sum by (code) (task:errors:rate10s{job="s"})'],
    [
      'sum without() (task:errors:rate10s{job="s"})',
      'sum without () (task:errors:rate10s{job="s"})',
    ],
    [
      'sum without(instance) (task:errors:rate10s{job="s"})',
      'sum without (instance) (task:errors:rate10s{job="s"})',
    ],
    [
      'sum by("foo.bar") (task:errors:rate10s{job="s"})',
      'sum by ("foo.bar") (task:errors:rate10s{job="s"})',
    ],
    [
      'sum without("foo.bar") (task:errors:rate10s{job="s"})',
      'sum without ("foo.bar") (task:errors:rate10s{job="s"})',
    ],
    ['SUM(foo) BY (job)', 'sum by (job) (foo)'],
    ['topk(5, task:errors:rate10s{job="s"})'],
    ['count_values("value", task:errors:rate10s{job="s"})'],
    ['limitk(2, foo)'],
    ['quantile without (a) (0.9, foo)'],
    ['a - on() c', 'a - on () c'],
    ['a - on(b) c', 'a - on (b) c'],
    ['a - on(b) group_left(x) c', 'a - on (b) group_left (x) c'],
    ['a - on(b) group_left(x, y) c', 'a - on (b) group_left (x, y) c'],
    ['a - on(b) group_left c', 'a - on (b) group_left () c'],
    ['a - on(b) group_left() (c)', 'a - on (b) group_left () (c)'],
    ['a - ignoring(b) c', 'a - ignoring (b) c'],
    ['a - ignoring() c', 'a - c'],
    ['a and ignoring() c', 'a and c'],
    ['a or on(x) c', 'a or on (x) c'],
    ['up > bool 0'],
    ['1 < bool 2'],
    ['a offset 1m'],
    ['a offset -7m'],
    ['a{c="d"}[5m] offset 1m'],
    ['a[5m] offset 1m'],
    ['a[12m] offset -3m'],
    ['a[1h:5m] offset 1m'],
    ['a[1h:] @ 3.000'],
    ['a[300]', 'a[5m]'],
    ['a[90m]', 'a[1h30m]'],
    ['a[7d]', 'a[1w]'],
    ['a[30d]', 'a[30d]'],
    ['{__name__="a"}'],
    ['a{b!="c"}[1m]'],
    ['a{b=~"c"}[1m]'],
    ['a{b!~"c"}[1m]'],
    ['a{z="1",a="2"}', 'a{a="2",z="1"}'],
    ['a @ 10', 'a @ 10.000'],
    ['a[1m] @ 10', 'a[1m] @ 10.000'],
    ['a @ start()'],
    ['a @ end()'],
    ['a[1m] @ start()'],
    ['a[1m] @ end()'],
    ['a offset 5m @ 10', 'a @ 10.000 offset 5m'],
    ['{__name__="",a="x"}'],
    ['{"a.b"="c"}'],
    ['{"0"="1"}'],
    ['{"_0"="1"}', '{_0="1"}'],
    ['{"my.metric", "a.b"="c"}', '{"a.b"="c",__name__="my.metric"}'],
    ['1048576'],
    ['1e6', '1000000'],
    ['0x1F', '31'],
    ['.5', '0.5'],
    ['-Inf'],
    ['+Inf', '+Inf'],
    ['nan', 'NaN'],
    ["'a\\'b'", '"a\'b"'],
    ['`a\\b`', '"a\\\\b"'],
    ['"\\u00e9\\x01"', '"é\\x01"'],
    ['-(1)'],
    // Prometheus's own defect, kept: this text parses back as +(Inf ^ 2).
    ['Inf ^ 2', '+Inf ^ 2'],
    ['- 1', '-1'],
    ['-a ^ 2'],
    ['(-a) ^ 2'],
    ['predict_linear(foo[1h], 3000)'],
    ['label_replace(up{job="api-server",service="a:c"}, "foo", "$1", "service", "(.*):.*")'],
    ['rate(foo[5m])[30m:1m] offset 1m'],
  ])('%s', (input, want) => {
    expect(exprToString(parseExpr(input))).toBe(want ?? input);
  });
});

describe('prettify (Prometheus prettier_test.go, 10 characters per line)', () => {
  const cases: [string, string][] = [
    // Aggregations.
    ['sum(foo)', 'sum(foo)'],
    ['sum by() (task:errors:rate10s{job="s"})', 'sum(\n  task:errors:rate10s{job="s"}\n)'],
    [
      'sum without(job,foo) (task:errors:rate10s{job="s"})',
      'sum without (job, foo) (\n  task:errors:rate10s{job="s"}\n)',
    ],
    [
      'sum(task:errors:rate10s{job="s"}) without(job,foo)',
      'sum without (job, foo) (\n  task:errors:rate10s{job="s"}\n)',
    ],
    ['topk(10, ask:errors:rate10s{job="s"})', 'topk(\n  10,\n  ask:errors:rate10s{job="s"}\n)'],
    [
      'sum by(job,foo) (sum by(job,foo) (task:errors:rate10s{job="s"}))',
      'sum by (job, foo) (\n  sum by (job, foo) (\n    task:errors:rate10s{job="s"}\n  )\n)',
    ],
    [
      'sum by(job,foo) # Comment 1.\n(sum by(job,foo) ( # Comment 2.\ntask:errors:rate10s{job="s"}))',
      'sum by (job, foo) (\n  sum by (job, foo) (\n    task:errors:rate10s{job="s"}\n  )\n)',
    ],
    // Binary expressions.
    ['a+b', 'a + b'],
    ['a == bool 1', '  a\n== bool\n  1'],
    ['a + ignoring(job) b', '  a\n+ ignoring (job)\n  b'],
    ['foo_1 + foo_2', '  foo_1\n+\n  foo_2'],
    ['foo_1 + foo_2 + foo_3', '    foo_1\n  +\n    foo_2\n+\n  foo_3'],
    ['foo + baar + foo_3', '  foo + baar\n+\n  foo_3'],
    [
      'foo_1 + ignoring(foo) foo_2 + ignoring(job) group_left foo_3 + on(instance) group_right foo_4',
      '      foo_1\n    + ignoring (foo)\n      foo_2\n  + ignoring (job) group_left ()\n    foo_3\n' +
        '+ on (instance) group_right ()\n  foo_4',
    ],
    // Calls.
    ['rate(foo[1m])', 'rate(\n  foo[1m]\n)'],
    [
      'rate(long_vector_selector[10m:1m] @ start() offset 1m)',
      'rate(\n  long_vector_selector[10m:1m] @ start() offset 1m\n)',
    ],
    [
      'histogram_quantile(0.9, rate(foo[1m]))',
      'histogram_quantile(\n  0.9,\n  rate(\n    foo[1m]\n  )\n)',
    ],
    [
      'max_over_time(rate(demo_api_request_duration_seconds_count[1m])[1m:] @ start() offset 1m)',
      'max_over_time(\n  rate(\n    demo_api_request_duration_seconds_count[1m]\n  )[1m:] @ start() offset 1m\n)',
    ],
    [
      'label_replace(up{job="api-server",service="a:c"}, "foo", "$1", "service", "(.*):.*")',
      'label_replace(\n  up{job="api-server",service="a:c"},\n  "foo",\n  "$1",\n  "service",\n  "(.*):.*"\n)',
    ],
    // Parens.
    ['(foo)', '(foo)'],
    ['(_foo_long_)', '(\n  _foo_long_\n)'],
    ['((foo_long))', '(\n  (foo_long)\n)'],
    ['((_foo_long_))', '(\n  (\n    _foo_long_\n  )\n)'],
    // Step-invariant-looking expressions print as parsed.
    ['a @ 1', 'a @ 1.000'],
    ['vector_selector @ start()', 'vector_selector @ start()'],
    // Mixed.
    ['(1 + 2)', '(1 + 2)'],
    ['(foo + bar)', '(\n  foo + bar\n)'],
    ['(foo_long + bar_long)', '(\n    foo_long\n  +\n    bar_long\n)'],
    [
      '((foo_long + bar_long) + bar_2_long)',
      '(\n    (\n        foo_long\n      +\n        bar_long\n    )\n  +\n    bar_2_long\n)',
    ],
    ['(1111 + 2222)', '(\n    1111\n  +\n    2222\n)'],
    [
      '(node_filesystem_avail_bytes{job="node",fstype!=""} / node_filesystem_size_bytes{job="node",fstype!=""} * 100 < 40 and ' +
        'predict_linear(node_filesystem_avail_bytes{job="node",fstype!=""}[6h], 24*60*60) < 0 and ' +
        'node_filesystem_readonly{job="node",fstype!=""} == 0)',
      [
        '(',
        '            node_filesystem_avail_bytes{fstype!="",job="node"}',
        '          /',
        '            node_filesystem_size_bytes{fstype!="",job="node"}',
        '        *',
        '          100',
        '      <',
        '        40',
        '    and',
        '        predict_linear(',
        '          node_filesystem_avail_bytes{fstype!="",job="node"}[6h],',
        '            24 * 60',
        '          *',
        '            60',
        '        )',
        '      <',
        '        0',
        '  and',
        '      node_filesystem_readonly{fstype!="",job="node"}',
        '    ==',
        '      0',
        ')',
      ].join('\n'),
    ],
    [
      '(node_timex_offset_seconds > 0.05 and deriv(node_timex_offset_seconds[5m]) >= 0) or ' +
        '(node_timex_offset_seconds < -0.05 and deriv(node_timex_offset_seconds[5m]) <= 0)',
      [
        '  (',
        '        node_timex_offset_seconds',
        '      >',
        '        0.05',
        '    and',
        '        deriv(',
        '          node_timex_offset_seconds[5m]',
        '        )',
        '      >=',
        '        0',
        '  )',
        'or',
        '  (',
        '        node_timex_offset_seconds',
        '      <',
        '        -0.05',
        '    and',
        '        deriv(',
        '          node_timex_offset_seconds[5m]',
        '        )',
        '      <=',
        '        0',
        '  )',
      ].join('\n'),
    ],
    [
      'min by (job, integration) (rate(alertmanager_notifications_failed_total{job="alertmanager", integration=~".*"}[5m]) / ' +
        'rate(alertmanager_notifications_total{job="alertmanager", integration="~.*"}[5m])) > 0.01',
      [
        '  min by (job, integration) (',
        '      rate(',
        '        alertmanager_notifications_failed_total{integration=~".*",job="alertmanager"}[5m]',
        '      )',
        '    /',
        '      rate(',
        '        alertmanager_notifications_total{integration="~.*",job="alertmanager"}[5m]',
        '      )',
        '  )',
        '>',
        '  0.01',
      ].join('\n'),
    ],
    [
      '(count by (job) (changes(process_start_time_seconds{job="alertmanager"}[10m]) > 4) / ' +
        'count by (job) (up{job="alertmanager"})) >= 0.5',
      [
        '  (',
        '      count by (job) (',
        '          changes(',
        '            process_start_time_seconds{job="alertmanager"}[10m]',
        '          )',
        '        >',
        '          4',
        '      )',
        '    /',
        '      count by (job) (',
        '        up{job="alertmanager"}',
        '      )',
        '  )',
        '>=',
        '  0.5',
      ].join('\n'),
    ],
    // Unary.
    ['-1', '-1'],
    ['-vector_selector', '-vector_selector'],
    ['(-vector_selector)', '(\n  -vector_selector\n)'],
    [
      '-histogram_quantile(0.9,rate(foo[1m]))',
      '-histogram_quantile(\n  0.9,\n  rate(\n    foo[1m]\n  )\n)',
    ],
    [
      '-histogram_quantile(0.99, sum by (le) (rate(foo[1m])))',
      '-histogram_quantile(\n  0.99,\n  sum by (le) (\n    rate(\n      foo[1m]\n    )\n  )\n)',
    ],
    [
      '(-histogram_quantile(0.9, -rate(foo[1m] @ start())))',
      '(\n  -histogram_quantile(\n    0.9,\n    -rate(\n      foo[1m] @ start()\n    )\n  )\n)',
    ],
  ];
  it.each(cases)('%s', (input, want) => {
    expect(prettify(parseExpr(input), { maxCharactersPerLine: 10 })).toBe(want);
  });
});

describe('prettify at the default 100 characters', () => {
  it('leaves a query of exactly 100 bytes on one line and splits one of 101', () => {
    const fits = `${'a'.repeat(50)} + ${'b'.repeat(47)}`;
    expect(fits).toHaveLength(100);
    expect(prettify(parseExpr(fits))).toBe(fits);
    const over = `${fits}c`;
    expect(prettify(parseExpr(over))).toBe(`  ${'a'.repeat(50)}\n+\n  ${'b'.repeat(47)}c`);
  });

  it('splits a binary expression but keeps a side of exactly 100 bytes on one line', () => {
    const input =
      'sum by (job) (rate(http_requests_total{job="api-server",instance="localhost:9090",code=~"5.."}[5m])) / ' +
      'sum by (job) (rate(http_requests_total{job="api-server"}[5m]))';
    expect(prettify(parseExpr(input))).toBe(
      [
        '  sum by (job) (rate(http_requests_total{code=~"5..",instance="localhost:9090",job="api-server"}[5m]))',
        '/',
        '  sum by (job) (rate(http_requests_total{job="api-server"}[5m]))',
      ].join('\n'),
    );
  });

  it('splits a side of 101 bytes and keeps its short children on one line', () => {
    const input =
      'sum by (job) (rate(http_requests_total{job="api-server",instance="localhost:90900",code=~"5.."}[5m])) / ' +
      'sum by (job) (rate(http_requests_total{job="api-server"}[5m]))';
    expect(prettify(parseExpr(input))).toBe(
      [
        '  sum by (job) (',
        '    rate(http_requests_total{code=~"5..",instance="localhost:90900",job="api-server"}[5m])',
        '  )',
        '/',
        '  sum by (job) (rate(http_requests_total{job="api-server"}[5m]))',
      ].join('\n'),
    );
  });

  it('prints a long selector on one indented line (selectors are never split)', () => {
    const input = `foo{${Array.from({ length: 12 }, (_, i) => `label_${i}="value_${i}"`).join(',')}}`;
    expect(prettify(parseExpr(input))).toBe(exprToString(parseExpr(input)));
    expect(prettify(parseExpr(`abs(${input})`))).toBe(
      `abs(\n  ${exprToString(parseExpr(input))}\n)`,
    );
  });
});

describe('numbers written as durations', () => {
  it.each([
    ['time() - 1h', 'time() - 1h'],
    ['-5m', '-5m'],
    ['time() - 3600', 'time() - 3600'],
    ['1h30m + 1', '1h30m + 1'],
  ])('%s prints as %s', (input, want) => {
    expect(exprToString(parseExpr(input))).toBe(want);
  });
});
