import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without type declarations
import { summarize } from './summary.mjs';

type Summary = { line: string; green: boolean };
const sum = summarize as (results: unknown) => Summary;

describe('the npm test summary line', () => {
  const base = { numPassedTests: 5, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 };

  it('counts passed, failed and skipped tests', () => {
    expect(sum({ ...base, testResults: [{ status: 'passed', assertionResults: [] }] })).toEqual({
      line: '5 passed, 0 failed',
      green: true,
    });
    expect(sum({ ...base, numFailedTests: 2, numPendingTests: 1 })).toEqual({
      line: '5 passed, 2 failed, 1 skipped',
      green: false,
    });
    expect(sum({ numPassedTests: 0 }).green).toBe(false);
  });

  it('counts a file that failed outside its tests: not loaded, or a hook threw', () => {
    const results = {
      ...base,
      numPendingTests: 2,
      testResults: [
        { status: 'failed', assertionResults: [] },
        {
          status: 'failed',
          assertionResults: [{ status: 'skipped' }, { status: 'skipped' }],
        },
        // A file whose failure is one of its tests: that test is already counted.
        { status: 'failed', assertionResults: [{ status: 'failed' }, { status: 'passed' }] },
      ],
    };
    expect(sum({ ...results, numFailedTests: 1 })).toEqual({
      line: '5 passed, 3 failed, 2 skipped',
      green: false,
    });
  });
});
