import { describe, expect, it } from 'vitest';
import { parseSeriesSelector, SelectorParseError } from './selector.js';

const show = (s: string): string[] => parseSeriesSelector(s).map((m) => m.toString());

describe('parseSeriesSelector', () => {
  it('parses a bare metric name', () => {
    expect(show('up')).toEqual(['__name__="up"']);
    expect(show('  node:cpu_seconds:rate5m ')).toEqual(['__name__="node:cpu_seconds:rate5m"']);
  });

  it('parses every operator, in the order written', () => {
    expect(show('{a="b", c!="d", e=~"x.*", f!~"y|z"}')).toEqual([
      'a="b"',
      'c!="d"',
      'e=~"x.*"',
      'f!~"y|z"',
    ]);
  });

  it('parses a metric name with matchers and a trailing comma', () => {
    expect(show('http_requests_total{job="api",}')).toEqual([
      '__name__="http_requests_total"',
      'job="api"',
    ]);
  });

  it('accepts single quotes, backticks and Go escapes', () => {
    const ms = parseSeriesSelector(
      `{__name__=~'(?s:.*)', a="x\\"y\\n\\u00e9\\x41\\101", b=\`\\d+\`}`,
    );
    expect(ms.map((m) => m.value)).toEqual(['(?s:.*)', 'x"y\néAA', '\\d+']);
  });

  it('matches like Prometheus (anchored RE2)', () => {
    const [m] = parseSeriesSelector('{job=~"no.e"}');
    expect(m?.matches('node')).toBe(true);
    expect(m?.matches('nodes')).toBe(false);
  });

  it('accepts what promtool accepts: empty selectors and empty-matching matchers', () => {
    expect(show('{}')).toEqual([]);
    expect(show('{a=~".*"}')).toEqual(['a=~".*"']);
    expect(show('a{__name__="b"}')).toEqual(['__name__="a"', '__name__="b"']);
  });

  it('names the position of syntax errors', () => {
    expect(() => parseSeriesSelector('{a="b" c="d"}')).toThrow(/position 8: expected "," or "}"/);
    expect(() => parseSeriesSelector('{a=="b"}')).toThrow(/position 4: expected a quoted string/);
    expect(() => parseSeriesSelector('{a="b}')).toThrow(/unterminated string/);
    expect(() => parseSeriesSelector('{1a="b"}')).toThrow(/expected label name/);
    expect(() => parseSeriesSelector('up extra')).toThrow(/unexpected "extra"/);
    expect(() => parseSeriesSelector('{a="\\q"}')).toThrow(/unknown escape sequence \\q/);
  });

  it('rejects invalid regexes', () => {
    expect(() => parseSeriesSelector('{a=(')).toThrow(SelectorParseError);
    expect(() => parseSeriesSelector('{a=~"("}')).toThrow(/invalid matcher/);
  });
});
