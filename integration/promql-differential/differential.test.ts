/**
 * Differential test against a real Prometheus (issue 4, Deliver 6): Debian's Prometheus
 * 2.42 scrapes a node exporter and itself; Strata's storage engine reads a copy of the same
 * data directory (WAL and head chunks as Prometheus left them); then series, label names
 * and values, raw samples and PromQL answers of Strata's engines are compared with what
 * Prometheus's HTTP API returns. See docs/promql-differential.md.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Matcher } from '../../src/model/index.js';
import { askPrometheus, askStrata, describeQuestion, diffAnswers, type Question } from './ask.js';
import { STRATA_ENGINES } from './engines.js';
import { setUpFixture, type DifferentialFixture } from './fixture.js';
import { KNOWN_DIFFERENCES, QUERIES, type DiffQuery } from './queries.js';
import { keyOfLabels, keyOfObject, normalizeApi } from './results.js';
import { chooseTimes, fillTemplate, type EvalTimes } from './times.js';

/** Queries that never have data here (absence checks); any other must have some. */
const ALWAYS_EMPTY: string[] = [
  'node_cpu_seconds_total{mode=""}', // every CPU series has a mode
  'nonexistent_metric',
  'go_goroutines + go_info', // go_info has a version label: no one-to-one match
  'clamp(go_goroutines, 20, 10)', // min > max: empty by definition
];

/** How long Prometheus scrapes before the comparison (the whole file stays near 90 s). */
const SCRAPE_MS = 50_000;

function isStaleNaN(v: number): boolean {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, v);
  return dv.getBigUint64(0) === 0x7ff0000000000002n;
}

