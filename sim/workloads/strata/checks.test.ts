import { describe, expect, it } from 'vitest';
import type { QuerySpec } from './config.js';
import {
  checkAckedReadableExactlyOnce,
  checkIngestionRule,
  checkLiveness,
  checkModelQueries,
  checkNoPhantoms,
  modelData,
  type CheckContext,
} from './checks.js';
import { seriesKey } from './generator.js';
import { WriteLedger, type AttemptOutcome, type LedgerSample } from './ledger.js';
import { ReferenceModel } from './model.js';
import type { ModelSeries } from './model_query.js';
import type { CheckResult } from '../workload.js';
import { ReadLog, type ReadSeries } from './read_log.js';

const M = 60_000;
const OK: AttemptOutcome = { kind: 'ok', status: 200 };
const OOB: AttemptOutcome = {
  kind: 'rejected',
  code: 'invalid_argument',
  message: 'user=a: err: sample timestamp out of bounds: ts=…',
};
const KEY = '{__name__="m", w="steady"}';
const LATE = '{__name__="m", w="late"}';

/** A small world: tenant a, a steady writer acked at 100m and 101m, a late push refused at 102m. */
function world(): { ctx: CheckContext; ledger: WriteLedger; reads: ReadLog; late: LedgerSample[] } {
  const ledger = new WriteLedger();
  const add = (
    writer: string,
    ts: number[],
    sentAt: number,
    outcome: AttemptOutcome,
  ): LedgerSample[] => {
    const samples = ledger.scraped(
      writer,
      'a',
      ts.map((t) => ({
        series: `{__name__="m", w="${writer}"}`,
        labels: [
          ['__name__', 'm'],
          ['w', writer],
        ] as [string, string][],
        timestamp: t,
        value: t / M,
      })),
      sentAt,
    );
    const push = ledger.newPush(writer, 'a', samples);
    ledger.attemptEnded(ledger.attemptStarted(push, sentAt), sentAt + 10, outcome);
    return samples;
  };
  add('steady', [100 * M], 100 * M, OK);
  add('steady', [101 * M], 101 * M, OK);
  const late = add('late', [10 * M, 50 * M], 102 * M, OOB);
  const reads = new ReadLog();
  const model = new ReferenceModel(ledger, {
    tenants: [{ name: 'a', outOfOrderWindowMs: 0 }],
    blockRangeMs: 120 * M,
    settleMs: 1_000,
  });
  return { ctx: { ledger, model, reads, tenants: ['a'], epochMs: 0 }, ledger, reads, late };
}

function read(reads: ReadLog, series: ReadSeries[]): void {
  reads.finalReads.set('a', {
    tenant: 'a',
    startedAt: 200 * M,
    answeredAt: 200 * M,
    attempts: 1,
    series,
  });
}

const s = (key: string, points: [number, number][]): ReadSeries => ({
  key,
  labels: [],
  timestamps: points.map(([t]) => t),
  values: points.map(([, v]) => v),
});

const goodRead: ReadSeries[] = [
  s(KEY, [
    [100 * M, 100],
    [101 * M, 101],
  ]),
  s(LATE, [[50 * M, 50]]),
];

