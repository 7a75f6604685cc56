import { describe, expect, it } from 'vitest';
import { loadScenario, runScenario, type SimReport } from '../../scenario/index.js';

const SWEEP_TIMEOUT_MS = 180_000;
const commit = (): string => 'test-commit';

interface Traced {
  report: SimReport;
  /** Every executed event's `kind detail`, in order. */
  events: string[];
}

async function traced(name: string, seed: number): Promise<Traced> {
  const events: string[] = [];
  const report = await runScenario(await loadScenario(name), seed, {
    commit,
    onTraceEvent: (e) => events.push(`${e.kind} ${e.detail}`),
  });
  return { report, events };
}

const failures = (r: SimReport): string[] =>
  r.checks.filter((c) => c.verdict === 'fail').map((c) => `${c.name}: ${c.detail}`);

describe('single-binary (-target=all) as a scenario topology', () => {
  it(
    'every acknowledged sample survives crashes and a power loss of single binaries; each seed replays',
    async () => {
      for (const seed of [1, 2, 3]) {
        const a = await traced('single-binary', seed);
        const b = await runScenario(await loadScenario('single-binary'), seed, { commit });
        expect(failures(a.report), `seed ${seed}\n${a.report.details.summary}`).toEqual([]);
        expect(b.trace_hash, `seed ${seed} replays`).toBe(a.report.trace_hash);
        expect(a.report.details.summary).toMatch(/acked 432, .*final reads 2\/2 tenants/);
        const arrivals = a.events.filter((e) => e.startsWith('net.arrive '));
        // Each node's distributor pushes to its own ingester in process: no ingester.Push
        // from a node to itself crosses the network, while pushes to the others do.
        expect(arrivals.some((e) => /ingester\.Push/.test(e))).toBe(true);
        expect(arrivals.filter((e) => /(strata-\d)->\1 ingester\.Push/.test(e))).toEqual([]);
      }
    },
    SWEEP_TIMEOUT_MS,
  );
});

describe('the workload goes through the HTTP API', () => {
  it(
    'writers POST remote-write bodies to /api/v1/push, the reader uses /prometheus/api/v1; no push or query RPC',
    async () => {
      const { report, events } = await traced('ingester-crash', 1);
      expect(failures(report)).toEqual([]);
      const arrivals = events.filter((e) => e.startsWith('net.arrive '));
      expect(arrivals.filter((e) => / http POST \/api\/v1\/push #/.test(e)).length).toBeGreaterThan(
        50,
      );
      for (const endpoint of ['query', 'query_range', 'series', 'labels'])
        expect(
          arrivals.some((e) => e.includes(`http GET /prometheus/api/v1/${endpoint} #`)),
          endpoint,
        ).toBe(true);
      expect(arrivals.filter((e) => /distributor\.Push|querier\.(Select|Query)/.test(e))).toEqual(
        [],
      );
      // The one-way partition of the distributor's answers makes pushes time out.
      expect(events.some((e) => e.startsWith('http.timeout writer-1->distributor-1'))).toBe(true);
    },
    SWEEP_TIMEOUT_MS,
  );
});
