/**
 * Runs every (scenario, canary, seed) case of a canary sweep through an executor, at most
 * `jobs` at a time, and collects the outcomes. The CLI's executor sends each case to a worker
 * process; tests run them in process.
 */
import { NO_CANARY, type Canary } from './registry.js';
import type { CanaryCase, CanaryOutcome } from './run_case.js';

export interface CanarySweep {
  scenarios: readonly string[];
  canaries: readonly Canary[];
  seeds: readonly number[];
  /** Also run the unbroken build over the same seeds (default true). */
  baseline?: boolean;
}

export interface SweepOptions {
  execute: (c: CanaryCase) => Promise<CanaryOutcome>;
  /** Cases in flight at once (default 1). */
  jobs?: number;
  /** Called after each case, in completion order. */
  onOutcome?: (o: CanaryOutcome, done: number, total: number) => void;
}

/** The cases of a sweep, seed-major so that a cut-short sweep has every cell partly filled. */
export function sweepCases(s: CanarySweep): CanaryCase[] {
  const builds = [...(s.baseline === false ? [] : [NO_CANARY]), ...s.canaries.map((c) => c.name)];
  const cases: CanaryCase[] = [];
  for (const seed of s.seeds)
    for (const canary of builds)
      for (const scenario of s.scenarios) cases.push({ scenario, canary, seed });
  return cases;
}

export async function runCanarySweep(s: CanarySweep, o: SweepOptions): Promise<CanaryOutcome[]> {
  const cases = sweepCases(s);
  const outcomes: CanaryOutcome[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < cases.length) {
      const c = cases[next++] as CanaryCase;
      const outcome = await o.execute(c);
      outcomes.push(outcome);
      o.onOutcome?.(outcome, outcomes.length, cases.length);
    }
  };
  const jobs = Math.max(1, Math.min(o.jobs ?? 1, cases.length));
  await Promise.all(Array.from({ length: jobs }, lane));
  return outcomes;
}
