// Runs the long-term read-path benchmark in a tiny size on a filesystem bucket and checks
// its tables' rows and that every path returned the same samples. Never asserts on timings.
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, runBenchCommand } from './index.js';
import { blockSeries, queryMatchers, seriesPerShape } from './long_term_data.js';

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runBenchCommand(argv, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
  });
  return { code, out, err };
}

describe('strata bench --only=long-term', () => {
  it('tiny: bytes, index-header, memory and latency rows; all paths answer the same', async () => {
    const { code, out, err } = await run([
      '--only=long-term',
      '--lt-series=40',
      '--lt-blocks=2',
      '--lt-runs=2',
      '--lt-buckets=filesystem',
    ]);
    expect(out, err).toContain(
      '## Long-term read path: one series over 4h from 2 blocks of 40 series',
    );
    expect(out).toContain('`{__name__="bench_counter", instance="host-5.example.org:9100"}`');
    for (const variant of ['no index_stats, as Cortex ships', 'index_stats, as Strata ships']) {
      expect(out).toMatch(
        new RegExp(
          `^\\| filesystem \\(${variant}\\) \\| [0-9.]+ \\| [1-9][0-9]* \\| [0-9.]+% \\| [0-9]+ \\| [0-9]+ \\| [1-9][0-9]* \\(`,
          'm',
        ),
      );
    }
    // Two blocks built and opened, each index-header read with 4 bucket calls.
    expect(out).toMatch(/^\| filesystem \| [0-9.]+ \([0-9.]+–[0-9.]+\) \| .* \| 4\.0 \|$/m);
    // Under vitest node has no gc(): the memory row says so instead of guessing.
    expect(out).toMatch(/^\| filesystem \| (1 \| [0-9.-]+ \||n\/a \(needs node --expose-gc\))/m);
    for (const path of [
      'store-gateway: BucketStores.series + decode | filesystem',
      'querier: BlocksStoreQueryable.series + decode | filesystem',
      'store-gateway, index_stats as Strata ships | filesystem',
      'ingester TSDB: 2 local blocks | local disk',
      'ingester TSDB: 1 local blocks + head (last 2h) | local disk + memory',
    ]) {
      expect(out).toContain(`| ${path} | 1 × 960 | `);
    }
    expect(out).not.toContain('Answers differ');
    expect(code).toBe(0);
  }, 120_000);

  it('parses the --lt-* flags and rejects bad ones with the offending value', () => {
    const o = parseBenchArgs([
      '--only=long-term',
      '--lt-series=300',
      '--lt-blocks=3',
      '--lt-runs=4',
      '--lt-buckets=minio',
    ]);
    expect([...o.only]).toEqual(['long-term']);
    expect(o.longTerm).toEqual({ series: 300, blocks: 3, runs: 4, buckets: ['minio'] });
    const full = parseBenchArgs([]).longTerm;
    expect([full.series, full.blocks, full.runs]).toEqual([10_000, 12, 20]);
    expect(full.buckets[0]).toBe('filesystem');
    const quick = parseBenchArgs(['--quick']).longTerm;
    expect([quick.series, quick.blocks, quick.runs]).toEqual([2_000, 4, 5]);
    expect(() => parseBenchArgs(['--lt-buckets=filesystem,gcs'])).toThrow('"gcs"');
    expect(() => parseBenchArgs(['--lt-blocks=1'])).toThrow('at least 2');
    expect(() => parseBenchArgs(['--lt-series=x'])).toThrow('"x"');
  });

  it('generates consecutive 2h blocks with every shape and the queried series', () => {
    expect(seriesPerShape(10)).toEqual([3, 3, 2, 2]);
    const b0 = blockSeries(0, 8);
    const b1 = blockSeries(1, 8);
    expect(b0.map((s) => s.labels.toString())).toEqual(b1.map((s) => s.labels.toString()));
    const first = b1[0]?.timestamps[0] as number;
    expect(first - (b0[0]?.timestamps[0] as number)).toBe(2 * 60 * 60 * 1000);
    const [name, instance] = queryMatchers(8);
    const queried = b0.filter(
      (s) =>
        s.labels.get('__name__') === name?.value && s.labels.get('instance') === instance?.value,
    );
    expect(queried).toHaveLength(1);
  });
});
