// Differential property: the vectorised engine answers every generated query exactly as the
// default engine does — same value type, same series (labels and order), bit-identical
// values (NaN equals NaN, -0 differs from 0), the same annotations and the same error —
// for range and instant queries over a random MemoryStorage data set. Queries come from a
// small grammar covering selectors with offset/@, range functions, element-wise functions,
// aggregations, binary operators with matching, set operators, and fallback nodes
// (subqueries, label_replace, sort, absent, count_values), with `__name__` removed at once
// and with delayed name removal.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { Engine } from '../engine/index.js';
import { MemoryStorage } from '../memory_storage.js';
import { STALE_NAN } from '../promqltest/index.js';
import type { PromQLEngine, QueryResult } from '../query.js';
import type { QueryValue } from '../value.js';
import { VectorEngine } from './index.js';

const OPTIONS = { maxSamples: 1_000_000, timeout: 0, enableExperimentalFunctions: true };

// ---- data set ----

const METRICS = ['http_requests_total', 'cpu', 'mem_bytes', 'lat_bucket'];
const BUCKETS = ['0.1', '1', '+Inf', 'x'];
const JOBS = ['a', 'b'];
const INSTANCES = ['0', '1', '2'];

interface SeriesSpec {
  readonly metric: string;
  readonly job: string;
  readonly instance: string;
  /** The `le` label of lat_bucket series. */
  readonly le: string;
  readonly start: number;
  readonly interval: number;
  readonly values: readonly (number | 'stale' | 'gap')[];
  /** Per-sample scrape jitter in ms (irregular spacing exercises rate's extrapolation). */
  readonly jitter: readonly number[];
}

