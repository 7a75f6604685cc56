// The query benchmark (issue 14): its options, the answer comparison, the table arithmetic on
// made-up numbers, the data's shape, and one tiny end-to-end run. The end-to-end run is
// against Prometheus 3 when its binary is in the services cache; without it (no Go on this
// machine) the run is Strata only (`--query-no-prometheus`: the vectorised engine's answers
// checked against the default engine's) and a separate case checks that the bench names the
// command that builds Prometheus 3. Never asserts on timings.
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBenchArgs, runBenchCommand } from './index.js';
import { ensureStrataBuilt } from './remote_write_targets.js';
import {
  PROMETHEUS3_MODULE,
  prometheus3Binary,
  prometheus3BuildCommand,
  prometheusVersion,
} from './query_bench.js';
import { nodeSeries, sampleValue, seriesLabels } from './query_bench_data.js';
import {
  QUERIES,
  compareAnswers,
  isOrdered,
  medianOf,
  parseAnswer,
  relativeDifference,
  type Answer,
} from './query_bench_queries.js';
import {
  geometricMean,
  queryBenchFailed,
  ratio,
  scaleTable,
  type QueryBenchResult,
  type QueryRow,
} from './query_bench_table.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runBenchCommand(argv, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
  });
  return { code, out, err };
}

const vector = (series: [Record<string, string>, string][]): Answer =>
  parseAnswer(
    200,
    JSON.stringify({
      status: 'success',
      data: {
        resultType: 'vector',
        result: series.map(([metric, v]) => ({ metric, value: [100, v] })),
      },
    }),
  );

const matrix = (series: [Record<string, string>, [number, string][]][]): Answer =>
  parseAnswer(
    200,
    JSON.stringify({
      status: 'success',
      data: {
        resultType: 'matrix',
        result: series.map(([metric, values]) => ({ metric, values })),
      },
    }),
  );

describe('query bench options', () => {
  it('parses the query flags; defaults as issue 14 asks', () => {
    const o = parseBenchArgs([
      '--only=query',
      '--query-series=300,4000',
      '--query-runs=3',
      '--query-cpu-prof=/tmp/prof',
      '--query-no-stall',
      '--query-stall-seconds=7',
      '--query-stall-samples=123',
      '--query-no-prometheus',
    ]);
    expect([...o.only]).toEqual(['query']);
    expect(o.query).toEqual({
      scales: [300, 4000],
      runs: 3,
      stall: false,
      stallSeconds: 7,
      stallClients: 2,
      stallSamples: 123,
      prometheus: false,
      strata: { nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] },
    });
    const full = parseBenchArgs([]).query;
    expect(full).toMatchObject({
      scales: [10_000, 100_000],
      runs: 5,
      stall: true,
      stallSeconds: 20,
      stallSamples: 10_000_000,
      prometheus: true,
      strata: { nodeArgs: [] },
    });
    expect(parseBenchArgs(['--quick']).query.scales).toEqual([1_000]);
    expect(() => parseBenchArgs(['--query-series=10,x'])).toThrow('"x"');
    expect(() => parseBenchArgs(['--query-cpu-prof='])).toThrow('expected a directory');
  });

  it('builds Prometheus 3 from its Go module into the services cache', () => {
    expect(PROMETHEUS3_MODULE).toBe('github.com/prometheus/prometheus/cmd/prometheus@v0.316.0');
    expect(prometheus3Binary()).toMatch(/\/prometheus$/);
    expect(prometheus3BuildCommand()).toBe(
      `GOBIN=${prometheus3Binary().replace(/\/prometheus$/, '')} go install ${PROMETHEUS3_MODULE}`,
    );
  });

  it('reads the release from --version, else from the Go module version of a go install build', () => {
    const none = (): string => '';
    expect(prometheusVersion('prometheus, version 3.5.0 (branch: HEAD, revision: abc)', none)).toBe(
      '3.5.0',
    );
    expect(prometheusVersion('prometheus, version 2.42.0+ds (branch: debian)', none)).toBe(
      '2.42.0+ds',
    );
    const goVersionM = (): string =>
      '/x/prometheus: go1.26.8\n\tpath\tgithub.com/prometheus/prometheus/cmd/prometheus\n\tmod\tgithub.com/prometheus/prometheus\tv0.316.0\th1:f1GR=\n';
    expect(
      prometheusVersion('prometheus, version  (branch: , revision: unknown)', goVersionM),
    ).toBe('3.16.0');
    expect(prometheusVersion('prometheus, version  (branch: , revision: unknown)', none)).toBe(
      undefined,
    );
  });
});

