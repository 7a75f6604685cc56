// Counting and printing conformance results: the per-failure and per-skip lines the CLI
// prints and the closing `N passed, M failed, K skipped` line.
import type { CaseResult } from './runner.js';

export interface ConformanceSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  /** Per file: [passed, failed, skipped]. */
  readonly perFile: Map<string, [number, number, number]>;
  /** Skip reasons with their counts, most frequent first. */
  readonly skipReasons: [string, number][];
}

export function summarize(results: readonly CaseResult[]): ConformanceSummary {
  const perFile = new Map<string, [number, number, number]>();
  const reasons = new Map<string, number>();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const r of results) {
    let counts = perFile.get(r.file);
    if (counts === undefined) {
      counts = [0, 0, 0];
      perFile.set(r.file, counts);
    }
    if (r.status === 'passed') {
      passed++;
      counts[0]++;
    } else if (r.status === 'failed') {
      failed++;
      counts[1]++;
    } else {
      skipped++;
      counts[2]++;
      reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
    }
  }
  const skipReasons = [...reasons].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return { passed, failed, skipped, perFile, skipReasons };
}