describe('Strata against Prometheus 2.42 on the same scraped data', () => {
  let fx: DifferentialFixture;
  let times: EvalTimes;

  beforeAll(async () => {
    fx = await setUpFixture({ scrapeMs: SCRAPE_MS });
    times = chooseTimes(fx.timestamps, fx.minT, fx.maxT);
  }, 120_000);
  afterAll(async () => {
    await fx?.close();
  });

  /** The instant and range questions asked about `q`. */
  const questions = (q: DiffQuery): Question[] => {
    const modes = q.modes ?? ['instant', 'range'];
    // Counter extrapolation is compared only where its whole window holds data (with a
    // margin over 1.1 scrape intervals), see DiffQuery.counterWindow.
    const from = q.counterWindow === undefined ? -Infinity : fx.minT + q.counterWindow + 1500;
    let start = times.rangeStart;
    while (start < from) start += times.step;
    return [
      ...(modes.includes('instant')
        ? times.instants
            .filter((time) => time >= from)
            .map((time): Question => ({ kind: 'instant', time }))
        : []),
      ...(modes.includes('range') && start <= times.rangeEnd
        ? [{ kind: 'range', start, end: times.rangeEnd, step: times.step } satisfies Question]
        : []),
    ];
  };
  it('replays the whole WAL without a warning, spanning the scrape', () => {
    const corrupt = fx.opened.logger.lines.filter((l) => l.level === 'warn' || l.level === 'error');
    expect(corrupt).toEqual([]);
    expect(fx.maxT - fx.minT).toBeGreaterThan(SCRAPE_MS - 10_000);
  });

  it('has the same series as /api/v1/series', async () => {
    const api = await fx.prom.api.series(['{__name__=~".+"}'], fx.minT, fx.maxT);
    const q = fx.opened.db.querier(fx.minT, fx.maxT);
    const strata = (await q.select([Matcher.regex('__name__', '.+')])).map((s) =>
      keyOfLabels(s.labels),
    );
    expect(strata.length).toBeGreaterThan(500);
    expect(new Set(strata).size).toBe(strata.length);
    expect([...strata].sort()).toEqual(api.map(keyOfObject).sort());
    const jobs = await q.labelValues('job', []);
    expect(jobs).toEqual(['node', 'prometheus']);
  });

  it('has the same label names and values as /api/v1/labels and /label/…/values', async () => {
    const q = fx.opened.db.querier(fx.minT, fx.maxT);
    expect(await q.labelNames([])).toEqual(await fx.prom.api.labelNames(fx.minT, fx.maxT));
    const node = [Matcher.equal('job', 'node')];
    expect(await q.labelNames(node)).toEqual(
      await fx.prom.api.labelNames(fx.minT, fx.maxT, ['{job="node"}']),
    );
    for (const name of [
      '__name__',
      'job',
      'instance',
      'handler',
      'le',
      'cpu',
      'mode',
      'quantile',
    ]) {
      expect(await q.labelValues(name, [])).toEqual(
        await fx.prom.api.labelValues(name, fx.minT, fx.maxT),
      );
    }
    const http = [Matcher.equal('__name__', 'prometheus_http_requests_total')];
    expect(await q.labelValues('handler', http)).toEqual(
      await fx.prom.api.labelValues('handler', fx.minT, fx.maxT, [
        'prometheus_http_requests_total',
      ]),
    );
  });

  it('holds exactly the samples Prometheus returns for a range selector over everything', async () => {
    const rangeS = Math.ceil((fx.maxT - fx.minT) / 1000) + 1;
    const res = await fx.prom.api.query(`{__name__=~".+"}[${rangeS}s]`, fx.maxT);
    const api = normalizeApi(res.data);
    expect(api.resultType).toBe('matrix');
    const q = fx.opened.db.querier(fx.maxT - rangeS * 1000, fx.maxT);
    const strata = new Map<string, [number, number][]>();
    for (const s of await q.select([Matcher.regex('__name__', '.+')])) {
      const pts: [number, number][] = [];
      const it = s.iterator();
      // Range selectors never return staleness markers.
      while (it.next() !== 0) if (!isStaleNaN(it.atF())) pts.push([it.atT(), it.atF()]);
      if (pts.length > 0) strata.set(keyOfLabels(s.labels), pts);
    }
    let samples = 0;
    const mismatched: string[] = [];
    const sameFloat = (a: number, b: number | undefined): boolean =>
      b !== undefined && (Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)));
    for (const s of api.series) {
      samples += s.points.length;
      const mine = strata.get(s.key);
      const same =
        mine?.length === s.points.length &&
        mine.every(([t, v], i) => t === s.points[i]?.[0] && sameFloat(v, s.points[i]?.[1]));
      if (!same) mismatched.push(s.key);
    }
    expect(mismatched).toEqual([]);
    expect(strata.size).toBe(api.series.length);
    expect(samples).toBeGreaterThan(10_000);
  });

  it('evaluates off the scrape grid', () => {
    // Margins below a few ms would let scrape jitter put a sample on a window boundary.
    expect(times.margin).toBeGreaterThanOrEqual(20);
  });

  it('asks questions Prometheus 2.42 answers, most of them with data', async () => {
    const failures: string[] = [];
    let empty = 0;
    let asked = 0;
    const alwaysEmpty: string[] = [];
    for (const q of QUERIES) {
      const query = fillTemplate(q.promql, times);
      let answered = false;
      let errored = false;
      for (const question of questions(q)) {
        const a = await askPrometheus(fx.prom.api, query, question);
        asked++;
        const isEmpty = a.ok && a.result.series.length === 0 && a.result.resultType !== 'string';
        if (!a.ok) {
          errored = true;
          if (q.fails === undefined || a.errorType !== (q.errorType ?? 'execution'))
            failures.push(`${query} (${describeQuestion(question)}): ${a.errorType}: ${a.error}`);
        } else if (q.fails === 'always' || (q.fails === 'data' && a.result.series.length > 1)) {
          // A 'data' query (a matching error, which needs two series on one side) may answer
          // empty or with one series where its series are absent at that time (a scrape that
          // timed out on a loaded machine leaves staleness markers), never with more.
          failures.push(
            `${query} (${describeQuestion(question)}): expected an error, got an answer`,
          );
        } else if (isEmpty) empty++;
        else answered = true;
      }
      if (q.fails === 'data' && !errored) failures.push(`${query}: never failed`);
      if (!answered && q.fails !== 'data' && q.fails !== 'always') alwaysEmpty.push(q.promql);
    }
    expect(alwaysEmpty).toEqual(ALWAYS_EMPTY);
    expect(failures).toEqual([]);
    // Queries at the time before the data and absent()-like ones are empty by design.
    expect(empty / asked).toBeLessThan(0.35);
    for (const k of KNOWN_DIFFERENCES) {
      const a = await askPrometheus(fx.prom.api, k.promql, { kind: 'instant', time: times.at });
      if (!a.ok) throw new Error(`${k.promql}: ${a.errorType}: ${a.error}`);
      // Prometheus's side of the check must hold; the check of Strata's side fails here.
      expect(k.check(a.result, a.result).filter((l) => l.startsWith('prometheus'))).toEqual([]);
    }
  });

  for (const { name, engine } of STRATA_ENGINES) {
    describe(`engine ${name}`, () => {
      for (const q of QUERIES) {
        it(`${q.cls}: ${q.promql}`, async () => {
          const promQuery = fillTemplate(q.promql, times);
          const strataQuery = fillTemplate(q.strata ?? q.promql, times);
          const diffs: string[] = [];
          for (const question of questions(q)) {
            const p = await askPrometheus(fx.prom.api, promQuery, question);
            const s = await askStrata(engine, fx.queryable, strataQuery, question);
            const d = diffAnswers(p, s, question.kind === 'instant' ? (q.order ?? 'none') : 'none');
            for (const line of d.slice(0, 5)) diffs.push(`${describeQuestion(question)}: ${line}`);
          }
          if (q.grid === true && times.gridHazard && diffs.length > 0) {
            // A sample on a whole second sits on a subquery window boundary, where 2.x
            // (closed) and 3.x (left-open) legitimately differ; rare, see the docs.
            console.warn(
              `subquery on the grid, not compared this run: ${q.promql}\n${diffs.join('\n')}`,
            );
            return;
          }
          expect(diffs).toEqual([]);
        });
      }

      for (const k of KNOWN_DIFFERENCES) {
        it(`known difference: ${k.promql}`, async () => {
          const question: Question = { kind: 'instant', time: times.at };
          const p = await askPrometheus(fx.prom.api, k.promql, question);
          const s = await askStrata(engine, fx.queryable, k.strata ?? k.promql, question);
          if (!p.ok || !s.ok) throw new Error(`query failed: ${JSON.stringify({ p, s })}`);
          expect(k.check(p.result, s.result)).toEqual([]);
        });
      }
    });
  }
});
