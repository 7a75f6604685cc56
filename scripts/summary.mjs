// The summary line `npm test` ends with, counted from vitest's JSON results.

/**
 * `N passed, M failed[, K skipped]` and whether the run is green. A file that fails outside
 * its tests (it does not load, or a beforeAll/afterAll hook throws, and its tests are then
 * reported skipped) has no failed test of its own: each such file counts as one failure, so
 * a broken file can never look like a smaller green run.
 */
export function summarize(results) {
  const passed = results.numPassedTests ?? 0;
  const failedFiles = (results.testResults ?? []).filter(
    (s) => s.status === 'failed' && !(s.assertionResults ?? []).some((t) => t.status === 'failed'),
  ).length;
  const failed = (results.numFailedTests ?? 0) + failedFiles;
  const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
  let line = `${passed} passed, ${failed} failed`;
  if (skipped > 0) line += `, ${skipped} skipped`;
  return { line, green: failed === 0 && passed > 0 };
}