describe('query bench data and queries', () => {
  it('every series has a metric name and nine labels; 60% are node_ series', () => {
    for (const s of [0, 99, 100, 250, 499]) expect(seriesLabels(s)).toHaveLength(10);
    const names = new Set(Array.from({ length: 1000 }, (_, s) => seriesLabels(s).join()));
    expect(names.size).toBe(1000);
    expect(nodeSeries(1000)).toBe(600);
    expect(seriesLabels(0)[0]).toEqual(['__name__', 'node_cpu_seconds_total']);
    // Counters only grow; gauges stay near their level.
    expect(sampleValue(0, 1)).toBeGreaterThan(sampleValue(0, 0));
    expect(QUERIES.length).toBeGreaterThanOrEqual(12);
    expect(QUERIES.filter(isOrdered).map((q) => q.name)).toEqual([
      'topk(max_over_time)',
      'sort_desc(sum by (job))',
    ]);
  });
});

describe('query bench answer comparison', () => {
  const a = { job: 'node', instance: 'a' };
  const b = { job: 'node', instance: 'b' };

  it('equal answers, a reordered vector, float summation noise', () => {
    const want = vector([
      [a, '1.5'],
      [b, '2'],
    ]);
    expect(compareAnswers(want, want, false)).toEqual({
      equal: true,
      maxRelative: 0,
      reason: undefined,
    });
    const reordered = vector([
      [b, '2'],
      [a, '1.5'],
    ]);
    expect(compareAnswers(want, reordered, false).equal).toBe(true);
    // topk and sort keep order.
    expect(compareAnswers(want, reordered, true).reason).toBe('order differs from position 1');
    const noisy = vector([
      [a, '1.5000000000000002'],
      [b, '2'],
    ]);
    const c = compareAnswers(want, noisy, false);
    expect(c.equal).toBe(true);
    expect(c.maxRelative).toBeGreaterThan(0);
    expect(c.maxRelative).toBeLessThan(1e-15);
  });

  it('a different value, different series, different timestamps, NaN equals NaN', () => {
    const want = matrix([
      [
        a,
        [
          [1, '1'],
          [2, 'NaN'],
        ],
      ],
    ]);
    expect(
      compareAnswers(
        want,
        matrix([
          [
            a,
            [
              [1, '1'],
              [2, 'NaN'],
            ],
          ],
        ]),
        false,
      ).equal,
    ).toBe(true);
    const changed = compareAnswers(
      want,
      matrix([
        [
          a,
          [
            [1, '1.001'],
            [2, 'NaN'],
          ],
        ],
      ]),
      false,
    );
    expect(changed.equal).toBe(false);
    expect(changed.reason).toBe(
      '1 values differ (max rel. 1.0e-3, e.g. {instance="a", job="node"} @1: 1.001, want 1)',
    );
    const other = compareAnswers(want, matrix([[b, [[1, '1']]]]), false);
    expect(other.reason).toBe(
      '1 series missing (e.g. {instance="a", job="node"}); 1 extra series (e.g. {instance="b", job="node"})',
    );
    const shifted = compareAnswers(want, matrix([[a, [[1, '1']]]]), false);
    expect(shifted.reason).toMatch(/^timestamps differ in 1 series/);
    expect(compareAnswers(want, vector([[a, '1']]), false).reason).toBe(
      'result type vector, want matrix',
    );
    expect(relativeDifference('NaN', 'NaN')).toBe(0);
    expect(relativeDifference('+Inf', '+Inf')).toBe(0);
    expect(relativeDifference('+Inf', '1')).toBe(Infinity);
    expect(() => parseAnswer(422, '{"status":"error","error":"too many samples"}')).toThrow(
      'query failed (422)',
    );
  });
});

