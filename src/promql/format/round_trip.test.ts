// The round-trip property parse(print(parse(s))) == parse(s), for both the one-line printer
// and the prettifier, over every parseable expression of Prometheus's conformance scripts
// and over generated expressions.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { children, parseExpr, type Expr } from '../parser/index.js';
import { exprToString, prettify } from './index.js';

/**
 * The tree without positions and with matchers as sorted plain tuples: what "the same
 * expression" means (the printer sorts matchers, so their order is not preserved).
 */
function shape(expr: Expr): unknown {
  return JSON.parse(
    JSON.stringify(expr, (key, value: unknown) => {
      if (key === 'posRange' || key === 'endPos' || key === 'startPos') return undefined;
      if (typeof value === 'number' && !Number.isFinite(value)) return `num:${String(value)}`;
      if (typeof value === 'number' && Object.is(value, -0)) return 'num:-0';
      if (key === 'labelMatchers') {
        return (value as { type: string; name: string; value: string }[])
          .map((m) => JSON.stringify([m.type, m.name, m.value]))
          .sort();
      }
      return value;
    }),
  );
}

/**
 * Prometheus prints positive infinity as `+Inf`, so `Inf ^ x` prints as `+Inf ^ x`, which
 * parses back as `+(Inf ^ x)` (unary plus binds looser than `^`). Prometheus's own printer
 * has this defect; we reproduce its text, so such trees are exempt from the round trip.
 */
function hasPlusInfPowerBase(expr: Expr): boolean {
  if (expr.type === 'BinaryExpr' && expr.op === '^') {
    let leftmost: Expr = expr.lhs;
    while (leftmost.type === 'BinaryExpr') leftmost = leftmost.lhs;
    if (leftmost.type === 'NumberLiteral' && leftmost.val === Infinity) return true;
  }
  return children(expr).some(hasPlusInfPowerBase);
}

function expectRoundTrip(input: string): void {
  const first = parseExpr(input);
  if (hasPlusInfPowerBase(first)) return;
  const printed = exprToString(first);
  // A string holding invalid UTF-8 (`"\\xff"`) reaches the tree as U+FFFD, which Go's
  // quoting prints as is and the lexer then rejects, as Prometheus's does for its own
  // output of a `"\\ufffd"` literal; such trees cannot round-trip.
  if (printed.includes('\ufffd')) return;
  const again = parseExpr(printed);
  expect(shape(again), `${input} printed as ${printed}`).toEqual(shape(first));
  // Printing is a normal form.
  expect(exprToString(again)).toBe(printed);
  // The prettified text parses back to the same tree too.
  const pretty = prettify(first);
  expect(shape(parseExpr(pretty)), `${input} prettified as ${pretty}`).toEqual(shape(first));
}

const TESTDATA = join(import.meta.dirname, '../../../../shared/conformance/promql-testdata');
const EVAL_LINE =
  /^\s*eval\S*\s+(?:instant\s+at\s+\S+|range\s+from\s+\S+\s+to\s+\S+\s+step\s+\S+)\s+(.*)$/;

function conformanceExpressions(): string[] {
  const out: string[] = [];
  for (const file of readdirSync(TESTDATA)
    .filter((f) => f.endsWith('.test'))
    .sort()) {
    for (const line of readFileSync(join(TESTDATA, file), 'utf8').split('\n')) {
      const m = EVAL_LINE.exec(line);
      if (m?.[1] !== undefined) out.push(m[1].trim());
    }
  }
  return out;
}

function tryParse(input: string): Expr | undefined {
  try {
    return parseExpr(input);
  } catch {
    return undefined;
  }
}

