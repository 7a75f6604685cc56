// Sample accounting, checked against Prometheus 3's engine_test.go TestQueryStatistics and
// TestMaxQuerySamples (float cases; subqueries exclude their left bound): total samples, the peak, and that a limit one below the
// peak fails with the sample-limit error.
import { describe, expect, it } from 'vitest';
import { TooManySamplesError } from '../errors.js';
import { Engine } from './index.js';
import { load, series, TestStorage } from './test_helpers.js';

const S = 1000;

function statsStorage(): TestStorage {
  const st = new TestStorage();
  load(st, 10 * S, { __name__: 'metricWith1SampleEvery10Seconds' }, series(1, 1, 100));
  for (const [a, b] of [
    ['1', '1'],
    ['2', '2'],
    ['3', '2'],
  ] as const) {
    load(st, 10 * S, { __name__: 'metricWith3SampleEvery10Seconds', a, b }, series(1, 1, 100));
  }
  return st;
}

function maxStorage(): TestStorage {
  const st = new TestStorage();
  load(st, 10 * S, { __name__: 'metric' }, series(1, 1, 100));
  load(st, 10 * S, { __name__: 'bigmetric', a: '1' }, series(1, 1, 100));
  load(st, 10 * S, { __name__: 'bigmetric', a: '2' }, series(1, 1, 100));
  return st;
}

interface Case {
  q: string;
  start: number;
  end?: number;
  step?: number;
  total?: number;
  peak: number;
}

async function run(st: TestStorage, c: Case, maxSamples: number) {
  const engine = new Engine({ maxSamples }, {});
  return c.end === undefined
    ? engine.instantQuery(st, c.q, c.start * S)
    : engine.rangeQuery(st, c.q, c.start * S, c.end * S, (c.step ?? 1) * S);
}

const statistics: Case[] = [
  { q: '1', start: 21, total: 0, peak: 1 },
  { q: 'metricWith1SampleEvery10Seconds', start: 21, total: 1, peak: 1 },
  { q: 'timestamp(metricWith1SampleEvery10Seconds)', start: 21, total: 1, peak: 2 },
  { q: 'metricWith1SampleEvery10Seconds offset 10s', start: 21, total: 1, peak: 1 },
  { q: 'metricWith1SampleEvery10Seconds @ 15', start: 21, total: 1, peak: 1 },
  { q: 'metricWith3SampleEvery10Seconds{a="1"}[20s] @ 19', start: 21, total: 2, peak: 2 },
  { q: 'metricWith3SampleEvery10Seconds', start: 21, total: 3, peak: 3 },
  { q: 'metricWith1SampleEvery10Seconds[60s]', start: 201, total: 6, peak: 6 },
  {
    q: 'max_over_time(metricWith1SampleEvery10Seconds[60s])[20s:5s]',
    start: 201,
    total: 24,
    peak: 10,
  },
  {
    q: 'max_over_time(metricWith1SampleEvery10Seconds[61s])[20s:5s]',
    start: 201,
    total: 26,
    peak: 11,
  },
  { q: 'metricWith1SampleEvery10Seconds[60s] @ 30', start: 201, total: 4, peak: 4 },
  {
    q: 'sum(max_over_time(metricWith3SampleEvery10Seconds[60s] @ 30))',
    start: 201,
    total: 12,
    peak: 7,
  },
  { q: 'max_over_time(metricWith1SampleEvery10Seconds[60s])', start: 201, total: 6, peak: 7 },
  { q: 'absent_over_time(metricWith1SampleEvery10Seconds[60s])', start: 201, total: 6, peak: 7 },
  { q: 'max_over_time(metricWith3SampleEvery10Seconds[60s])', start: 201, total: 18, peak: 9 },
  { q: 'metricWith1SampleEvery10Seconds[60s:5s] offset 10s', start: 201, total: 12, peak: 12 },
  { q: 'max_over_time(metricWith3SampleEvery10Seconds[60s:5s])', start: 201, total: 36, peak: 51 },
  {
    q: 'sum(max_over_time(metricWith3SampleEvery10Seconds[60s:5s])) + sum(max_over_time(metricWith3SampleEvery10Seconds[60s:5s]))',
    start: 201,
    total: 72,
    peak: 52,
  },
  { q: 'metricWith3SampleEvery10Seconds{a="1"}', start: 201, end: 220, step: 5, total: 4, peak: 4 },
  {
    q: 'timestamp(metricWith1SampleEvery10Seconds)',
    start: 201,
    end: 220,
    step: 5,
    total: 4,
    peak: 5,
  },
  {
    q: 'max_over_time(metricWith3SampleEvery10Seconds{a="1"}[10s])',
    start: 991,
    end: 1021,
    step: 10,
    total: 2,
    peak: 2,
  },
  {
    q: 'max_over_time(metricWith3SampleEvery10Seconds[60s] @ 30)',
    start: 201,
    end: 220,
    step: 5,
    total: 48,
    peak: 12,
  },
  { q: 'metricWith3SampleEvery10Seconds', start: 201, end: 220, step: 5, total: 12, peak: 12 },
  {
    q: 'max_over_time(metricWith3SampleEvery10Seconds[60s])',
    start: 201,
    end: 220,
    step: 5,
    total: 72,
    peak: 18,
  },
  {
    q: 'max_over_time(metricWith3SampleEvery10Seconds[60s:5s])',
    start: 201,
    end: 220,
    step: 5,
    total: 144,
    peak: 72,
  },
  {
    q: 'max_over_time(metricWith1SampleEvery10Seconds[60s:5s])',
    start: 201,
    end: 220,
    step: 5,
    total: 48,
    peak: 32,
  },
];

