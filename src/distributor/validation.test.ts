import { describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../runtime/index.js';
import { discardedMetrics } from './discarded_metrics.js';
import { DEFAULT_DISTRIBUTOR_LIMITS, type DistributorLimits } from './limits.js';
import { SeriesLabelsCache } from './series_labels_cache.js';
import { validateLabels, validateWriteRequest } from './validation.js';
import { formatLabelSet, formatMetric } from './validation_messages.js';
import type { WriteRequestData } from './write_request.js';
import { buildWriteRequest, type PlainSeries } from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';
import { encodeWriteRequest } from './write_request_encode.js';

const limits: DistributorLimits = {
  ...DEFAULT_DISTRIBUTOR_LIMITS,
  maxLabelNamesPerSeries: 3,
  maxLabelNameLength: 10,
  maxLabelValueLength: 12,
  rejectOldSamples: true,
  rejectOldSamplesMaxAgeMs: 3_600_000,
  creationGracePeriodMs: 600_000,
};

const NOW = 1_700_000_000_000;

function errorFor(labels: [string, string][], l: DistributorLimits = limits): string | undefined {
  return validateLabels(l, labels.flat(), false)?.message;
}

describe('validateLabels (Cortex messages)', () => {
  it('requires a valid metric name', () => {
    expect(errorFor([['job', 'a']])).toBe('sample missing metric name');
    expect(errorFor([['__name__', 'a-b']])).toBe('sample invalid metric name: "a-b"');
    expect(errorFor([['job', 'a']], { ...limits, enforceMetricName: false })).toBeUndefined();
  });

  it('limits labels per series, naming actual and limit', () => {
    expect(
      errorFor([
        ['__name__', 'm'],
        ['a', '1'],
        ['b', '2'],
        ['c', '3'],
      ]),
    ).toBe(`series has too many labels (actual: 4, limit: 3) series: 'm{a="1", b="2", c="3"}'`);
  });

  it('rejects invalid, too long, duplicate and unsorted label names', () => {
    expect(
      errorFor([
        ['__name__', 'm'],
        ['a-b', '1'],
      ]),
    ).toBe('sample invalid label: "a-b" metric "m{a-b=\\"1\\"}"');
    expect(
      errorFor([
        ['__name__', 'm'],
        ['abcdefghijk', '1'],
      ]),
    ).toBe(
      'label name too long for metric (actual: 11, limit: 10) metric: "m{abcdefghijk=\\"1\\"}" label name: "abcdefghijk"',
    );
    expect(
      errorFor([
        ['__name__', 'm'],
        ['a', 'ééééééé'],
      ]),
    ).toBe(
      'label value too long for metric (actual: 14, limit: 12) metric: "m{a=\\"ééééééé\\"}" label name: "a" label value: "ééééééé"',
    );
    expect(
      errorFor([
        ['__name__', 'm'],
        ['a', '1'],
        ['a', '2'],
      ]),
    ).toBe('duplicate label name: "a" metric "m{a=\\"1\\", a=\\"2\\"}"');
    expect(
      errorFor([
        ['__name__', 'm'],
        ['b', '1'],
        ['a', '2'],
      ]),
    ).toBe('labels not sorted: "a" metric "m{b=\\"1\\", a=\\"2\\"}"');
    expect(validateLabels(limits, ['__name__', 'm', 'a-b', '1'], true)).toBeUndefined();
  });

  it('formats label sets as Cortex does', () => {
    expect(formatLabelSet([])).toBe('{}');
    expect(formatLabelSet(['__name__', 'up'])).toBe('up');
    expect(formatLabelSet(['__name__', '', 'a', 'x"y'])).toBe('{__name__="", a="x\\"y"}');
    expect(formatMetric(['b', '1', '__name__', 'm', 'a', '2'])).toBe('m{a="2", b="1"}');
    expect(formatMetric([])).toBe('{}');
  });
});

describe('validateWriteRequest', () => {
  const series = (name: string, ts: number[], extra: [string, string][] = []): PlainSeries => ({
    labels: [['__name__', name], ...extra],
    samples: ts.map((timestamp) => ({ value: 1, timestamp })),
  });

  it('keeps valid series, drops invalid ones, reports the first error and counts discards', async () => {
    const registry = newMetricsRegistry();
    const metrics = discardedMetrics(registry);
    const req = buildWriteRequest({
      series: [
        series('ok', [NOW, NOW - 1000]),
        series('old', [NOW - 3_600_001]),
        series('future', [NOW + 600_001, NOW]),
        { labels: [['job', 'x']], samples: [{ value: 1, timestamp: NOW }] },
        series('ok2', [NOW]),
      ],
      metadata: [
        { type: 1, metricFamilyName: 'ok', help: 'h', unit: '' },
        { type: 1, metricFamilyName: '', help: 'h', unit: '' },
      ],
    });
    const out = validateWriteRequest(limits, 'tenant-1', req, NOW, metrics);
    expect(out.series).toEqual([0, 4]);
    expect(out.samples).toBe(3);
    expect(out.metadata).toEqual([0]);
    expect(out.firstError?.status).toBe(400);
    expect(out.firstError?.message).toBe(`timestamp too old: ${NOW - 3_600_001} metric: "old"`);
    const text = await registry.metrics();
    expect(text).toContain(
      'cortex_discarded_samples_total{reason="greater_than_max_sample_age",user="tenant-1"} 1',
    );
    expect(text).toContain(
      'cortex_discarded_samples_total{reason="too_far_in_future",user="tenant-1"} 2',
    );
    expect(text).toContain(
      'cortex_discarded_samples_total{reason="missing_metric_name",user="tenant-1"} 1',
    );
    expect(text).toContain(
      'cortex_discarded_metadata_total{reason="missing_metric_name",user="tenant-1"} 1',
    );
  });

  it('accepts old samples unless reject_old_samples is set', () => {
    const metrics = discardedMetrics(newMetricsRegistry());
    const req = buildWriteRequest({ series: [series('m', [0])] });
    expect(
      validateWriteRequest({ ...limits, rejectOldSamples: false }, 't', req, NOW, metrics).series,
    ).toEqual([0]);
    expect(validateWriteRequest(limits, 't', req, NOW, metrics).series).toEqual([]);
  });

  it('drops native histograms with a count and no error', async () => {
    const registry = newMetricsRegistry();
    const h = {
      sum: 1,
      schema: 0,
      zeroThreshold: 0,
      negativeSpans: [],
      negativeDeltas: [],
      negativeCounts: [],
      positiveSpans: [],
      positiveDeltas: [],
      positiveCounts: [],
      resetHint: 0,
      timestamp: NOW,
      customValues: [],
    };
    const req = buildWriteRequest({ series: [{ ...series('m', [NOW]), histograms: [h, h] }] });
    const out = validateWriteRequest(limits, 't', req, NOW, discardedMetrics(registry));
    expect(out).toMatchObject({
      series: [0],
      samples: 1,
      droppedHistograms: 2,
      firstError: undefined,
    });
    expect(await registry.metrics()).toContain(
      'cortex_discarded_samples_total{reason="native-histogram-sample",user="t"} 2',
    );
  });

  it('rejects a series with an invalid exemplar', () => {
    const metrics = discardedMetrics(newMetricsRegistry());
    const req = buildWriteRequest({
      series: [{ ...series('m', [NOW]), exemplars: [{ labels: [], value: 1, timestamp: NOW }] }],
    });
    const out = validateWriteRequest(limits, 't', req, NOW, metrics);
    expect(out.series).toEqual([]);
    expect(out.firstError?.message).toBe(
      `exemplar missing labels, timestamp: ${NOW} series: {__name__="m"} labels: {}`,
    );
  });

  it('shares the discard counters between two users of one registry', () => {
    const registry = newMetricsRegistry();
    expect(discardedMetrics(registry).samples).toBe(discardedMetrics(registry).samples);
  });
});

describe('validateWriteRequest with a SeriesLabelsCache', () => {
  const ok = (labels: [string, string][]): PlainSeries => ({
    labels,
    samples: [{ value: 1, timestamp: NOW }],
  });

  /** Decodes `series` through `cache`, as the push path does (series carry their entry). */
  const decoded = (cache: SeriesLabelsCache, series: PlainSeries[]): WriteRequestData =>
    decodeWriteRequest(encodeWriteRequest(buildWriteRequest({ series })), cache);

  it('skips label checks of an array that passed under the same limits, not under others', () => {
    const metrics = discardedMetrics(newMetricsRegistry());
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    const series = [
      ok([
        ['__name__', 'm'],
        ['job', 'abcdef'],
      ]),
    ];
    const req = decoded(cache, series);
    const entry = req.series[0]?.cached;
    expect(entry?.flat).toBe(req.series[0]?.labels);
    expect(validateWriteRequest(limits, 't', req, NOW, metrics, cache).series).toEqual([0]);
    const rules = cache.rulesFor(limits, false);
    expect(entry?.validated).toBe(rules);
    // The same series in a later request, same limits (a new but equal object): on the mark.
    const again = decoded(cache, series);
    expect(again.series[0]?.cached).toBe(entry);
    expect(validateWriteRequest({ ...limits }, 't', again, NOW, metrics, cache).series).toEqual([
      0,
    ]);
    // Tighter limits (another tenant, or a runtime-config reload): checked again, refused.
    const tight = { ...limits, maxLabelValueLength: 3 };
    const out = validateWriteRequest(tight, 't', again, NOW, metrics, cache);
    expect(out.series).toEqual([]);
    expect(out.firstError?.reason).toBe('label_value_too_long');
    // skip_label_name_validation is part of the rules too.
    expect(cache.rulesFor(limits, true)).not.toBe(rules);
  });

  it('checks a series whose label array is no longer the one of its cache entry', () => {
    const metrics = discardedMetrics(newMetricsRegistry());
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    const req = decoded(cache, [ok([['__name__', 'm']])]);
    expect(validateWriteRequest(limits, 't', req, NOW, metrics, cache).series).toEqual([0]);
    const s = req.series[0];
    if (s === undefined) throw new Error('no series');
    s.labels = ['__name__', 'a-b'];
    const out = validateWriteRequest(limits, 't', req, NOW, metrics, cache);
    expect(out.firstError?.reason).toBe('metric_name_invalid');
  });

  it('never marks a refused array', () => {
    const metrics = discardedMetrics(newMetricsRegistry());
    const cache = new SeriesLabelsCache({ maxEntries: 8 });
    for (let i = 0; i < 2; i++) {
      const req = decoded(cache, [ok([['__name__', 'a-b']])]);
      const out = validateWriteRequest(limits, 't', req, NOW, metrics, cache);
      expect(out.firstError?.reason).toBe('metric_name_invalid');
      expect(req.series[0]?.cached?.validated).toBeUndefined();
    }
  });
});
