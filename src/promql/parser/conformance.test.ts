// Every expression evaluated by Prometheus's own PromQL test scripts must parse, unless the
// script expects the evaluation to fail. Scripts for feature-gated syntax are left out
// (duration expressions, anchored/smoothed range selectors, binop fill modifiers, start
// timestamps); native-histogram trim operators (`>/`, `</`) are rejected by design.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExpr } from './index.js';

const DIR = join(import.meta.dirname, '../../../../shared/conformance/promql-testdata');
const FEATURE_GATED = new Set([
  'duration_expression.test',
  'extended_vectors.test',
  'fill-modifier.test',
  'start_timestamps.test',
]);
const TRIM_OPERATOR = /[<>]\//;
const EVAL =
  /^(eval(?:_fail|_ordered|_warn|_info)?)\s+(?:instant\s+at\s+\S+|range\s+from\s+\S+\s+to\s+\S+\s+step\s+\S+)\s+(.*)$/;

interface Case {
  readonly line: number;
  readonly expr: string;
  readonly expectFail: boolean;
}

function casesOf(text: string): Case[] {
  const lines = text.split('\n');
  const out: Case[] = [];
  lines.forEach((raw, i) => {
    const m = EVAL.exec(raw.trim());
    if (m === null) return;
    let expectFail = m[1] === 'eval_fail';
    for (let j = i + 1; j < lines.length; j++) {
      const next = (lines[j] as string).trim();
      if (next === '' || next.startsWith('eval') || next.startsWith('load') || next === 'clear')
        break;
      if (next.startsWith('expect fail') || next.startsWith('expected_fail')) expectFail = true;
    }
    out.push({ line: i + 1, expr: m[2] as string, expectFail });
  });
  return out;
}

const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.test') && !FEATURE_GATED.has(f))
  .sort();

describe('conformance scripts parse', () => {
  it('finds the scripts', () => {
    expect(files.length).toBeGreaterThan(15);
  });
  for (const file of files) {
    it(file, () => {
      const failures: string[] = [];
      let parsed = 0;
      for (const c of casesOf(readFileSync(join(DIR, file), 'utf8'))) {
        if (c.expectFail || TRIM_OPERATOR.test(c.expr)) continue;
        try {
          parseExpr(c.expr);
          parsed++;
        } catch (e) {
          failures.push(`${file}:${c.line}: ${c.expr}: ${(e as Error).message}`);
        }
      }
      expect(failures).toEqual([]);
      expect(parsed).toBeGreaterThan(0);
    });
  }
});
