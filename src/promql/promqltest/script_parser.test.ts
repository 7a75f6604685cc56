import { describe, expect, it } from 'vitest';
import { parseGoNumber, parseScript } from './script_parser.js';
import { ScriptError, type EvalCmd, type LoadCmd } from './script_types.js';

function only<T>(cmds: unknown[], kind: string): T {
  const found = cmds.filter((c) => (c as { kind: string }).kind === kind);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

function scriptError(text: string): ScriptError {
  try {
    parseScript('x.test', text);
  } catch (e) {
    expect(e).toBeInstanceOf(ScriptError);
    return e as ScriptError;
  }
  throw new Error('expected a ScriptError');
}

describe('parseScript: load and clear', () => {
  it('reads a load block until the blank line, with its interval', () => {
    const cmds = parseScript(
      'a.test',
      `# comment
load 5m
  http_requests{job="api"} 0+10x2
  other 1 _ 3

clear
`,
    );
    expect(cmds.map((c) => c.kind)).toEqual(['load', 'clear']);
    const load = cmds[0] as LoadCmd;
    expect(load.line).toBe(2);
    expect(load.intervalMs).toBe(300_000);
    expect(load.withNhcb).toBe(false);
    expect(load.series.map((s) => s.line)).toEqual([3, 4]);
    expect(cmds[1]).toEqual({ kind: 'clear', line: 6 });
  });

  it('ends a block at a comment line, as Prometheus does', () => {
    const cmds = parseScript('a.test', 'load 1m\n  a 1\n# c\n  eval instant at 0 a\n');
    expect(cmds.map((c) => c.kind)).toEqual(['load', 'eval']);
  });

  it('reads load_with_nhcb', () => {
    const load = only<LoadCmd>(
      parseScript('a.test', 'load_with_nhcb 1m\n  h_bucket{le="1"} 1\n'),
      'load',
    );
    expect(load.withNhcb).toBe(true);
  });

  it('lets a later line for the same series replace an earlier one', () => {
    const load = only<LoadCmd>(parseScript('a.test', 'load 1m\n  a 1\n  a 2 3\n'), 'load');
    expect(load.series).toHaveLength(1);
    expect(load.series[0]?.values).toHaveLength(2);
  });

  it('reads @st lines for one series and as a default', () => {
    const load = only<LoadCmd>(
      parseScript('a.test', 'load 1m\n  c{t="a"}@st _ -30s\n  c{t="a"} _ 1\n  c{t="b"} 1 2\n'),
      'load',
    );
    expect(load.startTimestampSeries.map((l) => l.toString())).toEqual(['{__name__="c", t="a"}']);
    expect(load.defaultStartTimestamps).toBe(false);
    const def = only<LoadCmd>(parseScript('a.test', 'load 1m\n  @st -1m\n  c 1\n'), 'load');
    expect(def.defaultStartTimestamps).toBe(true);
  });

  it('rejects bad loads with file and line', () => {
    expect(scriptError('\nload\n').message).toMatch(/^x\.test:2: invalid load command/);
    expect(scriptError('load 5x\n a 1\n').message).toMatch(
      /^x\.test:1: invalid step definition "5x"/,
    );
    expect(scriptError('load 1m\n  a 1\n  b{ 1\n').message).toMatch(/^x\.test:3: 1:4: parse error/);
    expect(scriptError('load 1m\n  a@st 1m\n').message).toMatch(
      /^x\.test:2: @st line has no following sample line/,
    );
    expect(scriptError('load 1m\n  a@st 1m\n  b 1\n').message).toMatch(/does not match/);
    expect(scriptError('bogus 1\n').message).toBe('x.test:1: invalid command "bogus 1"');
  });
});

describe('parseScript: eval', () => {
  it('reads an instant eval with expected series and positions', () => {
    const ev = only<EvalCmd>(
      parseScript('a.test', 'eval instant at 50m sum by (job) (x)\n  {job="a"} 1\n  {job="b"} 2\n'),
      'eval',
    );
    expect(ev.isRange).toBe(false);
    expect(ev.evalTime).toBe(3_000_000);
    expect(ev.expr).toBe('sum by (job) (x)');
    expect(ev.line).toBe(1);
    expect([...ev.expected.values()].map((e) => e.pos)).toEqual([1, 2]);
  });

  it('reads a range eval with xN expansions', () => {
    const ev = only<EvalCmd>(
      parseScript(
        'a.test',
        'eval range from 0 to 10m step 5m rate(x[5m])\n  {a="b"} 1+1x2\n  {a="c"} _ 1 2\n',
      ),
      'eval',
    );
    expect(ev).toMatchObject({ isRange: true, start: 0, end: 600_000, step: 300_000 });
    expect(ev.expected.get('{a="b"}')?.values).toHaveLength(3);
  });

  it('reads a scalar result and stops the block there', () => {
    const ev = only<EvalCmd>(parseScript('a.test', 'eval instant at 0 1 + 1\n  2\n'), 'eval');
    expect(ev.expectScalar).toBe(true);
    expect(ev.expected.get('')?.values).toEqual([{ kind: 'float', value: 2 }]);
  });

  it('reads every expect line', () => {
    const ev = only<EvalCmd>(
      parseScript(
        'a.test',
        [
          'eval instant at 1m foo',
          '  expect ordered',
          '  expect warn msg: PromQL warning: something',
          '  expect info regex: might not be',
          '  expect fail',
          '  {a="1"} 1',
          '  {a="2"} 2',
        ].join('\n'),
      ),
      'eval',
    );
    expect(ev.expects.ordered).toHaveLength(1);
    expect(ev.expects.warn[0]?.message).toBe('PromQL warning: something');
    expect(ev.expects.info[0]?.regex?.test('metric might not be a counter')).toBe(true);
    expect(ev.expects.fail[0]?.regex?.test('anything')).toBe(true);
    // expect lines do not count as result positions.
    expect([...ev.expected.values()].map((e) => e.pos)).toEqual([1, 2]);
  });

  it('reads no_warn and no_info', () => {
    const ev = only<EvalCmd>(
      parseScript('a.test', 'eval instant at 1m foo\n  expect no_warn\n  expect no_info\n'),
      'eval',
    );
    expect(ev.expects.no_warn).toHaveLength(1);
    expect(ev.expects.no_info).toHaveLength(1);
  });

  it('reads the older eval_fail, eval_warn, eval_info and eval_ordered forms', () => {
    const cmds = parseScript(
      'a.test',
      [
        'eval_fail instant at 0 a',
        '  expected_fail_message vector cannot contain metrics with the same labelset',
        '',
        'eval_fail instant at 0 b',
        '  expected_fail_regexp (bad|worse)',
        '',
        'eval_warn instant at 0 c',
        '',
        'eval_info range from 0 to 1m step 1m d',
        '',
        'eval_ordered instant at 0 e',
      ].join('\n'),
    ) as EvalCmd[];
    expect(cmds[0]).toMatchObject({
      fail: true,
      expectedFailMessage: 'vector cannot contain metrics with the same labelset',
    });
    expect(cmds[1]?.expectedFailRegexp?.test('worse')).toBe(true);
    expect(cmds[2]).toMatchObject({ warn: true });
    expect(cmds[3]).toMatchObject({ info: true, isRange: true });
    expect(cmds[4]).toMatchObject({ ordered: true });
  });

  it('reads expect string (Go quoting) and excludes it from range mode', () => {
    const ev = only<EvalCmd>(
      parseScript('a.test', 'eval instant at 0 "Foo"\n  expect string " Fo\\"o "\n'),
      'eval',
    );
    expect(ev.expectedString).toBe(' Fo"o ');
    expect(ev.excludeFromRangeQuery).toBe(true);
    const raw = only<EvalCmd>(
      parseScript('a.test', 'eval instant at 0 `Foo`\n  expect string `Foo`\n'),
      'eval',
    );
    expect(raw.expectedString).toBe('Foo');
  });

  it('reads expect range vector for an instant query', () => {
    const ev = only<EvalCmd>(
      parseScript(
        'a.test',
        'eval instant at 1m foo[1m]\n  expect range vector from 10s to 1m step 10s\n  foo 1 2 3 4 5 6\n',
      ),
      'eval',
    );
    expect(ev).toMatchObject({
      start: 10_000,
      end: 60_000,
      step: 10_000,
      evalTime: 60_000,
      excludeFromRangeQuery: true,
    });
  });

  it('parses Go numbers for scalar results', () => {
    expect(parseGoNumber('0x10')).toBe(16);
    expect(parseGoNumber('010')).toBe(8);
    expect(parseGoNumber('-1.5e3')).toBe(-1500);
    expect(parseGoNumber('+Inf')).toBe(Infinity);
    expect(parseGoNumber('-inf')).toBe(-Infinity);
    expect(Number.isNaN(parseGoNumber('NaN'))).toBe(true);
    expect(parseGoNumber('{} 1')).toBeUndefined();
    expect(parseGoNumber('foo')).toBeUndefined();
  });

  it('rejects bad evals with file and line', () => {
    expect(scriptError('eval instant 0 foo\n').message).toMatch(
      /^x\.test:1: invalid evaluation command/,
    );
    expect(scriptError('eval instant at 5x foo\n').message).toMatch(
      /invalid timestamp definition "5x"/,
    );
    expect(scriptError('eval range from 1m to 0 step 1m foo\n').message).toMatch(
      /end timestamp \(0\) is before start timestamp \(1m\)/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect bogus\n').message).toMatch(
      /^x\.test:2: .*invalid expect statement/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect warn\n  expect no_warn\n').message).toMatch(
      /warn and no_warn cannot be used together/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect info\n  expect no_info\n').message).toMatch(
      /info and no_info/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect fail\n  expect fail\n').message).toMatch(
      /multiple expect fail/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect fail regex: (\n').message).toMatch(
      /invalid regex \( for fail/,
    );
    expect(scriptError('eval instant at 0 foo\n  foo 1 2\n').message).toMatch(
      /^x\.test:2: .*expecting multiple values in instant evaluation not allowed/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect string\n').message).toMatch(
      /a quoted string literal is required/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect string "x\n').message).toMatch(
      /correctly quoted/,
    );
    expect(scriptError('eval instant at 0 foo\n  expect range vector from 1m\n').message).toMatch(
      /invalid range vector definition/,
    );
  });
});
