/**
 * The canary table: per canary and scenario, on how many seeds the scenario failed a check
 * (caught it), with the unbroken build's row for comparison (it must fail on none).
 */
import { CANARIES, NO_CANARY } from './registry.js';
import type { CanaryOutcome } from './run_case.js';

export interface CanaryCell {
  /** Seeds run to the end (0 and no errors: not applicable). */
  runs: number;
  /** Seeds whose run could not finish (not counted in `runs`). */
  errors: number;
  /** Seeds on which a check failed. */
  caught: number;
  /** The first failing seed and what failed, for the replay. */
  example?: { seed: number; failure: string };
}

export interface CanaryRow {
  canary: string;
  cells: Map<string, CanaryCell>;
}

export interface CanaryTable {
  scenarios: string[];
  /** The unbroken build first, then the canaries in registry order. */
  rows: CanaryRow[];
}

export function buildCanaryTable(
  outcomes: readonly CanaryOutcome[],
  scenarios: readonly string[],
): CanaryTable {
  const names = [NO_CANARY, ...CANARIES.map((c) => c.name)].filter((n) =>
    outcomes.some((o) => o.canary === n),
  );
  const rows = names.map((canary): CanaryRow => {
    const cells = new Map<string, CanaryCell>();
    for (const scenario of scenarios) {
      const all = outcomes.filter(
        (o) => o.canary === canary && o.scenario === scenario && o.applicable,
      );
      const mine = all.filter((o) => o.error === undefined).sort((a, b) => a.seed - b.seed);
      const failing = mine.find((o) => o.failed.length > 0);
      cells.set(scenario, {
        runs: mine.length,
        errors: all.length - mine.length,
        caught: mine.filter((o) => o.failed.length > 0).length,
        ...(failing === undefined
          ? {}
          : { example: { seed: failing.seed, failure: failing.firstFailure ?? '' } }),
      });
    }
    return { canary, cells };
  });
  return { scenarios: [...scenarios], rows };
}

/** Canaries no scenario caught on any seed (the target is none). */
export function uncaughtCanaries(table: CanaryTable): string[] {
  return table.rows
    .filter((r) => r.canary !== NO_CANARY)
    .filter((r) => ![...r.cells.values()].some((c) => c.caught > 0))
    .map((r) => r.canary);
}

/** Seeds on which the unbroken build failed (the target is zero). */
export function baselineFailures(table: CanaryTable): number {
  const base = table.rows.find((r) => r.canary === NO_CANARY);
  return base === undefined ? 0 : [...base.cells.values()].reduce((n, c) => n + c.caught, 0);
}

function cellText(c: CanaryCell | undefined): string {
  if (c === undefined || c.runs + c.errors === 0) return 'n/a';
  return `${c.caught}/${c.runs}${c.errors > 0 ? ` (${c.errors} errored)` : ''}`;
}

/** The table as Markdown (the form `docs/simulation.md` records). */
export function formatCanaryMarkdown(table: CanaryTable): string {
  const header = ['canary', ...table.scenarios, 'caught by'];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of table.rows) {
    const by = table.scenarios.filter((s) => (row.cells.get(s)?.caught ?? 0) > 0);
    const verdict =
      row.canary === NO_CANARY
        ? by.length === 0
          ? 'nothing (passes)'
          : `FAILS in ${by.join(', ')}`
        : by.length > 0
          ? `${by.length} scenario(s)`
          : [...row.cells.values()].every((c) => c.runs + c.errors === 0)
            ? 'NOT CAUGHT (no scenario hosts it)'
            : 'NOT CAUGHT';
    const name = row.canary === NO_CANARY ? 'none (unbroken build)' : `\`${row.canary}\``;
    lines.push(
      `| ${[name, ...table.scenarios.map((s) => cellText(row.cells.get(s))), verdict].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

/** One replay hint per caught cell: the first seed that caught it and what failed. */
export function formatCanaryExamples(table: CanaryTable): string[] {
  const out: string[] = [];
  for (const row of table.rows)
    for (const scenario of table.scenarios) {
      const ex = row.cells.get(scenario)?.example;
      if (ex === undefined) continue;
      const replay =
        row.canary === NO_CANARY
          ? `strata sim ${scenario} --seed ${ex.seed}`
          : `STRATA_SIM_CANARY=${row.canary} npm run sim:canaries -- --scenario ${scenario} --seed ${ex.seed}`;
      out.push(`${row.canary} x ${scenario}: seed ${ex.seed} (replay: ${replay}) ${ex.failure}`);
    }
  return out;
}
