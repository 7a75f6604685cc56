// Runs the benchmarks in a tiny mode and checks the tables have the expected rows and that
// our chunks match promtool's. Never asserts on timings.
import { describe, expect, it } from 'vitest';
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

describe('strata bench', () => {
  it('bytes: one row per shape, chunk files identical to promtool', async () => {
    const { code, out } = await run(['--only=bytes', '--series=5', '--samples=200']);
    expect(code).toBe(0);
    for (const shape of ['constant', 'counter', 'jittered', 'random']) {
      expect(out).toMatch(
        new RegExp(`^\\| ${shape} \\| 5 × 200 \\| [0-9.]+ \\| [0-9.]+ \\| yes \\|`, 'm'),
      );
    }
  }, 60_000);

  it('append and iterate: one row per benchmark', async () => {
    const { code, out } = await run(['--only=append', '--only=iterate', '--quick', '--series=20']);
    expect(code).toBe(0);
    for (const name of [
      'head append (existing series)',
      'XorChunk append',
      'iterate head chunks',
      'iterate block (select + read + decode)',
    ]) {
      expect(out).toContain(`| ${name} | `);
    }
    expect(out).not.toContain('Bytes per sample');
  }, 60_000);

  it('rejects unknown benchmarks and bad sizes with the offending value', async () => {
    const bad = await run(['--only=speed']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('"speed"');
    expect(() => parseBenchArgs(['--samples=481'])).toThrow('481');
    expect(() => parseBenchArgs(['--series=0'])).toThrow('"0"');
  });

  it('quick mode lowers the sizes', () => {
    const quick = parseBenchArgs(['--quick']);
    const full = parseBenchArgs([]);
    expect(quick.memorySeries).toBe(100_000);
    expect(full.memorySeries).toBe(1_000_000);
    expect([...full.only]).toEqual(['bytes', 'append', 'iterate', 'memory']);
  });
});
