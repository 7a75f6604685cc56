import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { Annotations } from '../annotations.js';
import {
  annotationText,
  checkAnnotations,
  checkExpectedFailure,
  compareResult,
} from './compare.js';
import { parseKnownFailures } from './known_failures.js';
import type { CaseResult } from './runner.js';
import { parseScript } from './script_parser.js';
import type { EvalCmd } from './script_types.js';
import { summarize } from './summary.js';

function evalCmd(script: string): EvalCmd {
  return parseScript('c.test', script)[0] as EvalCmd;
}

describe('compareResult', () => {
  const labels = Labels.fromObject({ a: '1' });

  it('rejects a matrix for an ordered case and an unsorted matrix', () => {
    const ordered = evalCmd('eval range from 0 to 0 step 1m x\n  expect ordered\n  {a="1"} 1\n');
    expect(compareResult(ordered, { type: 'matrix', matrix: [] })).toBe(
      'expected ordered result, but query returned a matrix',
    );
    const cmd = evalCmd('eval range from 0 to 0 step 1m x\n  {a="1"} 1\n  {a="2"} 1\n');
    const unsorted = compareResult(cmd, {
      type: 'matrix',
      matrix: [
        { metric: Labels.fromObject({ a: '2' }), floats: [{ t: 0, f: 1 }] },
        { metric: labels, floats: [{ t: 0, f: 1 }] },
      ],
    });
    expect(unsorted).toContain('matrix results should always be sorted by labels');
  });

  it('checks point timestamps', () => {
    const cmd = evalCmd('eval range from 0 to 2m step 1m x\n  {a="1"} 1 2\n');
    const diff = compareResult(cmd, {
      type: 'matrix',
      matrix: [
        {
          metric: labels,
          floats: [
            { t: 0, f: 1 },
            { t: 120_000, f: 2 },
          ],
        },
      ],
    });
    expect(diff).toContain('to have timestamp 60000, but it had timestamp 120000');
  });

  it('rejects a type mismatch', () => {
    const scalar = evalCmd('eval instant at 0 x\n  1\n');
    expect(compareResult(scalar, { type: 'vector', vector: [] })).toBe(
      'expected scalar result, but got vector',
    );
    const vector = evalCmd('eval instant at 0 x\n  {a="1"} 1\n');
    expect(compareResult(vector, { type: 'scalar', scalar: { t: 0, v: 1 } })).toContain(
      'expected vector or matrix result',
    );
  });

  it('ignores sample timestamps of instant vectors, as Prometheus does', () => {
    const cmd = evalCmd('eval instant at 0 x\n  {a="1"} 1\n');
    expect(
      compareResult(cmd, { type: 'vector', vector: [{ metric: labels, t: 999, f: 1 }] }),
    ).toBeUndefined();
  });
});

describe('checkAnnotations and checkExpectedFailure', () => {
  it('matches every expected annotation and rejects unexpected ones of that type', () => {
    const cmd = evalCmd('eval instant at 0 x\n  expect info msg: PromQL info: a\n');
    const annos = new Annotations();
    annos.add('info', 'PromQL info: a');
    expect(checkAnnotations(cmd, 'x', annos)).toBeUndefined();
    annos.add('info', 'PromQL info: b');
    expect(checkAnnotations(cmd, 'x', annos)).toContain(
      'unexpected info annotation "PromQL info: b"',
    );
    // Warnings are not checked when only infos are expected.
    const w = new Annotations();
    w.add('info', 'PromQL info: a');
    w.add('warning', 'PromQL warning: w');
    expect(checkAnnotations(cmd, 'x', w)).toBeUndefined();
  });

  it('compares annotation texts without the query position the API adds', () => {
    const cmd = evalCmd(
      'eval instant at 0 x\n  expect warn msg: PromQL warning: quantile value should be between 0 and 1, got NaN\n',
    );
    const annos = new Annotations();
    annos.add(
      'warning',
      'PromQL warning: quantile value should be between 0 and 1, got NaN (1:25)',
    );
    expect(checkAnnotations(cmd, 'x', annos)).toBeUndefined();
    expect(annotationText('PromQL info: x (12:3)')).toBe('PromQL info: x');
    expect(annotationText('PromQL info: (a) b')).toBe('PromQL info: (a) b');
  });

  it('checks no_info', () => {
    const cmd = evalCmd('eval instant at 0 x\n  expect no_info\n');
    const annos = new Annotations();
    expect(checkAnnotations(cmd, 'x', annos)).toBeUndefined();
    annos.add('info', 'PromQL info: a');
    expect(checkAnnotations(cmd, 'x', annos)).toContain('unexpected info annotations');
  });

  it('accepts any error without a message and checks messages exactly', () => {
    expect(
      checkExpectedFailure(evalCmd('eval instant at 0 x\n  expect fail\n'), 'anything'),
    ).toBeUndefined();
    const msg = evalCmd('eval instant at 0 x\n  expect fail msg: exact text\n');
    expect(checkExpectedFailure(msg, 'exact text')).toBeUndefined();
    expect(checkExpectedFailure(msg, 'exact text!')).toContain(
      'expected error matching "exact text"',
    );
    expect(checkExpectedFailure(evalCmd('eval instant at 0 x\n'), 'oops')).toContain(
      'error evaluating query "x" (line 1): oops',
    );
  });
});

describe('known failures and summaries', () => {
  it('parses file:line entries with reasons and rejects entries without', () => {
    expect(parseKnownFailures('# header\n\nfunctions.test:12  # rate extrapolation\n')).toEqual([
      { file: 'functions.test', line: 12, why: 'rate extrapolation' },
    ]);
    expect(() => parseKnownFailures('functions.test:12\n')).toThrow(/needs a "# why" comment/);
    expect(() => parseKnownFailures('functions:12 # x\n')).toThrow(
      /expected "<file>.test:<line> # why"/,
    );
  });

  it('counts per status, file and skip reason', () => {
    const r = (file: string, status: CaseResult['status'], reason = ''): CaseResult => ({
      file,
      line: 1,
      expr: 'x',
      status,
      reason,
    });
    const s = summarize([
      r('a', 'passed'),
      r('a', 'failed', 'x'),
      r('b', 'skipped', 'h'),
      r('b', 'skipped', 'h'),
      r('b', 'skipped', 'd'),
    ]);
    expect([s.passed, s.failed, s.skipped]).toEqual([1, 1, 3]);
    expect(s.perFile.get('a')).toEqual([1, 1, 0]);
    expect(s.skipReasons).toEqual([
      ['h', 2],
      ['d', 1],
    ]);
  });
});
