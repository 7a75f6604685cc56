import { describe, expect, it } from 'vitest';
import { Labels } from '../labels.js';
import { TextParseError, type TextEntry } from './entries.js';
import { parseOpenMetrics, parseOpenMetricsStream } from './openmetrics_parser.js';

/** Entries with labels printed, so expectations read like the input. */
function plain(entries: Iterable<TextEntry>): unknown[] {
  const out: unknown[] = [];
  for (const e of entries) {
    if (e.kind !== 'series') {
      out.push(e);
      continue;
    }
    const row: Record<string, unknown> = { ...e, labels: e.labels.toString() };
    if (e.exemplar !== undefined)
      row['exemplar'] = { ...e.exemplar, labels: e.exemplar.labels.toString() };
    out.push(row);
  }
  return out;
}

function parseError(input: string | Uint8Array): TextParseError {
  try {
    for (const entry of parseOpenMetrics(input)) void entry;
  } catch (err) {
    if (err instanceof TextParseError) return err;
    throw err;
  }
  throw new Error(`no error for ${JSON.stringify(input)}`);
}

describe('parseOpenMetrics: constructs', () => {
  it('parses metadata and every family type with their sample suffixes', () => {
    const input = [
      '# TYPE requests counter',
      '# HELP requests Requests \\"served\\" \\\\ so far\\n.',
      '# UNIT requests_seconds seconds',
      'requests_total{code="200"} 10 1.5',
      'requests_created{code="200"} 1600000000 1.5',
      '# TYPE temp gauge',
      'temp -3.25',
      '# TYPE lat histogram',
      'lat_bucket{le="0.5"} 1',
      'lat_bucket{le="+Inf"} 2',
      'lat_count 2',
      'lat_sum 0.75',
      '# TYPE q summary',
      'q{quantile="0.9"} 3',
      'q_count 4',
      '# TYPE build info',
      'build_info{version="1.2"} 1',
      '# TYPE state stateset',
      'state{state="on"} 1',
      '# TYPE queue gaugehistogram',
      'queue_bucket{le="+Inf"} 3',
      'queue_gcount 3',
      'queue_gsum 7',
      '# TYPE other unknown',
      'other 1',
      'stray_total 1',
      '# EOF',
      '',
    ].join('\n');
    const got = plain(parseOpenMetrics(input));
    expect(got.slice(0, 5)).toEqual([
      { kind: 'type', line: 1, metric: 'requests', type: 'counter' },
      { kind: 'help', line: 2, metric: 'requests', help: 'Requests "served" \\ so far\n.' },
      { kind: 'unit', line: 3, metric: 'requests_seconds', unit: 'seconds' },
      {
        kind: 'series',
        line: 4,
        labels: '{__name__="requests_total", code="200"}',
        value: 10,
        timestamp: 1500,
        metricType: 'counter',
      },
      {
        kind: 'series',
        line: 5,
        labels: '{__name__="requests_created", code="200"}',
        value: 1600000000,
        timestamp: 1500,
        metricType: 'counter',
      },
    ]);
    const types = got
      .filter(
        (e): e is { kind: 'series'; labels: string; metricType: string } =>
          (e as TextEntry).kind === 'series',
      )
      .map((e) => [e.labels, e.metricType]);
    expect(types.slice(2)).toEqual([
      ['{__name__="temp"}', 'gauge'],
      ['{__name__="lat_bucket", le="0.5"}', 'histogram'],
      ['{__name__="lat_bucket", le="+Inf"}', 'histogram'],
      ['{__name__="lat_count"}', 'histogram'],
      ['{__name__="lat_sum"}', 'histogram'],
      ['{__name__="q", quantile="0.9"}', 'summary'],
      ['{__name__="q_count"}', 'summary'],
      ['{__name__="build_info", version="1.2"}', 'info'],
      ['{__name__="state", state="on"}', 'stateset'],
      ['{__name__="queue_bucket", le="+Inf"}', 'gaugehistogram'],
      ['{__name__="queue_gcount"}', 'gaugehistogram'],
      ['{__name__="queue_gsum"}', 'gaugehistogram'],
      ['{__name__="other"}', 'unknown'],
      ['{__name__="stray_total"}', 'unknown'],
    ]);
  });

  it.each([
    ['NaN', NaN],
    ['nan', NaN],
    ['+Inf', Infinity],
    ['-Inf', -Infinity],
    ['inf', Infinity],
    ['-infinity', -Infinity],
    ['1e3', 1000],
    ['-0', -0],
    ['.5', 0.5],
    ['5.', 5],
    ['1e-400', 0],
    ['0.1', 0.1],
  ])('parses the value %s', (text, value) => {
    const [entry] = [...parseOpenMetrics(`m ${text}\n# EOF\n`)];
    expect(entry?.kind === 'series' && entry.value).toBe(value);
  });

  it.each([
    ['1', 1000],
    ['1.5', 1500],
    ['1.005', 1004], // 1.005 * 1000 = 1004.9999999999999, truncated like Prometheus
    ['0.001', 1],
    ['-1.5', -1500],
    ['-0.0001', 0],
    ['1700000000.123', 1700000000123],
    ['1e3', 1000000],
    ['0', 0],
  ])('converts the timestamp %s s to %d ms', (text, ms) => {
    const [entry] = [...parseOpenMetrics(`m 1 ${text}\n# EOF\n`)];
    expect(entry?.kind === 'series' && entry.timestamp).toBe(ms);
  });

  it('unescapes label values and keeps unknown escapes literally', () => {
    const [entry] = [...parseOpenMetrics('m{a="x\\\\y\\"z\\n",b="\\t"} 1\n# EOF\n')];
    expect(entry?.kind === 'series' && entry.labels.toObject()).toEqual({
      __name__: 'm',
      a: 'x\\y"z\n',
      b: '\\t',
    });
  });

  it('reads quoted UTF-8 metric and label names (Prometheus 3)', () => {
    const got = plain(
      parseOpenMetrics(
        '{"my.metric","label.name"="v",plain="w"} 2\n# TYPE "my.metric" gauge\n# EOF\n',
      ),
    );
    expect(got[0]).toMatchObject({
      labels: '{__name__="my.metric", "label.name"="v", plain="w"}',
      value: 2,
    });
    expect(got[1]).toEqual({ kind: 'type', line: 2, metric: 'my.metric', type: 'gauge' });
  });

  it('reads exemplars with and without timestamp', () => {
    const got = plain(
      parseOpenMetrics(
        'a_total 1 2 # {trace_id="abc"} 0.5 1.25\nb_bucket{le="1"} 3 # {x="y",z=""} +Inf\n# EOF',
      ),
    );
    expect(got).toEqual([
      {
        kind: 'series',
        line: 1,
        labels: '{__name__="a_total"}',
        value: 1,
        timestamp: 2000,
        exemplar: { labels: '{trace_id="abc"}', value: 0.5, timestamp: 1250 },
        metricType: 'unknown',
      },
      {
        kind: 'series',
        line: 2,
        labels: '{__name__="b_bucket", le="1"}',
        value: 3,
        exemplar: { labels: '{x="y", z=""}', value: Infinity },
        metricType: 'unknown',
      },
    ]);
  });

  it('accepts empty label sets, empty help and a trailing comma', () => {
    const got = plain(parseOpenMetrics('# HELP m \nm{} 1\nn{a="b",} 2\n# EOF\n'));
    expect(got).toMatchObject([
      { kind: 'help', metric: 'm', help: '' },
      { labels: '{__name__="m"}' },
      { labels: '{__name__="n", a="b"}' },
    ]);
  });

  it('streams byte chunks split anywhere, including inside a UTF-8 character', async () => {
    const text = 'm{a="ünïcødé ✓"} 1 1\nm{a="b"} 2 2\n# EOF\n';
    const bytes = new TextEncoder().encode(text);
    const expected = plain(parseOpenMetrics(text));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = [bytes.slice(0, cut), bytes.slice(cut)];
      expect(plain(parseOpenMetrics(chunks))).toEqual(expected);
    }
    async function* stream(): AsyncGenerator<Uint8Array> {
      for (const b of bytes) yield await Promise.resolve(Uint8Array.of(b));
    }
    const streamed: TextEntry[] = [];
    for await (const e of parseOpenMetricsStream(stream())) streamed.push(e);
    expect(plain(streamed)).toEqual(expected);
  });

  it('yields entries before the end of the input is reached', () => {
    function* chunks(): Generator<string> {
      yield 'a 1\n';
      throw new Error('source read too far');
    }
    const it = parseOpenMetrics(chunks());
    const first = it.next();
    expect(first.value).toMatchObject({
      kind: 'series',
      labels: Labels.fromStrings('__name__', 'a'),
    });
  });
});

