// Runs the query-frontend benchmark on a tiny dataset (real processes: a store-gateway, a
// querier, two frontends with their queriers, Prometheus) and checks its tables' rows, that
// every frontend answer equals the querier's, and the answer comparison itself. Never asserts
// on timings.
import { describe, expect, it } from 'vitest';
import { DASHBOARD, compareMatrix, parseMatrix } from './frontend_bench_queries.js';
import { parseBenchArgs, runBenchCommand } from './index.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runBenchCommand(argv, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
  });
  return { code, out, err };
}

const matrix = (series: { metric: Record<string, string>; values: [number, string][] }[]) =>
  parseMatrix(
    200,
    JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: series } }),
  );

describe('strata bench --only=frontend', () => {
  it('tiny: one row per scenario and per panel; the frontend answers as the querier', async () => {
    const { code, out, err } = await run(['--only=frontend', '--fe-series=40', '--fe-hours=4']);
    expect(out, err).toContain(
      '## Query-frontend: a dashboard of 10 range queries over 4h of 40 series (store-gateway data)',
    );
    const num = '[0-9.]+';
    expect(out).toMatch(
      new RegExp(
        `^\\| querier \\(direct\\) \\| ${num} \\| ${num} \\| ${num} \\| reference \\|$`,
        'm',
      ),
    );
    for (const s of [
      'frontend, split 3h, cache empty \\(cold\\)',
      'frontend, split 3h, cache filled \\(warm\\)',
      'frontend sharded ×3, split 3h, cold',
      'frontend sharded ×3, split 3h, warm',
    ]) {
      expect(out).toMatch(
        new RegExp(`^\\| ${s} \\| ${num} \\| ${num} \\| ${num} \\| identical \\|$`, 'm'),
      );
    }
    // Prometheus runs when Debian's binary is installed, else its row says why not.
    expect(out).toMatch(
      /^\| (Prometheus \(Debian\) over the same blocks \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| (identical|differs .*)|Prometheus \| skipped: .*) \|$/m,
    );
    // 10 counters of 40 series, 4h at 1m: 241 steps, the first without a rate.
    expect(out).toContain(
      '| one target | `rate(bench_counter{instance="host-7.example.org:9100"}[5m])` | 1 × 240 |',
    );
    expect(out).toContain('| total rate | `sum(rate(bench_counter[5m]))` | 1 × 240 |');
    for (const q of DASHBOARD) expect(out).toContain(`| ${q.name} | `);
    expect(out).not.toContain('DIFFERENT');
    expect(code).toBe(0);
  }, 300_000);

  it('parses --fe-series and --fe-hours, defaults as the issue asks', () => {
    const o = parseBenchArgs(['--only=frontend', '--fe-series=300', '--fe-hours=6']);
    expect([...o.only]).toEqual(['frontend']);
    expect(o.frontend).toEqual({ series: 300, hours: 6, prometheus: true });
    expect([parseBenchArgs([]).frontend.series, parseBenchArgs([]).frontend.hours]).toEqual([
      10_000, 24,
    ]);
    expect(parseBenchArgs(['--quick']).frontend.hours).toBe(6);
    expect(() => parseBenchArgs(['--fe-hours=3'])).toThrow('even');
    expect(() => parseBenchArgs(['--fe-series=0'])).toThrow('"0"');
  });

  it('compares answers by labels and values: equal, a changed point, a missing series', () => {
    const a = {
      metric: { job: 'node' },
      values: [
        [1, '1.5'],
        [2, '2'],
      ] as [number, string][],
    };
    const b = { metric: { job: 'api' }, values: [[1, '3']] as [number, string][] };
    expect(compareMatrix(matrix([a, b]), matrix([b, a]))).toBeUndefined();
    const changed = {
      ...a,
      values: [
        [1, '1.5'],
        [2, '2.0000002'],
      ] as [number, string][],
    };
    const d = compareMatrix(matrix([a, b]), matrix([changed, b]));
    expect(d?.points).toBe(1);
    expect(d?.maxRelative).toBeCloseTo(1e-7, 9);
    expect(compareMatrix(matrix([a, b]), matrix([a]))).toEqual({
      points: 1,
      maxRelative: 0,
      series: 1,
      firstT: 1,
      lastT: 1,
    });
    expect(() => parseMatrix(400, '{"status":"error","error":"bad"}')).toThrow(
      'query failed (400)',
    );
  });
});
