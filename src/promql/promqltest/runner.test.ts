import { describe, expect, it } from 'vitest';
import { Matcher } from '../../model/index.js';
import type { Expr } from '../parser/index.js';
import { runScript, type CaseResult } from './runner.js';
import {
  SKIP_DURATION_EXPR,
  SKIP_EXTENDED_RANGE,
  SKIP_FILL,
  SKIP_HISTOGRAM_TRIM,
  SKIP_INFO,
  SKIP_NATIVE_HISTOGRAM_RESULT,
  SKIP_NATIVE_HISTOGRAMS,
  SKIP_NHCB,
  SKIP_START_TIMESTAMPS,
  SKIP_TYPE_AND_UNIT,
} from './skips.js';
import { FakeEngine, fakeParse, type FakeEngineOptions } from './testing/fake_engine.js';

async function run(
  script: string,
  opts: FakeEngineOptions = {},
  parse = fakeParse,
): Promise<CaseResult[]> {
  return runScript('t.test', script, { engine: new FakeEngine(opts), parseExpr: parse });
}

async function one(
  script: string,
  opts: FakeEngineOptions = {},
  parse = fakeParse,
): Promise<CaseResult> {
  const results = await run(script, opts, parse);
  expect(results).toHaveLength(1);
  return results[0] as CaseResult;
}

const LOAD = `load 1m
  m{a="1"} 1 2 3
  m{a="2"} 10 20 30
`;

describe('runScript: passing and failing cases', () => {
  it('passes matching instant and range results and reports the eval line', async () => {
    const results = await run(`${LOAD}
eval instant at 2m m
  m{a="1"} 3
  m{a="2"} 30

eval range from 0 to 2m step 1m m
  m{a="1"} 1 2 3
  m{a="2"} 10 20 30
`);
    expect(results.map((r) => [r.line, r.status, r.reason])).toEqual([
      [5, 'passed', ''],
      [9, 'passed', ''],
    ]);
    expect(results[0]?.expr).toBe('m');
  });

  it('fails a wrong value, a missing series and an unexpected series', async () => {
    const wrong = await one(`${LOAD}\neval instant at 2m m\n  m{a="1"} 3\n  m{a="2"} 31\n`);
    expect(wrong.status).toBe('failed');
    expect(wrong.reason).toContain('expected 31 for {__name__="m", a="2"} but got 30');
    const missing = await one(`${LOAD}\neval instant at 2m m{a="1"}\n  m{a="1"} 3\n  m{a="3"} 1\n`);
    expect(missing.reason).toContain('expected metric {__name__="m", a="3"} with [1] not found');
    const extra = await one(`${LOAD}\neval instant at 2m m\n  m{a="1"} 3\n`);
    expect(extra.reason).toContain(
      'unexpected metric {__name__="m", a="2"} in result, has value 30',
    );
  });

  it('accepts values within the relative epsilon and NaN for NaN', async () => {
    const ok = await one(`load 1m\n  m 1000000 NaN\n\neval instant at 0 m\n  m 1000000.5\n`);
    expect(ok.status).toBe('passed');
    const nan = await one(`load 1m\n  m 1 NaN\n\neval instant at 1m m\n  m NaN\n`);
    expect(nan.status).toBe('passed');
  });

  it('compares range results point by point, gaps included', async () => {
    const ok = await one(`load 1m\n  m 1 _ 3\n\neval range from 0 to 2m step 1m m\n  m 1 1 3\n`);
    expect(ok.status).toBe('passed');
    const gap = await one(`load 1m\n  m 1 _ 3\n\neval range from 0 to 2m step 1m m\n  m 1 _ 3\n`);
    expect(gap.status).toBe('failed');
    expect(gap.reason).toContain('expected 2 float points and 0 histogram points');
    const tooMany = await one(
      `load 1m\n  m 1 2 3\n\neval range from 0 to 1m step 1m m\n  m 1 2 3\n`,
    );
    expect(tooMany.reason).toContain('query time range cannot return this many points');
  });

  it('checks scalar and string results', async () => {
    expect((await one(`eval instant at 0 42\n  42\n`)).status).toBe('passed');
    expect((await one(`eval instant at 0 42\n  41\n`)).reason).toContain(
      'expected scalar 41 but got 42',
    );
    expect((await one(`eval instant at 0 "Foo"\n  expect string "Foo"\n`)).status).toBe('passed');
    expect((await one(`eval instant at 0 "Foo"\n  expect string "Bar"\n`)).reason).toContain(
      'expected string "Bar" but got "Foo"',
    );
  });

  it('checks a range vector result of an instant query with expect range vector', async () => {
    const ok = await one(
      `${LOAD}\neval instant at 2m m{a="1"}[2m]\n  expect range vector from 1m to 2m step 1m\n  m{a="1"} 2 3\n`,
    );
    expect(ok.status).toBe('passed');
    const without = await one(`${LOAD}\neval instant at 2m m{a="1"}[2m]\n  m{a="1"} 3\n`);
    expect(without.reason).toContain('cannot return this many points');
  });

  it('honours ordered only when asked', async () => {
    const script = `${LOAD}\neval instant at 2m m\n  m{a="1"} 3\n  m{a="2"} 30\n`;
    expect((await one(script, { reverse: true })).status).toBe('passed');
    const ordered = await one(script.replace('at 2m m\n', 'at 2m m\n  expect ordered\n'), {
      reverse: true,
    });
    expect(ordered.reason).toContain('with [30] at position 2 but was at 1');
    const legacy = await one(script.replace('eval instant', 'eval_ordered instant'), {
      reverse: true,
    });
    expect(legacy.status).toBe('failed');
  });
});

