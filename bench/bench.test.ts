// Runs the benchmarks in a tiny mode and checks the tables have the expected rows and that
// our chunks match promtool's. Never asserts on timings.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseBenchArgs, runBenchCommand } from './index.js';
import { ensureStrataBuilt } from './remote_write_targets.js';

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
    expect([...full.only]).toEqual([
      'bytes',
      'append',
      'iterate',
      'memory',
      'remote-write',
      'long-term',
      'compaction',
      'sim',
      'frontend',
      'query',
    ]);
    expect(quick.remoteWrite.scales).toEqual([2_000, 5_000]);
    expect(full.remoteWrite.scales).toEqual([100_000, 1_000_000]);
    expect(full.remoteWrite.systems).toEqual(['strata', 'prometheus']);
  });

  it('parses the remote-write flags and rejects unknown systems', () => {
    const o = parseBenchArgs([
      '--only=remote-write',
      '--rw-series=300,4000',
      '--rw-clients=3',
      '--rw-seconds=5',
      '--rw-samples=9000',
      '--rw-systems=strata',
      '--rw-cpu-prof=/tmp/prof',
    ]);
    expect([...o.only]).toEqual(['remote-write']);
    expect(o.remoteWrite).toMatchObject({
      scales: [300, 4000],
      clients: 3,
      maxSeconds: 5,
      steadySamples: 9000,
      systems: ['strata'],
      strata: { nodeArgs: ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] },
    });
    expect(() => parseBenchArgs(['--rw-systems=strata,influxdb'])).toThrow('"influxdb"');
    expect(() => parseBenchArgs(['--rw-series=100,x'])).toThrow('"x"');
  });
});

describe('strata bench --only=remote-write (Strata binary and Prometheus)', () => {
  beforeAll(() => ensureStrataBuilt(), 600_000);

  it('quick: create and steady rows per system and scale, no push refused, the targets rows', async () => {
    const { code, out, err } = await run(['--only=remote-write', '--quick']);
    expect(out, err).toContain('## Remote write: Strata single binary vs Prometheus');
    for (const system of ['strata', 'prometheus']) {
      for (const series of [2000, 5000]) {
        expect(out).toMatch(
          new RegExp(
            `^\\| ${system} \\| ${series} \\| create \\| ${series} \\| .* \\| 0 \\|$`,
            'm',
          ),
        );
        // Steady state sends whole rounds (20,000 samples pre-built) unless the 2s limit hits.
        expect(out).toMatch(
          new RegExp(
            `^\\| ${system} \\| ${series} \\| steady( \\(time limit\\))? \\| [1-9][0-9]* \\| .* \\| 0 \\|$`,
            'm',
          ),
        );
      }
    }
    expect(out).toMatch(
      /^\| Strata ≥ 300\.0k samples\/s per core \| (pass|FAIL) \(.*\) \| (pass|FAIL) \(.*\) \|$/m,
    );
    expect(out).toMatch(/^\| Strata per core ≥ Prometheus per core \| (pass|FAIL) \([0-9.]+×/m);
    expect(out).toMatch(/^\| Strata RSS growth ≤ 3072 B per active series \| (pass|FAIL) /m);
    expect(code).toBe(0);
  }, 300_000);
});