describe('parseOpenMetrics: errors', () => {
  it.each([
    ['', 1, 'data does not end with # EOF'],
    ['a 1\n', 2, 'data does not end with # EOF'],
    ['a 1', 1, 'data does not end with # EOF'],
    ['a_total 1 # {aa="bb"} 4', 1, 'data does not end with # EOF'],
    ['# EOF\n\n', 2, 'unexpected data after # EOF'],
    ['# EOF\na 1\n', 2, 'unexpected data after # EOF'],
    ['\n# EOF\n', 1, 'expected a valid start token, got "\\n"'],
    [' a 1\n# EOF\n', 1, 'expected a valid start token, got " "'],
    ['9\n# EOF\n', 1, 'expected a valid start token, got "9"'],
    ['# foo\n# EOF\n', 1, 'expected a valid start token'],
    ['#  TYPE c counter\n# EOF\n', 1, 'expected a valid start token'],
    ['a\n# EOF\n', 1, 'expected value after metric, got end of line'],
    ['a  1\n# EOF\n', 1, 'expected value after metric, got " "'],
    ['a{b="c"}  1 1\n# EOF\n', 1, 'expected value after metric'],
    ['a 1 1 \n# EOF\n', 1, 'expected next entry after timestamp'],
    ['a 1 1 2\n# EOF\n', 1, 'expected next entry after timestamp, got " "'],
    ['# TYPE u untyped\n# EOF\n', 1, 'invalid metric type "untyped"'],
    ['# TYPE c counter \n# EOF\n', 1, 'invalid metric type "counter "'],
    ['# TYPE c\n# EOF\n', 1, 'expected text in TYPE'],
    ['# HELP m\n# EOF\n', 1, 'expected text in HELP'],
    ['# UNIT \n# EOF\n', 1, 'expected metric name after UNIT'],
    ['# UNIT metric suffix\n# EOF\n', 1, 'unit "suffix" not a suffix of metric "metric"'],
    [
      '# UNIT metricsuffix suffix\n# EOF\n',
      1,
      'unit "suffix" not a suffix of metric "metricsuffix"',
    ],
    ['# UNIT m suffix\n# EOF\n', 1, 'unit "suffix" not a suffix of metric "m"'],
    ['{a="b"} 1\n# EOF\n', 1, 'metric name not set'],
    ["a{b='c'} 1\n# EOF\n", 1, 'expected label value'],
    ['a{b="c"d="e"} 1\n# EOF\n', 1, 'expected comma or brace close'],
    ['a{b="c",,d="e"} 1\n# EOF\n', 1, 'expected label name, got ","'],
    ['a{=""} 1\n# EOF\n', 1, 'expected label name, got "="'],
    ['a{b=\n# EOF\n', 1, 'expected label value, got end of line'],
    ['a{b="c} 1\n# EOF\n', 1, 'unterminated string'],
    ['a{b:c="d"} 1\n# EOF\n', 1, 'expected equal'],
    ['a{b="1",b="2"} 1\n# EOF\n', 1, 'duplicate label name "b"'],
    ['{"a","b"} 1\n# EOF\n', 1, 'metric name already set'],
    ['a{"b"} 1\n# EOF\n', 1, 'metric name already set'],
    ['a true\n# EOF\n', 1, 'strconv.ParseFloat: parsing "true": invalid syntax'],
    ['a 1_2\n# EOF\n', 1, 'unsupported character in float'],
    ['a 0x1p-3\n# EOF\n', 1, 'unsupported character in float'],
    ['a 0x10\n# EOF\n', 1, 'invalid syntax'],
    ['a +nan\n# EOF\n', 1, 'invalid syntax'],
    ['a Infinity1\n# EOF\n', 1, 'invalid syntax'],
    ['a 1e400\n# EOF\n', 1, 'strconv.ParseFloat: parsing "1e400": value out of range'],
    ['a 1 1_2\n# EOF\n', 1, 'unsupported character in float'],
    ['a 1 NaN\n# EOF\n', 1, 'invalid timestamp NaN'],
    ['a 1 -Inf\n# EOF\n', 1, 'invalid timestamp -Inf'],
    ['a 1 1e300\n# EOF\n', 1, 'timestamp 1e300 out of range'],
    ['a_total 1 # {aa="bb"}\n# EOF\n', 1, 'expected value after exemplar labels, got end of line'],
    ['a_total 1 # {aa="bb"} 1 1 1\n# EOF\n', 1, 'expected next entry after exemplar timestamp'],
    ['a_total 1 # {aa="bb",,cc="dd"} 1\n# EOF\n', 1, 'expected label name, got ","'],
    ['a_total 1 # {aa="bb"} true\n# EOF\n', 1, 'invalid syntax'],
    ['a_total 1 # {aa="bb",cc=}\n# EOF\n', 1, 'expected label value, got "}"'],
    ['a_total 1 # {"x"} 1\n# EOF\n', 1, 'expected equal'],
    ['a_bucket{le="1"} 1 # {a="b"} 1 Inf\n# EOF\n', 1, 'invalid exemplar timestamp +Inf'],
    ['a 1 1 # {x="y"} 1 1\n# EOF\n', 1, 'metric name a does not support exemplars'],
    ['a_count 1 # {x="y"} 1\n# EOF\n', 1, 'metric name a_count does not support exemplars'],
  ])('rejects %j at line %d: %s', (input, line, message) => {
    const err = parseError(input);
    expect(err.line).toBe(line);
    expect(err.message).toContain(message);
    expect(err.message.startsWith(`line ${line}: `)).toBe(true);
  });

  it('rejects invalid UTF-8 and names its line', () => {
    const bytes = Uint8Array.of(
      ...new TextEncoder().encode('a 1\nb{c="'),
      0xff,
      ...new TextEncoder().encode('"} 1\n# EOF\n'),
    );
    const err = parseError(bytes);
    expect(err.line).toBe(2);
    expect(err.message).toContain('invalid UTF-8');
  });
});