describe('runScript: failures and annotations', () => {
  it('passes expected failures and checks their messages', async () => {
    expect((await one(`eval instant at 0 boom\n  expect fail\n`)).status).toBe('passed');
    expect((await one(`eval instant at 0 boom\n  expect fail msg: boom happened\n`)).status).toBe(
      'passed',
    );
    expect((await one(`eval instant at 0 boom\n  expect fail regex: b.om\n`)).status).toBe(
      'passed',
    );
    const wrong = await one(`eval instant at 0 boom\n  expect fail msg: other\n`);
    expect(wrong.reason).toContain('expected error matching "other"');
    expect(
      (await one(`eval_fail instant at 0 boom\n  expected_fail_message boom happened\n`)).status,
    ).toBe('passed');
    expect(
      (await one(`eval_fail range from 0 to 1m step 1m boom\n  expected_fail_regexp ^boom\n`))
        .status,
    ).toBe('passed');
    const unexpected = await one(`eval instant at 0 boom\n`);
    expect(unexpected.reason).toContain('boom happened');
    const none = await one(`${LOAD}\neval instant at 0 m\n  expect fail\n`);
    expect(none.reason).toContain('but got none');
  });

  it('checks warnings', async () => {
    const load = 'load 1m\n  warnme 1\n\n';
    expect((await one(`${load}eval instant at 0 warnme\n  expect warn\n  warnme 1\n`)).status).toBe(
      'passed',
    );
    expect(
      (
        await one(
          `${load}eval instant at 0 warnme\n  expect warn msg: PromQL warning: fake warning\n  warnme 1\n`,
        )
      ).status,
    ).toBe('passed');
    const noWarn = await one(`${load}eval instant at 0 warnme\n  expect no_warn\n  warnme 1\n`);
    expect(noWarn.reason).toContain('unexpected warning annotations');
    const other = await one(
      `${load}eval instant at 0 warnme\n  expect warn msg: another\n  warnme 1\n`,
    );
    expect(other.reason).toContain('no matching annotation was found');
    const missing = await one(`${LOAD}\neval_warn instant at 0 m{a="1"}\n  m{a="1"} 1\n`);
    expect(missing.reason).toContain('expected warnings');
    const info = await one(`${LOAD}\neval instant at 0 m{a="1"}\n  expect info\n  m{a="1"} 1\n`);
    expect(info.reason).toContain('expected info annotations but none were found');
    // Without expect lines annotations are not checked (as in Prometheus).
    expect((await one(`${load}eval instant at 0 warnme\n  warnme 1\n`)).status).toBe('passed');
  });

  it('reports an engine crash as a failure even when a failure is expected', async () => {
    const r = await one(`eval instant at 0 crash\n  expect fail\n`);
    expect(r.status).toBe('failed');
    expect(r.reason).toContain('engine crashed: TypeError');
  });
});

