import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../labels.js';
import type { Exemplar, TextEntry } from './entries.js';
import { parseGoFloat, secondsToMillis } from './go_float.js';
import { parseOpenMetrics } from './openmetrics_parser.js';
import {
  formatOpenMetricsSample,
  formatOpenMetricsTimestamp,
  renderOpenMetrics,
  type OpenMetricsRenderable,
} from './openmetrics_render.js';
import { parsePrometheusText } from './prom_text_parser.js';

/**
 * 2^52 ms (year ~142,000): below it float seconds are fine-grained enough that every
 * millisecond has a seconds spelling; above, some milliseconds have none.
 */
const MAX_EXACT_MS = 2 ** 52;

describe('formatOpenMetricsTimestamp', () => {
  it.each([
    [0, '0'],
    [1000, '1'],
    [1500, '1.5'],
    [1, '0.001'],
    [-1500, '-1.5'],
    [1700000000123, '1700000000.123'],
  ])('prints %d ms as %s', (ms, text) => {
    expect(formatOpenMetricsTimestamp(ms)).toBe(text);
  });

  it('nudges values whose exact decimal Prometheus would truncate one millisecond short', () => {
    // 1.005 * 1000 === 1004.9999999999999 in float64.
    const text = formatOpenMetricsTimestamp(1005);
    expect(text).not.toBe('1.005');
    expect(secondsToMillis(Number(text))).toBe(1005);
  });

  it('always reads back to the same millisecond', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_EXACT_MS, max: MAX_EXACT_MS }), (ms) => {
        const seconds = parseGoFloat(formatOpenMetricsTimestamp(ms));
        expect(typeof seconds).toBe('number');
        expect(secondsToMillis(seconds as number)).toBe(ms);
      }),
      { numRuns: 2000 },
    );
  });

  it('rejects timestamps that are not safe integers or have no seconds spelling', () => {
    expect(() => formatOpenMetricsTimestamp(1.5)).toThrow(/1.5/);
    expect(() => formatOpenMetricsTimestamp(8998304473849397)).toThrow(/8998304473849397/);
  });
});

describe('formatOpenMetricsSample', () => {
  it('escapes values and quotes names outside the legacy character set', () => {
    const labels = Labels.fromStrings('__name__', 'a.b', 'x', 'q"\\\n', 'my label', 'v');
    expect(formatOpenMetricsSample(labels, NaN, 1500)).toBe(
      '{"a.b","my label"="v",x="q\\"\\\\\\n"} NaN 1.5\n',
    );
    expect(formatOpenMetricsSample(Labels.fromStrings('__name__', 'up'), -Infinity)).toBe(
      'up -Inf\n',
    );
    const exemplar: Exemplar = { labels: Labels.fromStrings('t', '1'), value: 2, timestamp: 3000 };
    expect(
      formatOpenMetricsSample(
        Labels.fromStrings('__name__', 'c_total', 'a', 'b'),
        1,
        undefined,
        exemplar,
      ),
    ).toBe('c_total{a="b"} 1 # {t="1"} 2 3\n');
  });

  it('renders metadata and the closing # EOF', () => {
    const text = [
      ...renderOpenMetrics([
        { kind: 'type', metric: 'm', type: 'counter' },
        { kind: 'help', metric: 'm', help: 'says "hi"' },
        { kind: 'unit', metric: 'm_seconds', unit: 'seconds' },
      ]),
    ].join('');
    expect(text).toBe(
      '# TYPE m counter\n# HELP m says \\"hi\\"\n# UNIT m_seconds seconds\n# EOF\n',
    );
    expect([...parseOpenMetrics(text)].map((e) => e.kind)).toEqual(['type', 'help', 'unit']);
  });
});

const legacyName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/);
const anyName = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 });
const labelName = fc.oneof(legacyName, anyName).filter((n) => n !== '__name__');
const labelValue = fc.string({ unit: 'binary', maxLength: 16 });
const metricName = fc.oneof(legacyName, anyName);
const labelSet = fc.uniqueArray(fc.tuple(labelName, labelValue), {
  maxLength: 5,
  selector: (p) => p[0],
});
const timestamp = fc.option(fc.integer({ min: -MAX_EXACT_MS, max: MAX_EXACT_MS }), {
  nil: undefined,
});
const exemplar = fc.record({
  labels: fc.uniqueArray(fc.tuple(legacyName, labelValue), { maxLength: 3, selector: (p) => p[0] }),
  value: fc.double(),
  timestamp,
});
const sample = fc.record({
  name: metricName,
  labels: labelSet,
  value: fc.double(),
  timestamp,
  exemplar: fc.option(exemplar, { nil: undefined }),
});

interface GeneratedSample {
  name: string;
  labels: [string, string][];
  value: number;
  timestamp: number | undefined;
  exemplar:
    { labels: [string, string][]; value: number; timestamp: number | undefined } | undefined;
}

function toEntry(s: GeneratedSample): OpenMetricsRenderable {
  // Prometheus accepts exemplars only on `_total` and `_bucket` samples.
  const name = s.exemplar === undefined ? s.name : s.name + '_total';
  const labels = Labels.fromPairs([...s.labels, ['__name__', name]]);
  let entry: OpenMetricsRenderable = { kind: 'series', labels, value: s.value };
  if (s.timestamp !== undefined) entry = { ...entry, timestamp: s.timestamp };
  if (s.exemplar !== undefined) {
    const e = s.exemplar;
    const ex: Exemplar =
      e.timestamp === undefined
        ? { labels: Labels.fromPairs(e.labels), value: e.value }
        : { labels: Labels.fromPairs(e.labels), value: e.value, timestamp: e.timestamp };
    entry = { ...entry, exemplar: ex };
  }
  return entry;
}

function comparable(e: OpenMetricsRenderable | TextEntry): unknown {
  if (e.kind !== 'series') return e;
  const ex = e.exemplar;
  return {
    labels: e.labels.toString(),
    // Object.is-based equality keeps NaN and -0 distinct from other values.
    value: e.value,
    timestamp: e.timestamp,
    exemplar:
      ex === undefined
        ? undefined
        : { labels: ex.labels.toString(), value: ex.value, timestamp: ex.timestamp },
  };
}

describe('render → parse round trip', () => {
  it('OpenMetrics text parses back to the same labels, values, timestamps and exemplars', () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 20 }), fc.nat(), (samples, cutSeed) => {
        const entries = samples.map(toEntry);
        const text = [...renderOpenMetrics(entries)].join('');
        const parsed = [...parseOpenMetrics(text)];
        expect(parsed.map(comparable)).toEqual(entries.map(comparable));
        // Same through bytes cut at an arbitrary point.
        const bytes = new TextEncoder().encode(text);
        const cut = cutSeed % (bytes.length + 1);
        const fromBytes = [...parseOpenMetrics([bytes.subarray(0, cut), bytes.subarray(cut)])];
        expect(fromBytes.map(comparable)).toEqual(entries.map(comparable));
      }),
      { numRuns: 300 },
    );
  });

  it('sample lines without timestamps and exemplars are also valid Prometheus text', () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 10 }), (samples) => {
        const entries = samples.map((s) =>
          toEntry({ ...s, timestamp: undefined, exemplar: undefined }),
        );
        const lines = [...renderOpenMetrics(entries)].slice(0, -1).join('');
        expect([...parsePrometheusText(lines)].map(comparable)).toEqual(entries.map(comparable));
      }),
      { numRuns: 200 },
    );
  });
});