describe('round trip: parse(print(parse(s))) equals parse(s)', () => {
  it('holds for every parseable expression of the conformance scripts', () => {
    const all = conformanceExpressions();
    const parseable = all.filter((e) => tryParse(e) !== undefined);
    // Most expressions are ordinary PromQL; the rest use feature-gated syntax or are
    // expected to fail.
    expect(all.length).toBeGreaterThan(2000);
    expect(parseable.length).toBeGreaterThan(1700);
    for (const input of parseable) expectRoundTrip(input);
  });

  const metric = fc.constantFrom('up', 'foo', 'http_requests_total', 'a:b:c', 'on', 'sum', 'start');
  const label = fc.constantFrom('job', 'instance', 'le', 'a.b', 'x y', 'é', '__name__');
  const quotedLabel = label.map((l) => (/^[a-zA-Z_]\w*$/.test(l) ? l : JSON.stringify(l)));
  const value = fc.string({
    maxLength: 6,
    unit: fc.constantFrom('a', 'Z', '"', '\\', '\n', 'é', '😀', '.', '*', ' '),
  });
  const matcher = fc
    .tuple(quotedLabel, fc.constantFrom('=', '!=', '=~', '!~'), value)
    .filter(([, op, v]) => !op.includes('~') || !/[*\\]/.test(v))
    .map(([l, op, v]) => `${l}${op}${JSON.stringify(v)}`);
  const duration = fc.constantFrom(
    '1ms',
    '30s',
    '5m',
    '90m',
    '1h30m',
    '1d',
    '2w',
    '1y',
    '100',
    '0.5',
  );
  const modifiers = fc
    .tuple(
      fc.option(fc.constantFrom('offset 5m', 'offset -1h', 'offset 0s')),
      fc.option(fc.constantFrom('@ 100', '@ 1.5', '@ -3', '@ start()', '@ end()')),
      fc.boolean(),
    )
    .map(([o, a, swap]) => (swap ? [a, o] : [o, a]).filter((x) => x !== null).join(' '));
  const selector = fc
    .tuple(metric, fc.option(fc.array(matcher, { maxLength: 3 })))
    .map(([m, ms]) => (ms === null ? m : `${m}{${ms.join(', ')}}`));
  const number = fc.constantFrom(
    '1',
    '0.25',
    '1e3',
    '0x1f',
    'Inf',
    '-Inf',
    'NaN',
    '.5',
    '1e-9',
    '123456789012345678901',
  );

  const { vector } = fc.letrec<{ vector: string; scalar: string }>((tie) => ({
    vector: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.tuple(selector, modifiers).map(([s, m]) => `${s} ${m}`),
      fc
        .tuple(fc.constantFrom('rate', 'max_over_time', 'changes'), selector, duration, modifiers)
        .map(([f, s, d, m]) => `${f}(${s}[${d}] ${m})`),
      fc
        .tuple(
          fc.constantFrom('sum', 'avg', 'count', 'max', 'group', 'stddev'),
          fc.option(
            fc.tuple(fc.constantFrom('by', 'without'), fc.array(quotedLabel, { maxLength: 2 })),
          ),
          fc.boolean(),
          tie('vector'),
        )
        .map(([op, g, after, v]) => {
          const grouping = g === null ? '' : `${g[0]} (${g[1].join(', ')})`;
          return after ? `${op}(${v}) ${grouping}` : `${op} ${grouping} (${v})`;
        }),
      fc
        .tuple(
          fc.constantFrom('topk', 'bottomk', 'quantile', 'limitk', 'limit_ratio'),
          tie('scalar'),
          tie('vector'),
        )
        .map(([op, p, v]) => `${op}(${p}, ${v})`),
      fc.tuple(tie('vector')).map(([v]) => `count_values("val", ${v})`),
      fc
        .tuple(
          tie('vector'),
          fc.constantFrom('+', '-', '*', '/', '%', '^', 'atan2', '==', '!=', '>', '<', '>=', '<='),
          fc.boolean(),
          fc.option(
            fc.tuple(
              fc.constantFrom('on', 'ignoring'),
              fc.constantFrom('(job)', '()', '(instance, "a.b")'),
            ),
          ),
          fc.option(fc.constantFrom('group_left', 'group_right', 'group_left (le)')),
          tie('vector'),
        )
        .map(([l, op, b, on, grp, r]) => {
          const isCmp = ['==', '!=', '>', '<', '>=', '<='].includes(op);
          const mod = on === null ? '' : ` ${on[0]} ${on[1]}${grp === null ? '' : ` ${grp}`}`;
          return `${l} ${op}${isCmp && b ? ' bool' : ''}${mod} ${r}`;
        }),
      fc
        .tuple(
          tie('vector'),
          fc.constantFrom('and', 'or', 'unless'),
          fc.option(fc.constantFrom('on (job)', 'ignoring (le)')),
          tie('vector'),
        )
        .map(([l, op, mod, r]) => `${l} ${op}${mod === null ? '' : ` ${mod}`} ${r}`),
      fc
        .tuple(
          tie('vector'),
          fc.constantFrom('+', '*', '>', '== bool', '^'),
          tie('scalar'),
          fc.boolean(),
        )
        .map(([v, op, s, flip]) => (flip ? `${s} ${op} ${v}` : `${v} ${op} ${s}`)),
      tie('vector').map((v) => `(${v})`),
      tie('vector').map((v) => `-${v}`),
      fc
        .tuple(tie('vector'), duration, fc.option(duration), modifiers)
        .map(([v, r, s, m]) => `max_over_time((${v})[${r}:${s ?? ''}] ${m})`),
      fc.tuple(tie('vector')).map(([v]) => `label_replace(${v}, "dst", "$1", "src", "(.*)")`),
      fc.tuple(tie('scalar'), tie('vector')).map(([s, v]) => `histogram_quantile(${s}, ${v})`),
      tie('scalar').map((s) => `vector(${s})`),
    ),
    scalar: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      number,
      number.map((n) => `-${n}`),
      fc.constant('time()'),
      tie('vector').map((v) => `scalar(${v})`),
      fc
        .tuple(
          tie('scalar'),
          fc.constantFrom('+', '-', '*', '/', '^', '%', '== bool', '< bool'),
          tie('scalar'),
        )
        .map(([a, op, b]) => `${a} ${op} ${b}`),
      tie('scalar').map((s) => `(${s})`),
      tie('scalar').map((s) => `-(${s})`),
    ),
  }));

  it('holds for generated expressions', () => {
    let parsed = 0;
    fc.assert(
      fc.property(vector, (input) => {
        if (tryParse(input) === undefined) return;
        parsed++;
        expectRoundTrip(input);
      }),
      { numRuns: 500 },
    );
    // The generator is meant to produce mostly valid PromQL.
    expect(parsed).toBeGreaterThan(200);
  });
});
