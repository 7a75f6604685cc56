import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { NodeFileSystem } from '../../src/runtime/real/index.js';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { evidenceKey, renderHtmlReport, writeHtmlReport } from './html_report.js';
import { parseScenario } from './parse_scenario.js';
import type { SimReport } from './report.js';
import { runScenario } from './run_scenario.js';
import { runSimCommand } from '../cli/index.js';

const tmp = mkdtempSync(join(tmpdir(), 'strata-sim-html-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const EPOCH = 1_767_225_600_000;

/** A small failing report, as runScenario would make it. */
function syntheticReport(): SimReport {
  const lost = {
    message: 'lost: team-a up{job="<script>alert(1)</script>"} t=+5s',
    observedAt: EPOCH + 90_000,
    events: [
      { at: EPOCH + 5_000, node: 'writer-1', kind: 'push.sent', detail: 'push #3 attempt 1' },
      { at: EPOCH + 5_010, node: 'writer-1', kind: 'push.acked', detail: 'push #3 attempt 1: 200' },
      {
        at: EPOCH + 90_000,
        until: EPOCH + 90_050,
        node: '-',
        kind: 'read',
        detail: 'final read of team-a',
      },
    ],
    samples: [{ tenant: 'team-a', series: 'up{job="x"}', timestamp: EPOCH + 5_000 }],
  };
  return {
    scenario: 'synthetic',
    seed: 9,
    commit: 'c',
    node_version: 'v20',
    events: 100,
    virtual_ms: 100_000,
    wall_ms: 10,
    virtual_wall_ratio: 10_000,
    events_per_s: 10_000,
    trace_hash: 'abc',
    checks: [
      {
        name: 'acked_readable_exactly_once',
        verdict: 'fail',
        detail: '1 violation(s)',
        violations: [lost],
      },
      { name: 'no_phantoms', verdict: 'pass', detail: 'fine' },
    ],
    passed: false,
    first_failure: {
      check: 'acked_readable_exactly_once',
      violation: lost.message,
      window: {
        from_ms: 5_000,
        to_ms: 90_000,
        events: [{ at_ms: 20_000, node: 'ingester-1', kind: 'crash', detail: 'crash ingester-1' }],
      },
    },
    replay: 'strata sim synthetic --seed 9',
    details: {
      plan: ['plan line'],
      nodes: [
        { name: 'ingester-1', role: 'ingester' },
        { name: 'writer-1', role: 'writer' },
      ],
      epochMs: EPOCH,
      endMs: EPOCH + 100_000,
      timeline: [
        {
          at: EPOCH + 5_010,
          node: 'writer-1',
          kind: 'push.acked',
          detail: 'push #3 attempt 1: 200',
        },
        { at: EPOCH + 20_000, node: 'ingester-1', kind: 'crash', detail: 'crash ingester-1' },
        { at: EPOCH + 25_000, node: 'ingester-1', kind: 'restart', detail: 'restart ingester-1' },
        {
          at: EPOCH + 30_000,
          until: EPOCH + 40_000,
          node: 'objstore',
          kind: 'partition',
          detail: 'partition',
        },
      ],
      summary: 'summary',
      eventsDropped: 0,
      network: { sent: 0, lost: 0, duplicated: 0, blocked: 0 },
      logTail: [],
      traceTail: [],
    },
  };
}

/** The page's DOM after its script ran, from headless Chromium (Debian's `chromium`). */
function renderedDom(file: string): string {
  return execFileSync(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--virtual-time-budget=2000',
      '--dump-dom',
      `file://${file}`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 60_000 },
  );
}

describe('the HTML report', () => {
  it('is one self-contained page: lanes per node and service, escaped text, evidence circled', () => {
    const html = renderHtmlReport(syntheticReport());
    // Nothing loaded from elsewhere: no src/href attributes, no CSS urls or imports.
    expect(html).not.toMatch(/\s(src|href)=/);
    expect(html).not.toMatch(/url\(|@import/);
    expect(html.match(/https?:\/\/[^"\s]*/g)).toEqual(['http://www.w3.org/2000/svg']);
    expect(html).not.toContain('<script>alert(1)');
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    for (const lane of ['ingester-1 (ingester)', 'writer-1 (writer)', '>objstore<', '>cluster<'])
      expect(html).toContain(lane);
    expect(
      html.match(/<circle class="violation" data-check="acked_readable_exactly_once"/g),
    ).toHaveLength(3);
    expect(html).toContain('class="failure-window" data-check="acked_readable_exactly_once"');
    expect(html).toContain('<rect class="down"'); // ingester-1 down from its crash to its restart
    expect(html).toContain('data-first-check="acked_readable_exactly_once"');
  });

  it('renders a failing run in headless Chromium: the first violated check, its window and its highlighted events are visible', async () => {
    // ingester-crash with ingesters that acknowledge before the WAL write, and every replica
    // crashing within a second: acknowledged samples are lost.
    const doc = parseYaml(readHostTextFile(builtinScenarioPath('ingester-crash')!)) as Record<
      string,
      unknown
    >;
    doc['schedule'] = [
      { at: '60s', crash: 'ingester-1' },
      { at: '60s', crash: 'ingester-2' },
      { at: '61s', crash: 'ingester-3' },
      { at: '66s', restart: 'ingester-1' },
      { at: '66s', restart: 'ingester-2' },
      { at: '66s', restart: 'ingester-3' },
    ];
    Object.assign(doc['workload'] as Record<string, unknown>, {
      broken_ingester: 'ack_before_wal',
      broken_ack_delay: '5s',
    });
    const scenario = parseScenario(stringifyYaml(doc), 'ingester-crash(ack_before_wal)');
    const report = await runScenario(scenario, 1, { commit: () => 'test' });
    expect(report.passed).toBe(false);

    const first = report.first_failure!;
    expect(first.check).toBe('acked_readable_exactly_once');
    expect(first.violation).toMatch(/^lost: team-[ab] /);
    // The window runs from the push that carried the lost sample to the read that missed it,
    // through the crashes of its replicas.
    const kinds = first.window.events.map((e) => `${e.node} ${e.kind}`);
    expect(kinds[0]).toMatch(/^writer-\d+ push\.sent$/);
    expect(kinds).toContain('ingester-1 crash');
    expect(kinds).toContain('ingester-3 crash');
    expect(kinds.at(-1)).toBe('- read');
    expect(first.window.from_ms).toBeLessThan(60_000);
    expect(first.window.to_ms).toBeGreaterThan(66_000);
    expect(first.window.events[0]!.at_ms).toBe(first.window.from_ms);

    const file = join(tmp, 'failing.html');
    await writeHtmlReport(report, new NodeFileSystem(), file);
    const dom = renderedDom(file);
    expect(dom).toContain('data-script="ran"');
    expect(dom).toContain('data-selected="acked_readable_exactly_once"');
    const lost = report.checks.find((c) => c.name === 'acked_readable_exactly_once')!;
    // Each evidence event once, however many lost samples share it (their push).
    const evidence = new Set(lost.violations!.flatMap((v) => v.events.map(evidenceKey))).size;
    expect(evidence).toBeGreaterThan(0);
    expect(dom).toContain(`highlighting ${evidence} event(s) of check acked_readable_exactly_once`);
    expect(dom).toMatch(/First violated check: acked_readable_exactly_once<\/b>: lost: team-/);
    expect(dom).toMatch(/<li>\+1m0s <b>ingester-1<\/b> crash ingester-1<\/li>/);
    // The failing check's evidence is circled and not dimmed; the other failing check's is dimmed.
    const circled =
      dom.match(/<circle class="violation" data-check="acked_readable_exactly_once"/g) ?? [];
    expect(circled).toHaveLength(evidence);
    expect(dom).toMatch(
      /<tr class="check fail selected" data-check="acked_readable_exactly_once">/,
    );
    expect(dom).toMatch(/<circle class="violation dim" data-check="model_queries"/);
    // The timeline shows the run: the ingesters' crashes and restarts, the acknowledged pushes.
    expect(dom).toMatch(
      /<path class="mark crash"[^>]*><title>\+1m0s ingester-1 crash ingester-1<\/title>/,
    );
    expect(dom).toMatch(/<line class="mark push-acked"/);
  }, 180_000);

  it('strata sim --html writes the page and the report names the first failure', async () => {
    const doc = parseYaml(readHostTextFile(builtinScenarioPath('pingpong')!)) as Record<
      string,
      unknown
    >;
    (doc['workload'] as Record<string, unknown>)['bug'] = 'ack_before_fsync';
    const scenarioFile = join(tmp, 'pingpong-lazy.yaml');
    writeFileSync(scenarioFile, stringifyYaml(doc));
    const page = join(tmp, 'pingpong.html');
    // The bug loses data only when b's power loss hits an unsynced ack: the first seed where it does.
    let stdout = '';
    let code = 0;
    for (let seed = 1; seed <= 10 && code !== 1; seed++) {
      stdout = '';
      code = await runSimCommand(
        [scenarioFile, '--seed', String(seed), '--html', page],
        { stdout: (s) => (stdout += s), stderr: () => undefined },
        { commit: () => 'abc', fs: new NodeFileSystem() },
      );
    }
    expect(code).toBe(1);
    expect(stdout).toContain(`html: report written to ${page}`);
    const json = JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as SimReport;
    // The lost ids were acked before b's power loss at 60s; the loss shows when b restarts.
    expect(json.first_failure).toMatchObject({ check: 'durability', window: { to_ms: 65_000 } });
    expect(json.first_failure!.window.events.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['msg.sent', 'msg.acked', 'power_loss', 'restart']),
    );
    expect(stdout).toMatch(/^first violated check: durability: acknowledged id \d+ is missing/m);
    expect(stdout).toMatch(/^ {4}\+1m0s b power loss b$/m);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('data-first-check="durability"');
    expect(html).toContain('a (sender)');

    // With --swarm, --html names a directory of failure pages, which needs a file system.
    let stderr = '';
    const usage = await runSimCommand(
      ['--swarm', '2', '--html', join(tmp, 'pages')],
      { stdout: () => undefined, stderr: (s) => (stderr += s) },
      {},
    );
    expect(usage).toBe(2);
    expect(stderr).toContain('--html needs a file system');
  });
});
