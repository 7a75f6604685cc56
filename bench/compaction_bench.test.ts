// Runs the compaction benchmark at a tiny size (in-process: under vitest there is no built
// child entry point) and checks its result and tables: one block with exactly one replica's
// samples, every sample of the generator in it once, the replicas marked for deletion. Also
// checks the generated replicas differ as real ones do. Never asserts on timings.
import { describe, expect, it } from 'vitest';
import { parseBenchArgs, runBenchCommand } from './index.js';
import { runCompactionBench } from './compaction_bench.js';
import { compactionFailed, compactionTable } from './compaction_table.js';
import { GeneratedSamples, blockLayout, missedPushes, missedSamples } from './compaction_data.js';
import { ValueType } from '../src/tsdb/index.js';
import { PHASES } from './compaction_run.js';

function drain(it: GeneratedSamples): [number, number][] {
  const out: [number, number][] = [];
  while (it.next() === ValueType.Float) out.push([it.atT(), it.atF()]);
  return out;
}

describe('strata bench --only=compaction', () => {
  it('tiny: one de-duplicated block with one replica’s samples, measured by phase', async () => {
    const r = await runCompactionBench({ series: 60, samples: 480, verifySamples: true });
    expect(r.checks.filter((c) => !c.ok)).toEqual([]);
    expect(compactionFailed(r)).toBe(false);
    expect(r.replicas).toHaveLength(3);
    expect(r.replicas.map((b) => b.missedSamples)).toEqual([0, 9, 9]);
    expect(r.replicas.map((b) => b.numSamples)).toEqual([28_800, 28_791, 28_791]);
    expect(r.inputSamples).toBe(28_800 * 3 - 18);
    expect(r.output).toMatchObject({ numSeries: 60, numSamples: 28_800, level: 2 });
    expect(r.output?.bytes).toBeGreaterThan(0);
    // Replicas whose chunks were cut elsewhere still merge into the complete replica's size.
    const complete = r.replicas[0]?.bytes ?? 0;
    expect(Math.abs((r.output?.bytes ?? 0) - complete) / complete).toBeLessThan(0.05);
    const m = r.measured;
    expect(m.measuredIn).toBe('in-process');
    expect(m.run.succeeded).toEqual(['bench-compaction']);
    expect(m.wallMs).toBeGreaterThan(0);
    expect(m.cpuUserMs + m.cpuSystemMs).toBeGreaterThan(0);
    expect(m.peakRssBytes).toBeGreaterThanOrEqual(m.baselineRssBytes);
    expect(m.peakHeapBytes).toBeGreaterThan(0);
    // Every phase was seen, in order.
    expect(m.phases.map((p) => p.phase)).toEqual([...PHASES]);
    for (const p of m.phases) expect(p.wallMs).toBeGreaterThanOrEqual(0);

    const table = compactionTable(r);
    expect(table).toContain(
      '## Compaction: 3 replicas of a 2h block of 60 series × 480 samples into one block',
    );
    expect(table).toContain('| output | 60 series, 28800 samples, ');
    expect(table).toMatch(/^\| input samples \/ CPU second \(per core\) \| [0-9.]+M \|$/m);
    expect(table).toMatch(/^\| merge \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$/m);
    expect(table).toContain('| output samples = one replica | ok: output 28800, ');
    expect(table).toContain(
      '| output samples = the generated series | ok: every series, every sample |',
    );
    expect(table).not.toContain('FAILED');
  }, 120_000);

  it('runs through strata bench and parses its flags', async () => {
    let out = '';
    const code = await runBenchCommand(['--only=compaction', '--compact-series=20'], {
      stdout: (s) => void (out += s),
      stderr: () => undefined,
    });
    expect(out).toContain('of 20 series × 480 samples into one block');
    expect(code).toBe(0);
    expect(parseBenchArgs(['--only=compaction']).compaction).toEqual({
      series: 100_000,
      samples: 480,
      verifySamples: false,
    });
    expect(
      parseBenchArgs(['--quick', '--compact-samples=120', '--compact-verify']).compaction,
    ).toEqual({ series: 10_000, samples: 120, verifySamples: true });
    expect(() => parseBenchArgs(['--compact-samples=481'])).toThrow('at most 480');
    expect(() => parseBenchArgs(['--compact-series=0'])).toThrow('"0"');
  }, 120_000);

  it('generates replicas with the same samples except for the missed pushes', () => {
    const layout = blockLayout(40);
    expect(layout.labels[0]?.length).toBe(10);
    expect(layout.symbols).toEqual([...new Set(layout.symbols)].sort());
    const gaps = missedPushes(40, 480);
    expect(gaps.filter((g) => g.replica === 0)).toEqual([]);
    expect([missedSamples(gaps, 1), missedSamples(gaps, 2)]).toEqual([6, 6]);
    for (let s = 0; s < 40; s++) {
      const kind = layout.kinds[s] ?? 'gauge';
      const full = drain(new GeneratedSamples(s, kind, 480, []));
      expect(full).toHaveLength(480);
      for (let i = 1; i < full.length; i++) {
        expect(full[i]?.[0]).toBeGreaterThan(full[i - 1]?.[0] ?? Infinity);
      }
      const skip = [5, 300];
      const partial = drain(new GeneratedSamples(s, kind, 480, skip));
      expect(partial).toEqual(full.filter((_, i) => !skip.includes(i)));
    }
  });
});