describe('runScript: the extra instant-query checks', () => {
  it('runs @-pinned variants and the range-mode query', async () => {
    const engine = new FakeEngine();
    await runScript('t.test', `${LOAD}\neval instant at 2m m{a="1"}\n  m{a="1"} 3\n`, {
      engine,
      parseExpr: fakeParse,
    });
    const instants = engine.calls.filter((c) => c[0] === 'instant').map((c) => c[1]);
    expect(instants).toEqual([120_000, -1_200_000, 0, 24_000, 120_000, 1_200_000]);
    const ranges = engine.calls.filter((c) => c[0] === 'range');
    expect(ranges[0]).toEqual(['range', 60_000, 180_000]);
    expect(ranges).toHaveLength(6);
  });

  it('uses -1s, 0 and 1s as variant times at time 0', async () => {
    const engine = new FakeEngine();
    await runScript('t.test', `${LOAD}\neval instant at 0 m{a="1"}\n  m{a="1"} 1\n`, {
      engine,
      parseExpr: fakeParse,
    });
    expect(engine.calls.filter((c) => c[0] === 'instant').map((c) => c[1])).toEqual([
      0, -1000, 0, 1000,
    ]);
  });

  it('catches an engine that ignores @', async () => {
    const r = await one(`${LOAD}\neval instant at 2m m{a="1"}\n  m{a="1"} 3\n`, { ignoreAt: true });
    expect(r.status).toBe('failed');
    expect(r.reason).toContain('pinned to @ 120');
  });

  it('catches a range-mode disagreement', async () => {
    // The fake engine answers range queries with the same constant; break only range mode.
    const engine = new FakeEngine();
    const original = engine.rangeQuery.bind(engine);
    engine.rangeQuery = async (q, e, s, en, st) => {
      const res = await original(q, e, s, en, st);
      if (res.value.type === 'matrix')
        for (const series of res.value.matrix) series.floats.length = 0;
      return res;
    };
    const [r] = await runScript('t.test', `${LOAD}\neval instant at 2m m{a="1"}\n  m{a="1"} 3\n`, {
      engine,
      parseExpr: fakeParse,
    });
    expect(r?.reason).toContain('in range mode: expected metric');
  });
});

