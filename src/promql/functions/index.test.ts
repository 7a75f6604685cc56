// The library against the parser's function table: every function the parser accepts is
// implemented here or explicitly left to the engine, nothing here is unknown to the parser,
// and the range-vector classification matches the signatures.
import { describe, expect, it } from 'vitest';
import { FUNCTIONS as SIGNATURES } from '../parser/index.js';
import { FUNCTIONS, NOT_IN_FUNCTION_LIBRARY, isRangeFunction, keepsMetricName } from './index.js';

describe('function table coverage', () => {
  it('implements every parser function or names who handles it', () => {
    const missing = [...SIGNATURES.keys()].filter(
      (n) => !FUNCTIONS.has(n) && !NOT_IN_FUNCTION_LIBRARY.has(n),
    );
    expect(missing).toEqual([]);
  });

  it('has no function the parser does not know', () => {
    expect([...FUNCTIONS.keys()].filter((n) => !SIGNATURES.has(n))).toEqual([]);
    expect([...NOT_IN_FUNCTION_LIBRARY.keys()].filter((n) => FUNCTIONS.has(n))).toEqual([]);
  });

  it('classifies range-vector functions like their signatures', () => {
    for (const [name, sig] of SIGNATURES) {
      if (!FUNCTIONS.has(name)) continue;
      expect(isRangeFunction(name), name).toBe(sig.argTypes.includes('matrix'));
    }
  });

  it('does not include holt_winters, which Prometheus 3 renamed', () => {
    expect(FUNCTIONS.has('holt_winters')).toBe(false);
    expect(FUNCTIONS.has('double_exponential_smoothing')).toBe(true);
    expect(keepsMetricName('last_over_time')).toBe(true);
    expect(keepsMetricName('max_over_time')).toBe(false);
  });
});
