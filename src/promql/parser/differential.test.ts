// Differential test of the grammar against @prometheus-io/lezer-promql, Prometheus's own
// editor grammar: generated expressions, valid ones and mutated ones, must be accepted or
// rejected by both. Lezer does no type checking, so only syntax is compared (our
// parseSyntaxOnly). Deliberate differences are listed in KNOWN_DIFFERENCES below.
import { parser as lezer } from '@prometheus-io/lezer-promql';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Expr } from './ast.js';
import { ParseError } from './errors.js';
import { parseSyntaxOnly } from './parser.js';
import { inspect } from './walk.js';

function lezerAccepts(q: string): boolean {
  const tree = lezer.parse(q);
  let ok = true;
  tree.iterate({
    enter: (n) => {
      if (n.type.isError) ok = false;
      return ok;
    },
  });
  return ok;
}

/**
 * Errors that Prometheus's grammar actions raise on syntactically well-formed input (lezer's
 * grammar has no actions, so it accepts these); comparing them would compare semantics.
 */
const ACTION_ERRORS = [
  'ranges only allowed for vector selectors',
  'no offset modifiers allowed before range',
  'no @ modifiers allowed before range',
  'offset modifier must be preceded by',
  '@ modifier must be preceded by',
  'may not be set multiple times',
  'unknown function with name',
  'no arguments for aggregate expression provided',
  'wrong number of arguments for aggregate expression',
  'duration must be greater than 0',
  'trailing commas not allowed',
  'error parsing number',
  'not a valid duration string',
  'timestamp out of bounds',
  'duration out of range',
  'error parsing regexp',
  // Lezer's string tokens run to the end of input and do not validate escapes.
  'unterminated quoted string',
  'unterminated raw string',
  'escape sequence',
  // Lezer splits `30satan2` into a duration and a keyword; Prometheus's lexer rejects it.
  'bad number or duration syntax',
  // Prometheus's bracket lexer does not skip comments (`[#c\n5m]`); lezer does.
  'unexpected character in duration expression',
  // Duration arithmetic is Prometheus's promql-duration-expr feature, disabled here.
  'experimental duration expression is not enabled',
];

/** Lezer rejects a number with a trailing dot (`5.`), which Prometheus reads as 5. */
const TRAILING_DOT_NUMBER = /(?<![\w.])\d+\.(?!\d)/;

const KEYWORD_NAMES = new Set([
  'by',
  'without',
  'offset',
  'and',
  'or',
  'unless',
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'group',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'limitk',
  'limit_ratio',
  'start',
  'end',
  'step',
  'range',
  'anchored',
  'smoothed',
]);

/**
 * Prometheus lets keywords name metrics in operand position and accepts `a:b` as a grouping
 * label (any UTF-8 name is valid); lezer accepts neither everywhere.
 */
function usesLezerUnsupportedNames(e: Expr): boolean {
  let found = false;
  inspect(e, (n) => {
    if (n.type === 'VectorSelector' && KEYWORD_NAMES.has(n.name.toLowerCase())) found = true;
    if (n.type === 'AggregateExpr' && n.grouping.some((l) => l.includes(':'))) found = true;
    const vm = n.type === 'BinaryExpr' ? n.vectorMatching : undefined;
    if (vm !== undefined && [...vm.matchingLabels, ...vm.include].some((l) => l.includes(':')))
      found = true;
  });
  return found;
}

/**
 * lezer accepts the operator keyword `atan2` as a metric name in operand position
 * (`1 + atan2`); Prometheus's grammar does not (ATAN2 is not a metric_identifier), and
 * neither do we.
 */
const LEZER_ATAN2_METRIC = 'unexpected <op:atan2>';

/** undefined when the input only fails a grammar action check (not comparable). */
function weAccept(q: string): boolean | undefined {
  const r = parseSyntaxOnly(q);
  if (!(r instanceof ParseError)) return usesLezerUnsupportedNames(r) ? undefined : true;
  const first = r.errors[0]?.message ?? '';
  if (first.includes(LEZER_ATAN2_METRIC)) return undefined;
  return ACTION_ERRORS.some((m) => first.includes(m)) ? undefined : false;
}

function compare(q: string): void {
  if (TRAILING_DOT_NUMBER.test(q)) return;
  const ours = weAccept(q);
  if (ours === undefined) return;
  expect({ q, accepted: ours }).toEqual({ q, accepted: lezerAccepts(q) });
}

const metricName = fc.constantFrom('foo', 'bar', 'http_requests_total', 'node:cpu:rate5m', 'up');
const labelName = fc.constantFrom('a', 'job', 'instance', '__name__', 'le');
const labelValue = fc.constantFrom('"x"', "'y'", '`z`', '"a.*"', '""');
const matchOp = fc.constantFrom('=', '!=', '=~', '!~');
const duration = fc.constantFrom('5m', '1h', '30s', '1h30m', '2d', '1w', '100ms', '1y');
const number = fc.constantFrom('1', '0.5', '1e3', '0x1f', 'Inf', 'NaN', '.5', '42', '1_000');