const maxSamples: Case[] = [
  { q: '1', start: 1, peak: 1 },
  { q: 'metric', start: 1, peak: 1 },
  { q: 'metric[20s]', start: 10, peak: 2 },
  { q: 'rate(metric[20s])', start: 10, peak: 3 },
  { q: 'metric[20s:5s]', start: 10, peak: 3 },
  { q: 'metric[20s] @ 10', start: 0, peak: 2 },
  { q: '1', start: 0, end: 2, step: 1, peak: 3 },
  { q: 'metric', start: 0, end: 2, step: 1, peak: 3 },
  { q: 'metric', start: 0, end: 10, step: 5, peak: 3 },
  { q: 'rate(bigmetric[1s])', start: 0, end: 10, step: 5, peak: 1 },
  { q: 'metric @ 10', start: 0, end: 10, step: 5, peak: 3 },
  { q: 'rate(bigmetric[10s:1s] @ 10)', start: 0, end: 10, step: 5, peak: 32 },
  {
    q: 'rate(bigmetric[10s:1s] @ 10) + rate(bigmetric[10s:1s] @ 30)',
    start: 0,
    end: 10,
    step: 5,
    peak: 34,
  },
  {
    q: 'rate(bigmetric[10s:1s]) + rate(bigmetric[10s:1s] @ 30)',
    start: 10,
    end: 20,
    step: 5,
    peak: 56,
  },
  {
    q: 'rate(rate(bigmetric[10s:1s] @ 10)[100s:25s] @ 1000)[100s:20s] @ 2000',
    start: 10,
    peak: 32,
  },
  { q: 'rate(rate(bigmetric[10s:1s] @ 10)[100s:25s] @ 1000)[17s:1s] @ 2000', start: 10, peak: 34 },
];

describe('query statistics (TestQueryStatistics)', () => {
  for (const c of statistics) {
    it(`${c.q} ${c.end === undefined ? 'instant' : 'range'} @${c.start}`, async () => {
      const r = await run(statsStorage(), c, 10_000);
      expect({ total: r.stats.totalQueryableSamples, peak: r.stats.peakSamples }).toEqual({
        total: c.total,
        peak: c.peak,
      });
      await expect(run(statsStorage(), c, c.peak - 1)).rejects.toBeInstanceOf(TooManySamplesError);
    });
  }
});

describe('sample limit (TestMaxQuerySamples)', () => {
  for (const c of maxSamples) {
    it(`${c.q} ${c.end === undefined ? 'instant' : 'range'} @${c.start}`, async () => {
      const r = await run(maxStorage(), c, c.peak);
      expect(r.stats.peakSamples).toBe(c.peak);
      await expect(run(maxStorage(), c, c.peak - 1)).rejects.toBeInstanceOf(TooManySamplesError);
    });
  }
});