describe('query bench tables', () => {
  const row = (name: string, d: number, v: number, p: number, equal = true): QueryRow => ({
    query: { name, expr: `sum(${name})`, kind: 'range' },
    series: 2,
    points: 42,
    timings: {
      default: { medianMs: d, error: undefined },
      vectorised: { medianMs: v, error: undefined },
      prometheus: { medianMs: p, error: undefined },
    },
    compared: {
      default: { equal: true, maxRelative: 0, reason: undefined },
      vectorised: equal
        ? { equal: true, maxRelative: 1e-16, reason: undefined }
        : { equal: false, maxRelative: 0, reason: '3 values differ' },
    },
    fallbacks: [],
  });
  const result = (rows: QueryRow[]): QueryBenchResult => ({
    command: 'npm run bench -- --only=query',
    machine: 'test machine',
    date: '2026-01-01T00:00:00.000Z',
    loadBefore: [1, 2, 3],
    loadAfter: [1, 2, 3],
    prometheusVersion: 'prometheus, version 3.16.0',
    runs: 5,
    scales: [
      {
        series: 10,
        samples: 3000,
        pushSeconds: 1,
        pushes: [{ system: 'strata', requests: 5, errors: 0, firstError: '' }],
        seriesSeen: { strata: 10, prometheus: 10 },
        countErrors: [],
        startMs: 0,
        rows,
      },
    ],
    stall: undefined,
    stallSkipped: undefined,
  });

  it('medians, ratios and the geometric mean', () => {
    expect(medianOf([5, 1, 3])).toBe(3);
    expect(medianOf([4, 1, 3, 2])).toBe(2.5);
    expect(geometricMean([2, 8])).toBeCloseTo(4, 12);
    expect(geometricMean([NaN, 4])).toBe(4);
    const rows = [row('a', 20, 10, 10), row('b', 40, 5, 10)];
    expect(ratio(rows[0] as QueryRow, 'default')).toBe(2);
    const r = result(rows);
    const table = scaleTable(r, r.scales[0] as QueryBenchResult['scales'][number]);
    expect(table).toContain(
      '| a | range | `sum(a)` | 2 × 42 | 20 | 10 | 10 | 2.00× | 1.00× | yes (max rel. 1e-16) |',
    );
    expect(table).toContain(
      '| **geometric mean** | | | | | | | **2.83×** | **0.71×** | 2 of 2 equal |',
    );
    expect(queryBenchFailed(r)).toBe(false);
  });

  it('a differing answer is shown and fails the run', () => {
    const r = result([row('a', 20, 10, 10, false)]);
    const table = scaleTable(r, r.scales[0] as QueryBenchResult['scales'][number]);
    expect(table).toContain('| **NO**: vectorised: 3 values differ |');
    expect(queryBenchFailed(r)).toBe(true);
  });
});

describe('strata bench --only=query (end to end, tiny)', () => {
  beforeAll(() => ensureStrataBuilt(), 600_000);
  const withPrometheus = existsSync(prometheus3Binary());

  it(`quick run${withPrometheus ? ' against Prometheus 3' : ' on Strata only (no Prometheus 3 binary)'}: every row, equal answers, the stall table`, async () => {
    const { code, out, err } = await run([
      '--only=query',
      '--quick',
      '--query-series=500',
      '--query-runs=1',
      '--query-stall-seconds=1',
      '--query-stall-samples=100000',
      ...(withPrometheus ? [] : ['--query-no-prometheus']),
    ]);
    expect(out, err).toContain(
      '## Query path vs Prometheus 3: 500 series × 300 samples (issue 14)',
    );
    expect(out).toMatch(
      withPrometheus ? /Prometheus: Prometheus 3\.[0-9]+\.[0-9]+ / : /Prometheus: not run/,
    );
    expect(out).toContain('series seen: Strata 500');
    for (const q of QUERIES) {
      expect(out).toMatch(
        new RegExp(
          `^\\| ${q.name.replace(/[()]/g, '\\$&')} \\| ${q.kind} \\| .* \\| [1-9][0-9]* × [1-9][0-9]* \\| [0-9.]+ \\| [0-9.]+ \\| .* \\| yes( \\(max rel\\. [0-9e.-]+\\))? \\|$`,
          'm',
        ),
      );
    }
    // 500 series: 5 targets of 100, the first three node exporters.
    expect(out).toContain('| count job | instant | `count({job="node"})` | 1 × 1 |');
    expect(out).toContain(`${QUERIES.length} of ${QUERIES.length} equal |`);
    expect(out).toContain(
      '## Query path: pushes and heartbeats while a heavy query runs (Strata single binary, 500 series)',
    );
    expect(out).toMatch(/^\| no query \| [1-9][0-9]* \| 0 \| /m);
    expect(out).toMatch(/^\| heavy query running \| [1-9][0-9]* \| 0 \| /m);
    expect(out).toMatch(/, [1-9][0-9]{5,} samples \(stats=all totalQueryableSamples\)/);
    expect(code).toBe(0);
  }, 600_000);
});