const matchers = fc
  .array(
    fc.tuple(labelName, matchOp, labelValue).map(([n, o, v]) => `${n}${o}${v}`),
    { minLength: 1, maxLength: 3 },
  )
  .chain((ms) => fc.boolean().map((trailing) => `{${ms.join(', ')}${trailing ? ',' : ''}}`));

const selector = fc.oneof(
  metricName,
  fc.tuple(metricName, matchers).map(([n, m]) => n + m),
  fc.tuple(labelName, labelValue).map(([n, v]) => `{${n}=${v === '""' ? '"v"' : v}}`),
);

const timeMods = fc.oneof(
  fc.constant(''),
  duration.map((d) => ` offset ${d}`),
  duration.map((d) => ` offset -${d}`),
  fc.constantFrom(' @ 100', ' @ start()', ' @ end()', ' @ 1.5e3'),
);

const binOp = fc.constantFrom(
  '+',
  '-',
  '*',
  '/',
  '%',
  '^',
  '==',
  '!=',
  '>',
  '<',
  '>=',
  '<=',
  'and',
  'or',
  'unless',
  'atan2',
);
const binMods = fc.oneof(
  fc.constant(''),
  fc.constant('bool'),
  fc.constantFrom(
    'on(a)',
    'ignoring(job)',
    'on(a, b) group_left()',
    'on(a) group_left(b)',
    'ignoring(a) group_right(c)',
    'on()',
  ),
);
const aggOp = fc.constantFrom('sum', 'avg', 'max', 'min', 'count', 'stddev', 'group');
const paramAgg = fc.constantFrom('topk', 'bottomk', 'quantile', 'limitk', 'limit_ratio');
const grouping = fc.constantFrom(
  'by (a)',
  'without (job)',
  'by ()',
  'by (a, b)',
  'by ("my.label")',
);
const fnName = fc.constantFrom(
  'abs',
  'vector',
  'scalar',
  'time',
  'clamp',
  'label_replace',
  'round',
);
const rangeFn = fc.constantFrom('rate', 'increase', 'avg_over_time', 'changes', 'predict_linear');

const { expr } = fc.letrec<{ expr: string; primary: string }>((tie) => ({
  primary: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(selector, timeMods).map(([s, t]) => s + t),
    number,
    duration,
    labelValue,
    fc.tuple(selector, duration, timeMods).map(([s, d, t]) => `${s}[${d}]${t}`),
    fc.tuple(rangeFn, selector, duration).map(([f, s, d]) => `${f}(${s}[${d}])`),
    fc
      .tuple(tie('expr'), duration, fc.option(duration))
      .map(([e, r, s]) => `(${e})[${r}:${s ?? ''}]`),
    fc
      .tuple(fnName, fc.array(tie('expr'), { maxLength: 3 }))
      .map(([f, args]) => `${f}(${args.join(', ')})`),
    fc
      .tuple(aggOp, grouping, tie('expr'), fc.boolean())
      .map(([a, g, e, before]) => (before ? `${a} ${g} (${e})` : `${a}(${e}) ${g}`)),
    fc.tuple(paramAgg, number, tie('expr')).map(([a, p, e]) => `${a}(${p}, ${e})`),
    tie('expr').map((e) => `(${e})`),
    tie('primary').map((e) => `-${e}`),
  ),
  expr: fc.oneof(
    { depthSize: 'small' },
    tie('primary'),
    fc.tuple(tie('expr'), binOp, binMods, tie('expr')).map(([l, o, m, r]) => `${l} ${o} ${m} ${r}`),
  ),
}));

const fragments = fc.constantFrom(
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  ',',
  '+',
  'by',
  'offset',
  '@',
  ':',
  '5m',
  '"s"',
  ' ',
  '=',
  'bool',
  '#c\n',
);

/** A valid expression with a random edit: insertion or deletion of a fragment. */
const mutated = fc.tuple(expr, fc.nat(), fragments, fc.boolean()).map(([e, at, frag, del]) => {
  const i = at % (e.length + 1);
  return del ? e.slice(0, i) + e.slice(i + 1) : e.slice(0, i) + frag + e.slice(i);
});

// LEZER_DIFF_RUNS=N runs the mutation property N times (for longer searches than npm test's).
const MUTATION_RUNS = Number(process.env['LEZER_DIFF_RUNS'] ?? 600);

describe('differential test against lezer-promql', () => {
  it('parses every generated expression', () => {
    fc.assert(
      fc.property(expr, (q) => {
        const r = parseSyntaxOnly(q);
        expect({ q, error: r instanceof ParseError ? r.message : '' }).toEqual({ q, error: '' });
      }),
      { numRuns: 300 },
    );
  });

  it('accepts what lezer accepts on generated valid expressions', () => {
    fc.assert(fc.property(expr, compare), { numRuns: 400 });
  });

  it('agrees with lezer on mutated expressions', { timeout: 60_000 }, () => {
    fc.assert(fc.property(mutated, compare), { numRuns: MUTATION_RUNS });
  });
});