const valueArb: fc.Arbitrary<number | 'stale' | 'gap'> = fc.oneof(
  { weight: 12, arbitrary: fc.integer({ min: -5, max: 100 }) },
  { weight: 3, arbitrary: fc.double({ min: -1e3, max: 1e3, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(NaN, Infinity, -Infinity, 1e308) },
  { weight: 2, arbitrary: fc.constant(NaN) },
  // Magnitudes where summation order and Kahan compensation change the last bits.
  { weight: 4, arbitrary: fc.constantFrom(0.1, 0.2, 0.3, 1e16, -1e16, 3.3e-7, 1 / 3) },
  { weight: 1, arbitrary: fc.constant<'stale'>('stale') },
  { weight: 2, arbitrary: fc.constant<'gap'>('gap') },
);

const seriesArb: fc.Arbitrary<SeriesSpec> = fc.record({
  metric: fc.constantFrom(...METRICS),
  job: fc.constantFrom(...JOBS),
  instance: fc.constantFrom(...INSTANCES),
  le: fc.constantFrom(...BUCKETS),
  start: fc.integer({ min: 0, max: 10 }).map((m) => m * 30_000),
  interval: fc.constantFrom(15_000, 30_000, 60_000),
  values: fc.array(valueArb, { minLength: 1, maxLength: 40 }),
  jitter: fc.oneof(
    fc.constant<number[]>([]),
    fc.array(fc.integer({ min: 0, max: 9_999 }), { minLength: 40, maxLength: 40 }),
  ),
});

function buildStorage(specs: readonly SeriesSpec[]): MemoryStorage {
  const st = new MemoryStorage();
  for (const s of specs) {
    const labels = Labels.fromObject({
      __name__: s.metric,
      job: s.job,
      instance: s.instance,
      ...(s.metric === 'lat_bucket' ? { le: s.le } : {}),
    });
    s.values.forEach((v, i) => {
      if (v === 'gap') return;
      const t = s.start + i * s.interval + (s.jitter[i] ?? 0);
      st.add(labels, t, v === 'stale' ? STALE_NAN : v);
    });
  }
  return st;
}

// ---- query grammar ----

const selector = fc
  .tuple(
    fc.constantFrom(...METRICS, '{__name__=~"c.*|m.*"}'),
    fc.constantFrom('', '{job="a"}', '{instance!="1"}'),
    fc.constantFrom('', '', ' offset 1m', ' offset -30s', ' @ 300', ' @ end()'),
  )
  .map(([m, matchers, mod]) => {
    const sel = m.startsWith('{') ? m : m + matchers;
    return sel + mod;
  });

const range = fc.constantFrom('1m', '2m', '5m');
const rangeFn = fc.constantFrom(
  'rate',
  'increase',
  'delta',
  'irate',
  'idelta',
  'deriv',
  'resets',
  'changes',
  'avg_over_time',
  'sum_over_time',
  'min_over_time',
  'max_over_time',
  'count_over_time',
  'stddev_over_time',
  'last_over_time',
  'first_over_time',
  'present_over_time',
);
const scalarLit = fc.constantFrom('0', '1', '2', '0.5', '-1', '1e3');
const grouping = fc.constantFrom('', ' by (job)', ' by (instance)', ' without (instance)');
const arith = fc.constantFrom('+', '-', '*', '/', '%', '^', 'atan2');
const cmp = fc.constantFrom('==', '!=', '>', '<', '>=', '<=');
const matching = fc.constantFrom(
  '',
  ' on (job, instance)',
  ' ignoring (job)',
  ' on (instance) group_left ()',
  ' on (instance) group_right ()',
  ' on (job) group_left (instance)',
);

const { vector } = fc.letrec<{ vector: string; scalar: string }>((tie) => {
  const v = tie('vector');
  const s = tie('scalar');
  return {
    vector: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      selector,
      fc.tuple(rangeFn, selector, range).map(([f, sel, r]) => {
        // A range goes before the modifiers.
        const m = /^(.*?)( offset .*| @ .*)?$/.exec(sel);
        return `${f}(${m?.[1] ?? sel}[${r}]${m?.[2] ?? ''})`;
      }),
      fc
        .tuple(selector, range)
        .map(([sel, r]) => `quantile_over_time(0.3, ${sel.split(' ')[0] ?? sel}[${r}])`),
      fc
        .tuple(selector, range, s)
        .map(([sel, r, t]) => `predict_linear(${sel.split(' ')[0] ?? sel}[${r}], ${t})`),
      fc
        .tuple(
          fc.constantFrom('sum', 'avg', 'count', 'min', 'max', 'group', 'stddev', 'stdvar'),
          grouping,
          v,
        )
        .map(([op, g, e]) => `${op}${g} (${e})`),
      fc
        .tuple(fc.constantFrom('0.25', '0.9', '2', '-1'), grouping, v)
        .map(([q, g, e]) => `quantile${g} (${q}, ${e})`),
      fc.tuple(v, arith, matching, v).map(([a, op, m, b]) => `(${a}) ${op}${m} (${b})`),
      fc
        .tuple(v, cmp, fc.constantFrom('', ' bool'), matching, v)
        .map(([a, op, bool, m, b]) => `(${a}) ${op}${bool}${m} (${b})`),
      fc
        .tuple(
          v,
          fc.constantFrom('and', 'or', 'unless'),
          fc.constantFrom('', ' on (job)', ' ignoring (instance)'),
          v,
        )
        .map(([a, op, m, b]) => `(${a}) ${op}${m} (${b})`),
      fc
        .tuple(v, fc.oneof(arith, cmp), fc.constantFrom('', ' bool'), s, fc.boolean())
        .map(([a, op, bool, b, swap]) => {
          const o = ['+', '-', '*', '/', '%', '^', 'atan2'].includes(op) ? op : `${op}${bool}`;
          return swap ? `${b} ${o} (${a})` : `(${a}) ${o} ${b}`;
        }),
      v.map((e) => `-(${e})`),
      fc
        .tuple(fc.constantFrom('abs', 'ceil', 'floor', 'sqrt', 'ln', 'exp', 'sgn', 'hour'), v)
        .map(([f, e]) => `${f}(${e})`),
      fc.tuple(v, s).map(([e, x]) => `clamp_min(${e}, ${x})`),
      fc.tuple(v, s).map(([e, x]) => `round(${e}, ${x})`),
      s.map((x) => `vector(${x})`),
      fc
        .tuple(fc.constantFrom('0.9', '0.5', '2'), v)
        .map(([q, e]) => `histogram_quantile(${q}, ${e})`),
      fc.tuple(s, v).map(([lo, e]) => `histogram_fraction(${lo}, 0.5, ${e})`),
      // Fallback nodes.
      fc
        .tuple(
          fc.constantFrom('topk', 'bottomk'),
          fc.constantFrom('1', '2', '0', '3.7', 'NaN'),
          fc.constantFrom('', ' by (job)', ' without (job)'),
          v,
        )
        .map(([op, k, g, e]) => `${op}${g} (${k}, ${e})`),
      fc.tuple(v, s).map(([e, k]) => `topk(${k}, ${e})`),
      v.map((e) => `label_replace(${e}, "dst", "x$1", "instance", "(.*)")`),
      v.map((e) => `sort_desc(${e})`),
      v.map((e) => `absent(${e})`),
      fc
        .tuple(
          fc.constantFrom('max_over_time', 'rate', 'avg_over_time', 'sum_over_time', 'changes'),
          v,
          fc.constantFrom('[3m:1m]', '[2m:]', '[5m:45s] offset 1m', '[90s:30s] @ 300'),
        )
        .map(([f, e, sq]) => `${f}((${e})${sq})`),
      v.map((e) => `absent_over_time((${e})[2m:30s])`),
      v.map((e) => `count_values("value", ${e})`),
    ),
    scalar: fc.oneof(
      { depthSize: 'small' },
      scalarLit,
      fc.constant('time()'),
      v.map((e) => `scalar(${e})`),
      fc.tuple(s, arith, s).map(([a, op, b]) => `(${a} ${op} ${b})`),
    ),
  };
});

// ---- comparison ----

type Outcome =
  | {
      readonly ok: true;
      readonly value: QueryValue;
      readonly samples: number;
      readonly warnings: string[];
      readonly infos: string[];
    }
  | { readonly ok: false; readonly error: string };

async function outcome(run: () => Promise<QueryResult>): Promise<Outcome> {
  try {
    const r = await run();
    return {
      ok: true,
      value: r.value,
      samples: r.stats.totalQueryableSamples,
      warnings: r.annotations.warnings().sort(),
      infos: r.annotations.infos().sort(),
    };
  } catch (err) {
    return { ok: false, error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

/** A comparable rendering: labels as text, values with their exact bits (NaN == NaN). */
function render(o: Outcome): unknown {
  if (!o.ok) return o;
  const num = (f: number): string => (Object.is(f, -0) ? '-0' : String(f));
  const v = o.value;
  let value: unknown;
  switch (v.type) {
    case 'vector':
      value = v.vector.map((s) => `${s.metric.toString()} ${num(s.f)} @${s.t}`);
      break;
    case 'matrix':
      value = v.matrix.map(
        (s) => `${s.metric.toString()} ${s.floats.map((p) => `${num(p.f)}@${p.t}`).join(' ')}`,
      );
      break;
    case 'scalar':
      value = `scalar ${num(v.scalar.v)} @${v.scalar.t}`;
      break;
    case 'string':
      value = `string ${v.string.v}`;
      break;
  }
  return { type: v.type, value, samples: o.samples, warnings: o.warnings, infos: o.infos };
}

// Both `__name__` removal modes: at once (the default, as in Prometheus) and delayed (as
// Prometheus's test engine and the conformance runner use it). The data set's
// `{__name__=~"c.*|m.*"}` selects cpu and mem_bytes series with equal labels, so dropping
// names makes series collide, which the two modes treat differently.
describe.each([
  { mode: 'names dropped at once', enableDelayedNameRemoval: false },
  { mode: 'delayed name removal', enableDelayedNameRemoval: true },
])('VectorEngine vs default Engine (differential, $mode)', ({ enableDelayedNameRemoval }) => {
  const defaultEngine: PromQLEngine = new Engine({ ...OPTIONS, enableDelayedNameRemoval }, {});
  const vectorEngine: PromQLEngine = new VectorEngine(
    { ...OPTIONS, enableDelayedNameRemoval, stepsBatch: 7 },
    {},
  );

  it('gives identical range and instant results for generated queries', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(seriesArb, { minLength: 0, maxLength: 8 }),
        vector,
        fc.integer({ min: 0, max: 20 }).map((m) => m * 30_000),
        fc.integer({ min: 0, max: 40 }),
        fc.constantFrom(15_000, 30_000, 60_000, 45_000),
        async (specs, query, start, steps, step) => {
          const st = buildStorage(specs);
          const end = start + steps * step;
          const a = await outcome(() => defaultEngine.rangeQuery(st, query, start, end, step));
          const b = await outcome(() => vectorEngine.rangeQuery(st, query, start, end, step));
          expect(render(b), `range ${query}`).toEqual(render(a));
          const ia = await outcome(() => defaultEngine.instantQuery(st, query, end));
          const ib = await outcome(() => vectorEngine.instantQuery(st, query, end));
          expect(render(ib), `instant ${query}`).toEqual(render(ia));
        },
      ),
      { numRuns: Number(process.env.VECTOR_DIFF_RUNS ?? 500) },
    );
  });
});
