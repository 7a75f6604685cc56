import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { NodeFileSystem } from '../../src/runtime/real/index.js';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { parseScenario, runScenario, type SimReport } from '../scenario/index.js';
import { formatSwarmFailure, writeSwarmFailurePage, type SwarmRunResult } from './swarm_job.js';

const tmp = mkdtempSync(join(tmpdir(), 'strata-swarm-html-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A failing report: pingpong with its ack-before-fsync bug, on the first seed that loses data. */
async function failingReport(): Promise<SimReport> {
  const doc = parseYaml(readHostTextFile(builtinScenarioPath('pingpong')!)) as Record<
    string,
    unknown
  >;
  (doc['workload'] as Record<string, unknown>)['bug'] = 'ack_before_fsync';
  const scenario = parseScenario(stringifyYaml(doc), 'pingpong');
  for (let seed = 1; seed <= 10; seed++) {
    const report = await runScenario(scenario, seed, { commit: () => 'test' });
    if (!report.passed) return report;
  }
  throw new Error('no seed of 1..10 failed');
}

describe('swarm failure pages (--swarm N --html DIR)', () => {
  it("writes a failed run's page into the directory and names it on the failure line", async () => {
    const report = await failingReport();
    const dir = join(tmp, 'pages');
    const job = { family: 'pingpong', seed: report.seed, htmlDir: `${dir}/` };
    const path = await writeSwarmFailurePage(report, new NodeFileSystem(), job);
    expect(path).toBe(join(dir, `pingpong-seed${report.seed}.html`));
    const html = readFileSync(path, 'utf8');
    const failing = report.checks.find((c) => c.verdict !== 'pass')!;
    expect(html).toContain(failing.name);
    const result: SwarmRunResult = {
      family: 'pingpong',
      seed: report.seed,
      profile: `pingpong:${report.seed}`,
      replay: report.replay,
      passed: false,
      failures: [{ name: failing.name, detail: failing.detail }],
      events: report.events,
      virtualMs: report.virtual_ms,
      wallMs: report.wall_ms,
      traceHash: report.trace_hash,
      page: path,
    };
    expect(formatSwarmFailure(result)).toMatch(
      new RegExp(
        `^FAIL pingpong:${report.seed} seed ${report.seed} \\[${failing.name}\\]: .* \\(page: ${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)$`,
      ),
    );
  }, 60_000);

  it('a page that cannot be written is named as not written instead of failing the swarm', async () => {
    const report = await failingReport();
    const blocker = join(tmp, 'blocker');
    await new NodeFileSystem().writeFile(blocker, 'a file where the directory should be');
    const out = await writeSwarmFailurePage(report, new NodeFileSystem(), {
      family: 'pingpong',
      seed: report.seed,
      htmlDir: blocker,
    });
    expect(out).toMatch(/not written: /);
  }, 60_000);
});
