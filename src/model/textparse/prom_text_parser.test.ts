import { describe, expect, it } from 'vitest';
import { TextParseError, type TextEntry } from './entries.js';
import { parsePrometheusText, parsePrometheusTextStream } from './prom_text_parser.js';

function plain(entries: Iterable<TextEntry>): unknown[] {
  return [...entries].map((e) => (e.kind === 'series' ? { ...e, labels: e.labels.toString() } : e));
}

function parseError(input: string): TextParseError {
  try {
    for (const entry of parsePrometheusText(input)) void entry;
  } catch (err) {
    if (err instanceof TextParseError) return err;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(input)}`);
}

describe('parsePrometheusText', () => {
  it('parses a typical /metrics page', () => {
    const input = [
      '# HELP go_goroutines Number of goroutines \\\\ that \\"currently\\" exist.\\nSecond line.',
      '# TYPE go_goroutines gauge',
      'go_goroutines 33  \t123123',
      '',
      '  # a free comment',
      '#no-space comment',
      '# TYPE http_requests counter',
      'http_requests { method = "post" , code="200", } 1027 1395066363000',
      'http_requests{method="get",code="400"} 3 -5',
      '# TYPE rpc summary',
      'rpc{quantile="0.5"} 4773',
      'rpc_sum 1.7560473e+07',
      'rpc_count 2693',
      '# TYPE h histogram',
      'h_bucket{le="+Inf"} 7',
      'untyped_metric NaN',
      '{"my.metric", "a.b"="c"} -Inf',
      'last 1',
    ].join('\n');
    expect(plain(parsePrometheusText(input))).toEqual([
      {
        kind: 'help',
        line: 1,
        metric: 'go_goroutines',
        help: 'Number of goroutines \\ that \\"currently\\" exist.\nSecond line.',
      },
      { kind: 'type', line: 2, metric: 'go_goroutines', type: 'gauge' },
      {
        kind: 'series',
        line: 3,
        labels: '{__name__="go_goroutines"}',
        value: 33,
        timestamp: 123123,
        metricType: 'gauge',
      },
      { kind: 'comment', line: 5, text: 'a free comment' },
      { kind: 'comment', line: 6, text: 'no-space comment' },
      { kind: 'type', line: 7, metric: 'http_requests', type: 'counter' },
      {
        kind: 'series',
        line: 8,
        labels: '{__name__="http_requests", code="200", method="post"}',
        value: 1027,
        timestamp: 1395066363000,
        metricType: 'counter',
      },
      {
        kind: 'series',
        line: 9,
        labels: '{__name__="http_requests", code="400", method="get"}',
        value: 3,
        timestamp: -5,
        metricType: 'counter',
      },
      { kind: 'type', line: 10, metric: 'rpc', type: 'summary' },
      {
        kind: 'series',
        line: 11,
        labels: '{__name__="rpc", quantile="0.5"}',
        value: 4773,
        metricType: 'summary',
      },
      {
        kind: 'series',
        line: 12,
        labels: '{__name__="rpc_sum"}',
        value: 17560473,
        metricType: 'summary',
      },
      {
        kind: 'series',
        line: 13,
        labels: '{__name__="rpc_count"}',
        value: 2693,
        metricType: 'summary',
      },
      { kind: 'type', line: 14, metric: 'h', type: 'histogram' },
      {
        kind: 'series',
        line: 15,
        labels: '{__name__="h_bucket", le="+Inf"}',
        value: 7,
        metricType: 'histogram',
      },
      {
        kind: 'series',
        line: 16,
        labels: '{__name__="untyped_metric"}',
        value: NaN,
        metricType: 'unknown',
      },
      {
        kind: 'series',
        line: 17,
        labels: '{__name__="my.metric", "a.b"="c"}',
        value: -Infinity,
        metricType: 'unknown',
      },
      { kind: 'series', line: 18, labels: '{__name__="last"}', value: 1, metricType: 'unknown' },
    ]);
  });

  it('accepts untyped and does not require # EOF', () => {
    expect(plain(parsePrometheusText('# TYPE u untyped\nu 1\n'))).toEqual([
      { kind: 'type', line: 1, metric: 'u', type: 'untyped' },
      { kind: 'series', line: 2, labels: '{__name__="u"}', value: 1, metricType: 'untyped' },
    ]);
  });

  it('gives a HELP without text an empty help', () => {
    expect(plain(parsePrometheusText('# HELP a\t\n# HELP b\n'))).toEqual([
      { kind: 'help', line: 1, metric: 'a', help: '' },
      { kind: 'help', line: 2, metric: 'b', help: '' },
    ]);
  });

  it('streams chunks', async () => {
    const text = 'a{b="c"} 1 2\n# HELP a x\nd 4\n';
    async function* stream(): AsyncGenerator<string> {
      for (const ch of text) yield await Promise.resolve(ch);
    }
    const got: TextEntry[] = [];
    for await (const e of parsePrometheusTextStream(stream())) got.push(e);
    expect(plain(got)).toEqual(plain(parsePrometheusText(text)));
    expect(got).toHaveLength(3);
  });

  it.each([
    ['a\n', 1, 'expected value after metric, got end of line'],
    ['a{b="c"}\n', 1, 'expected value after metric'],
    ['a 1 1.5\n', 1, 'expected timestamp or new record, got "1.5"'],
    ['a 1 2 3\n', 1, 'expected next entry after timestamp, got "3"'],
    ['a 1 99999999999999999999\n', 1, 'timestamp 99999999999999999999 out of range'],
    ['a x\n', 1, 'strconv.ParseFloat: parsing "x": invalid syntax'],
    ['9 1\n', 1, 'expected a valid start token, got "9"'],
    ['a{b="c",,} 1\n', 1, 'expected label name, got ","'],
    ['a{b} 1\n', 1, 'expected equal, got "}"'],
    ['a{b=c} 1\n', 1, 'expected label value, got "c"'],
    ['a{b="1",b="2"} 1\n', 1, 'duplicate label name "b"'],
    ['ok 1\n# TYPE a foo\n', 2, 'invalid metric type "foo"'],
    ['# TYPE a\n', 1, 'invalid metric type ""'],
    ['# HELP \n', 1, 'expected metric name after HELP'],
    ['# TYPE 9 gauge\n', 1, 'expected metric name after TYPE'],
  ])('rejects %j at line %d: %s', (input, line, message) => {
    const err = parseError(input);
    expect(err.line).toBe(line);
    expect(err.message).toContain(message);
  });
});
