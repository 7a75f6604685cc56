import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { brokenScenarioText } from '../../canaries/index.js';
import { builtinScenarioPath, readHostTextFile } from '../../kernel/index.js';
import { loadScenario, parseScenario, runScenario, type SimReport } from '../../scenario/index.js';

/** Simulated runs of 10 virtual minutes (about 15s of wall time each) on a shared CPU: generous. */
const TIMEOUT_MS = 600_000;
const commit = (): string => 'test-commit';

function failures(r: SimReport): string[] {
  return r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.name}: ${c.detail}`);
}

function verdicts(r: SimReport): Record<string, { verdict: string; detail: string }> {
  return Object.fromEntries(r.checks.map((c) => [c.name, c]));
}

/** The built-in scenario with its frontend broken on purpose (configuration only). */
function brokenFrontend(mode: string): string {
  const path = builtinScenarioPath('query-frontend');
  if (path === undefined) throw new Error('built-in scenario query-frontend not found');
  const doc = parseYaml(readHostTextFile(path)) as Record<string, Record<string, unknown>>;
  (doc['workload']!['frontend'] as Record<string, unknown>)['broken'] = mode;
  return stringifyYaml(doc);
}

describe('query-frontend scenario', () => {
  it(
    'passes every check on seed 1, twice with the same trace: answers equal the model through splits, shards and the results cache; the querier crash is retried; the flooder does not starve team-a',
    async () => {
      const scenario = await loadScenario('query-frontend');
      const a = await runScenario(scenario, 1, { commit });
      const b = await runScenario(scenario, 1, { commit });
      expect(failures(a), a.details.summary).toEqual([]);
      expect(b.trace_hash, 'seed 1 replays').toBe(a.trace_hash);
      expect(b.checks).toEqual(a.checks);
      const v = verdicts(a);
      // team-a's queries during the flood all finished well within the bound (round-robin).
      expect(v['tenant_fairness']!.detail).toMatch(/\(slowest (\d+ms|[1-4](\.\d+)?s)\)$/);
      // Both range repetitions of the four queries were judged, the flooder was refused, and
      // the blocks reached the bucket (the store-gateways and their caches served the reads).
      expect(v['model_range_queries']!.detail).toMatch(/^8 range answer\(s\)/);
      expect(v['tenant_fairness']!.detail).toMatch(/\([1-9]\d* refusals of team-b\)/);
      expect(v['no_request_lost']!.detail).toMatch(/429: [1-9]/);
      expect(a.details.summary).toMatch(/deleted locally [1-9]/);
      expect(a.details.plan.join('\n')).toContain('crash querier-1');
    },
    TIMEOUT_MS,
  );

  it.each([2, 3])(
    'passes every check on seed %i too, the flooder refused and team-a never waiting behind it',
    async (seed) => {
      const r = await runScenario(await loadScenario('query-frontend'), seed, { commit });
      expect(failures(r), r.details.summary).toEqual([]);
      expect(verdicts(r)['tenant_fairness']!.detail).toMatch(/\([1-9]\d* refusals of team-b\)/);
    },
    TIMEOUT_MS,
  );

  it(
    'a frontend queue serving every tenant in one FIFO (the fifo_frontend_queue canary) makes team-a wait behind the flood and fails tenant_fairness',
    async () => {
      const text = brokenScenarioText('query-frontend', 'fifo_frontend_queue');
      if (text === undefined)
        throw new Error('fifo_frontend_queue does not apply to query-frontend');
      const bad = await runScenario(parseScenario(text, 'query-frontend(fifo)'), 1, { commit });
      expect(bad.details.plan.join('\n')).toContain('BROKEN: fifo_queue');
      expect(bad.passed).toBe(false);
      const v = verdicts(bad);
      expect(v['tenant_fairness']!.verdict).toBe('fail');
      // team-a's range queries sent during the flood wait behind team-b's backlog, well past
      // the 10s bound (the real queue answers them within half a second, first test).
      expect(v['tenant_fairness']!.detail).toMatch(
        /^\d+ starved quer\(ies\) or missing evidence: mix team-a: .* answered after (1\d|[2-9]\d)\.\d+s \(bound 10s\)/,
      );
      // Only the order changed: the flooder is still refused at its own bound, every request
      // is answered, and every answer is still right.
      expect(v['no_request_lost']!.verdict).toBe('pass');
      expect(v['no_request_lost']!.detail).toMatch(/429: [1-9]/);
      expect(v['model_range_queries']!.verdict).toBe('pass');
      expect(v['model_queries']!.verdict).toBe('pass');
    },
    TIMEOUT_MS,
  );

  it(
    'a results cache that ignores max_cache_freshness serves the warm-up answers without the late samples and fails model_range_queries',
    async () => {
      const bad = await runScenario(
        parseScenario(brokenFrontend('ignore_cache_freshness'), 'query-frontend(broken)'),
        1,
        { commit },
      );
      expect(bad.passed).toBe(false);
      const v = verdicts(bad);
      expect(v['model_range_queries']!.verdict).toBe('fail');
      // The late writer's samples, pushed after the warm-up inside its last minute, are missing.
      expect(v['model_range_queries']!.detail).toMatch(
        /^\d+ range answer\(s\) through the frontend differ from the model: repeat team-[ab]: .* at \+7m0s .*model says/,
      );
      expect(v['model_range_queries']!.detail).toContain('instance="writer-late"');
      // Nothing else is wrong: the instant queries and whole reads are not cached.
      expect(v['model_queries']!.verdict).toBe('pass');
      expect(v['acked_readable_exactly_once']!.verdict).toBe('pass');
    },
    TIMEOUT_MS,
  );
});