describe('strata checks', () => {
  it('pass on a read that matches the model', () => {
    const { ctx, reads } = world();
    read(reads, goodRead);
    expect(checkAckedReadableExactlyOnce(ctx).verdict).toBe('pass');
    expect(checkNoPhantoms(ctx)).toMatchObject({ verdict: 'pass' });
    const rule = checkIngestionRule(ctx, { expectRejected: ['a'] });
    expect(rule).toMatchObject({ verdict: 'pass' });
    expect(rule.detail).toContain('a: 1 refused (window 1h0m0s, 0 undecided by the interleaving)');
  });

  it('acked_readable_exactly_once names lost, duplicated and changed samples', () => {
    const { ctx, reads } = world();
    read(reads, [
      s(KEY, [
        [101 * M, 7],
        [101 * M, 7],
      ]),
    ]);
    const r = checkAckedReadableExactlyOnce(ctx);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain('read 2 times');
    expect(r.detail).toContain(
      `lost: a ${KEY} t=+1h40m0s value=100 (push #1 from steady, acked at +1h40m0.01s)`,
    );
    expect(r.detail).toContain('wrong value 7, 7');
  });

  it('judges every read phase like the final read, naming the phase', () => {
    const { ctx, reads } = world();
    read(reads, goodRead);
    // A read between the two acks: the second sample may not be there yet, the first must.
    const phase = {
      label: 'read phase at +1h40m30s',
      reads: new Map([
        [
          'a',
          {
            tenant: 'a',
            startedAt: 100 * M + 30_000,
            answeredAt: 100 * M + 30_000,
            attempts: 1,
            series: [s(LATE, [[50 * M, 50]])],
          },
        ],
      ]),
      errors: new Map<string, string>(),
    };
    reads.phases.push(phase);
    const r = checkAckedReadableExactlyOnce(ctx);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toBe(
      `1 violation(s) of "every acknowledged sample is readable exactly once": read phase at +1h40m30s: lost: a ${KEY} t=+1h40m0s value=100 (push #1 from steady, acked at +1h40m0.01s)`,
    );
    phase.reads.get('a')!.series.push(s(KEY, [[100 * M, 100]]));
    expect(checkAckedReadableExactlyOnce(ctx)).toMatchObject({ verdict: 'pass' });
    // A phase never answered fails the reads' checks.
    phase.reads.clear();
    phase.errors.set('a', 'attempt 3: consistency check failed');
    expect(checkNoPhantoms(ctx).detail).toContain(
      'read phase at +1h40m30s: no read phase at +1h40m30s of tenant a was answered (attempt 3: consistency check failed)',
    );
  });

  it('no_phantoms refuses samples never written, refused by the rule, or with other values', () => {
    const { ctx, reads } = world();
    read(reads, [...goodRead, s(LATE, [[10 * M, 10]]), s('{__name__="m", w="ghost"}', [[5, 1]])]);
    const r = checkNoPhantoms(ctx);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain('was never written to a');
    expect(r.detail).toContain('refused sample is readable');
  });

  it('ingestion_rule catches an acknowledged too-old sample and an unexplained refusal', () => {
    const { ctx, ledger } = world();
    const old = ledger.scraped(
      'late2',
      'a',
      [{ series: '{w="late2"}', labels: [['w', 'late2']], timestamp: 1 * M, value: 1 }],
      0,
    );
    const p = ledger.newPush('late2', 'a', old);
    ledger.attemptEnded(ledger.attemptStarted(p, 103 * M), 103 * M + 5, OK);
    const fresh = ledger.scraped(
      'late3',
      'a',
      [{ series: '{w="late3"}', labels: [['w', 'late3']], timestamp: 102 * M, value: 1 }],
      0,
    );
    const q = ledger.newPush('late3', 'a', fresh);
    ledger.attemptEnded(ledger.attemptStarted(q, 103 * M), 103 * M + 5, OOB);
    const model = new ReferenceModel(ledger, {
      tenants: [{ name: 'a', outOfOrderWindowMs: 0 }],
      blockRangeMs: 120 * M,
      settleMs: 1_000,
    });
    read(ctx.reads, goodRead);
    const r = checkIngestionRule({ ...ctx, model }, { expectRejected: [] });
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain('push #4 of a from late2');
    expect(r.detail).toContain('was acknowledged with 1 sample(s) older than');
    expect(r.detail).toContain('push #5 of a from late3');
    expect(r.detail).toContain('refused although every sample is within 1h0m0s');
  });

  it('ingestion_rule wants the documented message, kept partial acceptance, and rejections where expected', () => {
    const { ctx, reads } = world();
    read(reads, [goodRead[0]!]); // the in-window late sample is missing
    const r = checkIngestionRule(ctx, { expectRejected: [] });
    expect(r.detail).toContain('partial acceptance lost a sample');
    const { ctx: c2, ledger } = world();
    ledger.pushes[2]!.attempts[0]!.outcome = {
      kind: 'rejected',
      code: 'invalid_argument',
      message: 'bad label',
    };
    read(c2.reads, goodRead);
    const r2 = checkIngestionRule(c2, { expectRejected: ['a'] });
    expect(r2.detail).toContain('with a message the rule does not give');
    expect(r2.detail).toContain('tenant a never had a sample refused by the rule');
  });

  it('ingestion_rule takes "out of order" for a repeated delivery only when the push was stored', () => {
    // A catch-up push of two samples of one series delivered twice: the second delivery
    // finds the older sample behind the series' newest and is refused as out of order; that
    // answer reached the writer first. Its samples were stored by the first delivery.
    const worldWithRepeat = () => {
      const w = world();
      const samples = w.ledger.scraped(
        'again',
        'a',
        [60 * M, 61 * M].map((t) => ({
          series: '{__name__="m", w="again"}',
          labels: [
            ['__name__', 'm'],
            ['w', 'again'],
          ] as [string, string][],
          timestamp: t,
          value: t / M,
        })),
        103 * M,
      );
      const push = w.ledger.newPush('again', 'a', samples);
      w.ledger.attemptEnded(w.ledger.attemptStarted(push, 103 * M), 103 * M + 10, {
        kind: 'rejected',
        code: '400',
        message: `user=a: err: sample out of order: ts=${60 * M}, series newest ts=${61 * M}`,
      });
      return w;
    };
    const again = s('{__name__="m", w="again"}', [
      [60 * M, 60],
      [61 * M, 61],
    ]);
    const stored = worldWithRepeat();
    read(stored.reads, [...goodRead, again]);
    const ok = checkIngestionRule(stored.ctx, { expectRejected: [] });
    expect(ok.verdict).toBe('pass');
    expect(ok.detail).toContain('1 push(es) answered "out of order" on a repeated delivery');
    // Not stored (one sample missing, or another value): a refusal the rule does not give.
    for (const partial of [
      s('{__name__="m", w="again"}', [[61 * M, 61]]),
      s('{__name__="m", w="again"}', [
        [60 * M, 7],
        [61 * M, 61],
      ]),
    ]) {
      const lost = worldWithRepeat();
      read(lost.reads, [...goodRead, partial]);
      const bad = checkIngestionRule(lost.ctx, { expectRejected: [] });
      expect(bad.verdict).toBe('fail');
      expect(bad.detail).toContain('with a message the rule does not give');
    }
  });

  it('model_queries compares answers with the model evaluated on the ledger', () => {
    const { ctx, reads } = world();
    read(reads, goodRead);
    const q: QuerySpec = {
      kind: 'count_over_time',
      tenant: 'a',
      metric: 'm',
      rangeMs: 120 * M,
      atMs: [],
    };
    reads.queryAnswers.push({
      query: 0,
      atMs: 101 * M,
      startedAt: 200 * M,
      answeredAt: 200 * M,
      result: new Map([
        ['{w="steady"}', 2],
        ['{w="late"}', 1],
      ]),
    });
    expect(checkModelQueries(ctx, [q]).verdict).toBe('pass');
    reads.queryAnswers[0]!.result = new Map([['{w="steady"}', 2]]);
    const r = checkModelQueries(ctx, [q]);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain(
      'count_over_time(m[2h0m0s]) at +1h41m0s: missing {w="late"} (model: 1)',
    );
    expect(checkModelQueries({ ...ctx, reads: new ReadLog() }, [q]).detail).toContain(
      'no model query was answered',
    );
  });

  it('modelData keeps what the model expects, within the metric and window of a query when asked', () => {
    const { ctx, reads, ledger } = world();
    read(reads, goodRead);
    ledger.scraped(
      'other',
      'a',
      [{ series: '{__name__="n"}', labels: [['__name__', 'n']], timestamp: 100 * M, value: 1 }],
      100 * M,
    );
    const keys = (data: ModelSeries[]): [string, number[]][] =>
      data.map((d) => [seriesKey(d.labels), [...d.points.keys()]]);
    const steadyAndLate: [string, number[]][] = [
      [KEY, [100 * M, 101 * M]],
      [LATE, [50 * M]],
    ];
    // The unsent sample of metric n is absent, so n has no data either way.
    expect(keys(modelData(ctx, 'a', 200 * M))).toEqual(steadyAndLate);
    const all = { afterMs: -Infinity, untilMs: Infinity };
    expect(keys(modelData(ctx, 'a', 200 * M, { metric: 'm', ...all }))).toEqual(steadyAndLate);
    expect(keys(modelData(ctx, 'a', 200 * M, { metric: 'n', ...all }))).toEqual([]);
    const window = { metric: 'm', afterMs: 100 * M, untilMs: 101 * M };
    expect(keys(modelData(ctx, 'a', 200 * M, window))).toEqual([[KEY, [101 * M]]]);
  });

  it('judge the same with the reads indexed once for all checks', () => {
    const { ctx, reads } = world();
    read(reads, [
      s(KEY, [
        [100 * M, 100],
        [100 * M, 100],
      ]),
      s(LATE, [[10 * M, 10]]),
    ]);
    const indexed: CheckContext = { ...ctx, observedIndex: new WeakMap() };
    const all = (c: CheckContext): CheckResult[] => [
      checkAckedReadableExactlyOnce(c),
      checkNoPhantoms(c),
      checkIngestionRule(c, { expectRejected: ['a'] }),
    ];
    const plain = all(ctx);
    expect(plain.map((r) => r.verdict)).toEqual(['fail', 'fail', 'fail']);
    expect(all(indexed)).toEqual(plain);
    expect(all(indexed)).toEqual(plain);
  });

  it('liveness fails for samples unresolved by their deadline, and skips those due after the end', () => {
    const { ctx, reads, ledger } = world();
    read(reads, goodRead);
    const opts = {
      quietAtMs: 0,
      withinMs: 30_000,
      judgeUntilMs: 300 * M,
      sendableAt: (x: LedgerSample) => x.scrapedAt,
    };
    expect(checkLiveness(ctx, opts).verdict).toBe('pass');
    ledger.scraped(
      'steady',
      'a',
      [{ series: KEY, labels: [], timestamp: 150 * M, value: 1 }],
      150 * M,
    );
    const r = checkLiveness(ctx, opts);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain('never sent) not resolved by +2h30m30s');
    expect(checkLiveness(ctx, { ...opts, judgeUntilMs: 150 * M }).verdict).toBe('pass');
  });

  it('every check fails without a final read', () => {
    const { ctx } = world();
    for (const r of [checkAckedReadableExactlyOnce(ctx), checkNoPhantoms(ctx)])
      expect(r.detail).toContain('no final read of tenant a was answered (never attempted)');
  });
});