describe('runScript: skips', () => {
  it('runs cases over series with histogram samples: passed if right without them, else skipped', async () => {
    const results = await run(`load 1m
  h{k="hist"} {{schema:0 sum:1 count:1}}
  h{k="float"} 1
  f 1

eval instant at 0 h
  h{k="float"} 1

eval instant at 0 h
  h{k="float"} 1
  h{k="hist"} {{schema:0 sum:1 count:1}}

eval instant at 0 h
  h{k="float"} 2

eval instant at 0 f
  f 2
`);
    expect(results.map((r) => [r.status, r.reason])).toEqual([
      ['passed', ''],
      ['skipped', SKIP_NATIVE_HISTOGRAM_RESULT],
      ['skipped', SKIP_NATIVE_HISTOGRAMS],
      ['failed', 'instant query: expected 2 for {__name__="f"} but got 1'],
    ]);
    expect(results[2]?.detail).toBe(
      'instant query: expected 2 for {__name__="h", k="float"} but got 1',
    );
  });

  it('flags only the NHCB twin of a load_with_nhcb histogram, and forgets it after clear', async () => {
    const results = await run(`load_with_nhcb 1m
  lat_bucket{le="1"} 1
  lat_bucket{le="+Inf"} 2

eval instant at 0 lat
  lat 1

eval instant at 0 lat_bucket{le="1"}
  lat_bucket{le="1"} 2

clear

eval instant at 0 lat
  lat 1
`);
    expect(results.map((r) => [r.status, r.reason.slice(0, 20)])).toEqual([
      ['skipped', SKIP_NHCB.slice(0, 20)],
      ['failed', 'instant query: expec'],
      ['failed', 'instant query: expec'],
    ]);
    expect(results[0]?.reason).toBe(SKIP_NHCB);
  });

  it('flags series with start timestamps and type/unit labels', async () => {
    const results = await run(`load 1m
  c{t="st"}@st -30s
  c{t="st"} 1
  d{__type__="counter"} 1

eval instant at 0 c
  c{t="st"} 2

eval instant at 0 d
  d 1

eval instant at 0 d
  d{__type__="counter"} 1
`);
    expect(results.map((r) => [r.status, r.reason])).toEqual([
      ['skipped', SKIP_START_TIMESTAMPS],
      ['skipped', SKIP_TYPE_AND_UNIT],
      ['passed', ''],
    ]);
  });

  it('skips info() always and gated syntax only when the parser rejects it', async () => {
    expect((await one(`eval instant at 0 info(m)\n`)).reason).toBe(SKIP_INFO);
    const gated: [string, string][] = [
      ['rate(m[5m] anchored)', SKIP_EXTENDED_RANGE],
      ['a + fill(0) b', SKIP_FILL],
      ['changes(m[26m+4m])', SKIP_DURATION_EXPR],
      ['changes(m[1800])', SKIP_DURATION_EXPR],
      ['m offset (1m + 1m)', SKIP_DURATION_EXPR],
      ['count_over_time(m[step()])', SKIP_DURATION_EXPR],
    ];
    for (const [expr, reason] of gated) {
      const r = await one(`eval instant at 0 ${expr}\n`);
      expect([expr, r.status, r.reason]).toEqual([expr, 'skipped', reason]);
    }
    const always: [string, string][] = [
      ['start_timestamp(m)', SKIP_START_TIMESTAMPS],
      ['step()', SKIP_DURATION_EXPR],
      ['vector(range())', SKIP_DURATION_EXPR],
      ['end() - start()', SKIP_DURATION_EXPR],
      ['max_of(3, 5)', SKIP_DURATION_EXPR],
    ];
    for (const [expr, reason] of always) {
      // m is parseable by the fake parser: these are skipped before parsing.
      const r = await one(`eval instant at 0 ${expr}\n`, {}, () => fakeParse('m'));
      expect([expr, r.status, r.reason]).toEqual([expr, 'skipped', reason]);
    }
    expect((await one(`eval instant at 0 h </ 2\n`)).reason).toBe(SKIP_HISTOGRAM_TRIM);
    // `@ start()` / `@ end()` are standard PromQL, not duration expressions.
    const at = await one(`load 1m\n  m 1\n\neval instant at 0 m @ end()\n  m 1\n`, {}, () =>
      fakeParse('m'),
    );
    expect(at.status).not.toBe('skipped');
    const bug = await one(`eval instant at 0 sum(m)\n`);
    expect(bug.status).toBe('failed');
    expect(bug.reason).toContain('parse error (Prometheus accepts this expression)');
  });

  it('runs a gated-looking expression when the parser accepts it', async () => {
    const parse = (q: string): Expr =>
      q === 'anchored'
        ? {
            type: 'VectorSelector',
            name: 'anchored',
            labelMatchers: [Matcher.equal('__name__', 'anchored')],
            offset: 0,
            originalOffset: 0,
            posRange: { start: 0, end: 8 },
          }
        : fakeParse(q);
    const r = await one(
      `load 1m\n  anchored 1\n\neval instant at 0 anchored\n  anchored 1\n`,
      {},
      parse,
    );
    expect(r.status).toBe('passed');
  });
});

describe('runScript: malformed scripts', () => {
  it('reports one failed entry at the offending line', async () => {
    const results = await run(`${LOAD}\neval instant at 0 m\n  m{a="1"} 1\n\nnonsense here\n`);
    expect(results).toEqual([
      {
        file: 't.test',
        line: 8,
        expr: '',
        status: 'failed',
        reason: 'invalid script: invalid command "nonsense here"',
      },
    ]);
  });
});
