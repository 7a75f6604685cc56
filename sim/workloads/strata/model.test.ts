import { describe, expect, it } from 'vitest';
import { WriteLedger, type AttemptOutcome, type LedgerSample, type PushRecord } from './ledger.js';
import { ReferenceModel } from './model.js';

const M = 60_000;
const OK: AttemptOutcome = { kind: 'ok' };
const OUT_OF_BOUNDS: AttemptOutcome = {
  kind: 'rejected',
  code: 'invalid_argument',
  message: 'user=a: err: sample timestamp out of bounds: ts=1, min valid=2. timestamp=…',
};

/** A tiny history builder: one series per writer, pushes with one attempt each. */
class History {
  readonly ledger = new WriteLedger();

  push(
    tenant: string,
    writer: string,
    timestamps: number[],
    sentAt: number,
    answer?: { at: number; outcome: AttemptOutcome },
  ): { push: PushRecord; samples: LedgerSample[] } {
    const samples = this.ledger.scraped(
      writer,
      tenant,
      timestamps.map((ts) => ({
        series: `{w="${writer}"}`,
        labels: [['w', writer]] as [string, string][],
        timestamp: ts,
        value: ts,
      })),
      sentAt,
    );
    const push = this.ledger.newPush(writer, tenant, samples);
    const attempt = this.ledger.attemptStarted(push, sentAt);
    if (answer !== undefined) this.ledger.attemptEnded(attempt, answer.at, answer.outcome);
    return { push, samples };
  }

  model(): ReferenceModel {
    return new ReferenceModel(this.ledger, {
      tenants: [
        { name: 'a', outOfOrderWindowMs: 0 },
        { name: 'b', outOfOrderWindowMs: 2 * 60 * M },
      ],
      blockRangeMs: 120 * M,
      settleMs: 1_000,
    });
  }
}

describe('ReferenceModel: the ingestion rule', () => {
  it('refuses samples older than the acked newest minus 1h and accepts from the sent newest minus 1h', () => {
    const h = new History();
    h.push('a', 'steady', [100 * M], 100 * M, { at: 100 * M + 10, outcome: OK });
    const late = h.push('a', 'late', [30 * M, 40 * M - 1, 40 * M, 41 * M], 101 * M, {
      at: 101 * M + 10,
      outcome: OUT_OF_BOUNDS,
    });
    const m = h.model();
    expect(m.windowOf('a')).toBe(60 * M);
    expect(m.pushBounds(late.push)).toEqual({ lo: 100 * M, hi: 100 * M });
    expect(late.samples.map((s) => m.verdict(s))).toEqual([
      'must_reject',
      'must_reject',
      'must_accept',
      'must_accept',
    ]);
    // Partial acceptance: the refused push keeps its in-window samples.
    expect(late.samples.map((s) => m.expectation(s, 200 * M))).toEqual([
      'absent',
      'absent',
      'present',
      'present',
    ]);
    expect(m.ruleMessageOf('a').test(OUT_OF_BOUNDS.message)).toBe(true);
  });

  it('leaves the interleaving undecided: a push in flight may or may not have raised the max time', () => {
    const h = new History();
    h.push('a', 'steady', [100 * M], 100 * M, { at: 100 * M + 10, outcome: OK });
    // Sent before the late push was answered, acked only after it was sent.
    h.push('a', 'steady', [101 * M], 101 * M - 5, { at: 101 * M + 20, outcome: OK });
    const late = h.push('a', 'late', [40 * M + 30_000], 101 * M, {
      at: 101 * M + 10,
      outcome: OUT_OF_BOUNDS,
    });
    const m = h.model();
    expect(m.pushBounds(late.push)).toEqual({ lo: 100 * M, hi: 101 * M });
    expect(m.verdict(late.samples[0]!)).toBe('either');
    expect(m.expectation(late.samples[0]!, 200 * M)).toBe('maybe');
  });

  it('does not count an ack younger than the settle time towards the max time', () => {
    const h = new History();
    h.push('a', 'steady', [100 * M], 100 * M, { at: 100 * M + 10, outcome: OK });
    const late = h.push('a', 'late', [10 * M], 100 * M + 500, {
      at: 100 * M + 600,
      outcome: OUT_OF_BOUNDS,
    });
    const m = h.model();
    expect(m.pushBounds(late.push).lo).toBe(Number.NEGATIVE_INFINITY);
    expect(m.verdict(late.samples[0]!)).toBe('either');
  });

  it('widens the window to the tenant out-of-order window', () => {
    const h = new History();
    h.push('b', 'steady', [100 * M], 100 * M, { at: 100 * M + 10, outcome: OK });
    const late = h.push('b', 'late', [30 * M, 19 * M], 101 * M, { at: 101 * M + 10, outcome: OK });
    const m = h.model();
    expect(m.windowOf('b')).toBe(120 * M);
    expect(m.ruleMessageOf('b').test('err: sample timestamp too old: ts=1')).toBe(true);
    expect(late.samples.map((s) => m.verdict(s))).toEqual(['must_accept', 'must_accept']);
  });

  it('expectations: acked before the read is present, unsent absent, unknown open unless refused', () => {
    const h = new History();
    const acked = h.push('a', 'steady', [100 * M], 100 * M, { at: 100 * M + 10, outcome: OK });
    const unknown = h.push('a', 'steady', [101 * M], 101 * M);
    const unknownOld = h.push('a', 'late', [1 * M], 102 * M);
    const odd = h.push('a', 'late', [102 * M], 103 * M, {
      at: 103 * M + 5,
      outcome: { kind: 'rejected', code: 'invalid_argument', message: 'series limit exceeded' },
    });
    const unsent = h.ledger.scraped(
      'steady',
      'a',
      [{ series: '{w="steady"}', labels: [['w', 'steady']], timestamp: 104 * M, value: 1 }],
      0,
    );
    const m = h.model();
    expect(m.expectation(acked.samples[0]!, 200 * M)).toBe('present');
    expect(m.expectation(acked.samples[0]!, 100 * M)).toBe('maybe'); // acked after the read began
    expect(m.expectation(unknown.samples[0]!, 200 * M)).toBe('maybe');
    expect(m.expectation(unknownOld.samples[0]!, 200 * M)).toBe('absent');
    expect(m.expectation(odd.samples[0]!, 200 * M)).toBe('maybe'); // refused for another reason
    expect(m.expectation(unsent[0]!, 200 * M)).toBe('absent');
  });

  it('refuses to judge a run long enough for a head compaction', () => {
    const h = new History();
    h.push('a', 'steady', [0, 181 * M], 200 * M, { at: 200 * M + 1, outcome: OK });
    expect(() => h.model().assertNoHeadCompaction()).toThrow(/does not cover head compaction/);
    const short = new History();
    short.push('a', 'steady', [0, 179 * M], 200 * M, { at: 200 * M + 1, outcome: OK });
    expect(() => short.model().assertNoHeadCompaction()).not.toThrow();
  });
});
