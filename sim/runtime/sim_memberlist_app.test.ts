import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { builtinScenarioPath, readHostTextFile } from '../kernel/index.js';
import { parseScenario, runScenario, type SimReport } from '../scenario/index.js';

/**
 * Whole Strata processes on the memberlist KV in the simulator: the ingester-crash scenario
 * (a distributor, three ingesters with RF 3, a querier; crashes, power loss and restarts under
 * remote-write load) with every ring gossiped between the Strata nodes instead of kept in the
 * simulated in-memory KV. Every acknowledged sample must still be read back exactly once, and
 * the run must replay to the same trace.
 */
function withRingStore(name: string, store: string): string {
  const path = builtinScenarioPath(name);
  if (path === undefined) throw new Error(`built-in scenario ${name} not found`);
  const doc = parseYaml(readHostTextFile(path)) as { workload: Record<string, unknown> };
  doc.workload['ring_store'] = store;
  // Gossip needs a few seconds to show every ingester to the distributor: a push before that
  // reaches two replicas only, and the power loss of one of them leaves a single copy, which
  // a quorum read may miss (two replica failures for one sample, beyond what RF 3 promises).
  // So the writer starts once the rings have converged.
  (doc.workload['scrape'] as Record<string, unknown>)['start'] = '10s';
  return stringifyYaml(doc);
}

const failures = (r: SimReport): string[] =>
  r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.name}: ${c.detail}`);

describe('Strata on the memberlist KV in the simulator', () => {
  it('ingester-crash with gossiped rings: acknowledged writes survive; replays exactly', async () => {
    const scenario = parseScenario(
      withRingStore('ingester-crash', 'memberlist'),
      'ingester-crash+memberlist',
    );
    const opts = { commit: () => 'test-commit' };
    const a = await runScenario(scenario, 1, opts);
    expect(failures(a), a.details.summary).toEqual([]);
    expect(a.checks.length).toBeGreaterThan(0);
    expect(a.details.plan.join('\n')).toContain('rings on memberlist gossip');
    // The rings really were gossiped: probes, gossip and push/pull add many messages to what
    // the same run sends with the rings in the simulated KV service.
    const baseline = await runScenario(
      parseScenario(withRingStore('ingester-crash', 'inmemory'), 'ingester-crash'),
      1,
      opts,
    );
    expect(failures(baseline)).toEqual([]);
    expect(a.details.network.sent).toBeGreaterThan(baseline.details.network.sent * 1.5);
    const b = await runScenario(scenario, 1, opts);
    expect(b.trace_hash).toBe(a.trace_hash);
  }, 180_000);
});
