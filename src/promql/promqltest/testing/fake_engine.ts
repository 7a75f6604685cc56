// A deliberately tiny PromQL engine and parser for the runner's own tests: plain selectors
// (`name`, `name{l="v"}`, `name[5m]`, with `@`), number and string literals, and a few
// trigger names (`boom` fails, `warnme` warns, `crash` throws a TypeError). It knows
// nothing else, so runner tests exercise the comparison rules, not PromQL.
import { Labels, Matcher } from '../../../model/index.js';
import { Annotations } from '../../annotations.js';
import { PromQLError, QueryExecutionError } from '../../errors.js';
import type { Expr, VectorSelector } from '../../parser/index.js';
import type { PromQLEngine, QueryResult } from '../../query.js';
import { SAMPLE_FLOAT, type Queryable } from '../../storage.js';
import type { Matrix, QueryValue, Sample, Series } from '../../value.js';

const LOOKBACK = 5 * 60 * 1000;

/** Parses the fake engine's tiny language; throws PromQLError('bad_data') otherwise. */
export function fakeParse(q: string): Expr {
  const posRange = { start: 0, end: q.length };
  if (/^-?[0-9.]+$/.test(q)) return { type: 'NumberLiteral', val: Number(q), posRange };
  const str = /^"(.*)"$/.exec(q);
  if (str !== null) return { type: 'StringLiteral', val: str[1] as string, posRange };
  const m = /^([a-z_]+)(?:\{([^}]*)\})?(?:\[(\d+)m\])?(?: @ (\d+))?$/.exec(q);
  if (m === null)
    throw new PromQLError(
      'bad_data',
      `1:1: parse error: fake parser cannot read ${JSON.stringify(q)}`,
    );
  const matchers = [Matcher.equal('__name__', m[1] as string)];
  for (const part of (m[2] ?? '').split(',').filter((p) => p !== '')) {
    const [n, v] = part.split('=') as [string, string];
    matchers.push(Matcher.equal(n.trim(), JSON.parse(v.trim()) as string));
  }
  const vs: VectorSelector = {
    type: 'VectorSelector',
    name: m[1] as string,
    labelMatchers: matchers,
    offset: 0,
    originalOffset: 0,
    timestamp: m[4] === undefined ? undefined : Number(m[4]) * 1000,
    posRange,
  };
  if (m[3] === undefined) return vs;
  return {
    type: 'MatrixSelector',
    vectorSelector: vs,
    range: Number(m[3]) * 60_000,
    endPos: q.length,
  };
}

export interface FakeEngineOptions {
  /** Ignore `@` (to prove the runner's @-variants catch it). */
  readonly ignoreAt?: boolean;
  /** Report this fixed value for every sample (to prove mismatches are caught). */
  readonly constant?: number;
  /** Return vector samples in reverse label order. */
  readonly reverse?: boolean;
}

export class FakeEngine implements PromQLEngine {
  /** Every query the runner issued: [kind, time or start, end]. */
  readonly calls: [string, number, number][] = [];

  constructor(private readonly opts: FakeEngineOptions = {}) {}

  async instantQuery(
    queryable: Queryable,
    query: string | Expr,
    time: number,
  ): Promise<QueryResult> {
    this.calls.push(['instant', time, time]);
    const annotations = new Annotations();
    const value = await this.eval(
      queryable,
      typeof query === 'string' ? fakeParse(query) : query,
      time,
      annotations,
    );
    return {
      value,
      annotations,
      stats: { totalQueryableSamples: 0, peakSamples: 0, engine: 'prometheus' },
    };
  }

  async rangeQuery(
    queryable: Queryable,
    query: string | Expr,
    start: number,
    end: number,
    step: number,
  ): Promise<QueryResult> {
    this.calls.push(['range', start, end]);
    const expr = typeof query === 'string' ? fakeParse(query) : query;
    const annotations = new Annotations();
    const byKey = new Map<string, Series>();
    for (let t = start; t <= end; t += step) {
      const v = await this.eval(queryable, expr, t, annotations);
      const samples: Sample[] =
        v.type === 'vector'
          ? v.vector
          : v.type === 'scalar'
            ? [{ metric: Labels.EMPTY, t, f: v.scalar.v }]
            : [];
      for (const s of samples) {
        const key = s.metric.toString();
        let series = byKey.get(key);
        if (series === undefined) {
          series = { metric: s.metric, floats: [] };
          byKey.set(key, series);
        }
        series.floats.push({ t, f: s.f });
      }
    }
    const matrix: Matrix = [...byKey.values()].sort((a, b) => Labels.compare(a.metric, b.metric));
    return {
      value: { type: 'matrix', matrix },
      annotations,
      stats: { totalQueryableSamples: 0, peakSamples: 0, engine: 'prometheus' },
    };
  }

  private async eval(q: Queryable, e: Expr, t: number, annos: Annotations): Promise<QueryValue> {
    switch (e.type) {
      case 'NumberLiteral':
        return { type: 'scalar', scalar: { t, v: e.val } };
      case 'StringLiteral':
        return { type: 'string', string: { t, v: e.val } };
      case 'VectorSelector': {
        if (e.name === 'boom') throw new QueryExecutionError('boom happened');
        if (e.name === 'crash') throw new TypeError('cannot read properties of undefined');
        if (e.name === 'warnme') annos.add('warning', 'PromQL warning: fake warning');
        const at = this.opts.ignoreAt === true ? t : (e.timestamp ?? t);
        const vector: Sample[] = [];
        for (const [labels, ts, vs] of await this.select(q, e, at - LOOKBACK + 1, at)) {
          const i = ts.length - 1;
          if (i < 0) continue;
          vector.push({ metric: labels, t, f: this.opts.constant ?? (vs[i] as number) });
        }
        if (this.opts.reverse === true) vector.reverse();
        return { type: 'vector', vector };
      }
      case 'MatrixSelector': {
        const vs = e.vectorSelector;
        const at = vs.timestamp ?? t;
        const matrix: Matrix = [];
        for (const [labels, ts, vals] of await this.select(q, vs, at - e.range + 1, at)) {
          matrix.push({
            metric: labels,
            floats: ts.map((pt, i) => ({ t: pt, f: vals[i] as number })),
          });
        }
        return { type: 'matrix', matrix };
      }
      default:
        throw new PromQLError('bad_data', `fake engine cannot evaluate ${e.type}`);
    }
  }

  private async select(
    q: Queryable,
    vs: VectorSelector,
    mint: number,
    maxt: number,
  ): Promise<[Labels, number[], number[]][]> {
    const querier = await q.querier(mint, maxt);
    const out: [Labels, number[], number[]][] = [];
    for (const s of await querier.select(vs.labelMatchers)) {
      const it = s.iterator();
      const ts: number[] = [];
      const vals: number[] = [];
      while (it.next() === SAMPLE_FLOAT) {
        ts.push(it.atT());
        vals.push(it.atF());
      }
      out.push([s.labels, ts, vals]);
    }
    await querier.close();
    return out;
  }
}
