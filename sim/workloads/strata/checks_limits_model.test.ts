import { describe, expect, it } from 'vitest';
import { LimitsModel, labelProblem } from './checks_limits_model.js';
import type { LimitSet, LimitsScenarioConfig } from './config_limits.js';
import { seriesKey } from './generator.js';
import { WriteLedger, type AttemptOutcome } from './ledger.js';
import { ordinaryLabels, probeLabels } from './limits_writer.js';

const EPOCH = 1_000_000;
const LIMITS: LimitSet = {
  ingestionRate: 10,
  ingestionBurstSize: 100,
  maxSeriesPerUser: 3,
  maxSeriesPerMetric: 2,
  maxLabelNamesPerSeries: 4,
  maxLabelNameLength: 10,
  maxLabelValueLength: 20,
};

function config(phases = [{ atMs: 0, limits: LIMITS }]): LimitsScenarioConfig {
  return {
    reloadPeriodMs: 2_000,
    quietMs: 13_000,
    phases,
    grow: 0,
    maxSeries: 10,
    burstEvery: 8,
    burstRun: 0,
    strategy: 'local',
    broken: 'none',
  };
}

/** Pushes `perSeries` samples of each of `series` (ordinary series indexes) at +atS, answered 5ms later. */
function world(): {
  ledger: WriteLedger;
  push: (
    atS: number,
    series: readonly (number | [string, string][])[],
    perSeries: number,
    outcome: AttemptOutcome,
  ) => void;
} {
  const ledger = new WriteLedger();
  let value = 0;
  const push = (
    atS: number,
    series: readonly (number | [string, string][])[],
    perSeries: number,
    outcome: AttemptOutcome,
  ): void => {
    const at = EPOCH + atS * 1000;
    const samples = series.flatMap((i) => {
      const labels = typeof i === 'number' ? ordinaryLabels(i) : i;
      return Array.from({ length: perSeries }, (_, j) => ({
        series: seriesKey(labels),
        labels,
        timestamp: at - j,
        value: ++value,
      }));
    });
    const p = ledger.newPush('w', 't', ledger.scraped('w', 't', samples, at));
    ledger.attemptEnded(ledger.attemptStarted(p, at), at + 5, outcome);
  };
  return { ledger, push };
}

const ok: AttemptOutcome = { kind: 'ok', status: 200 };
const rate = (n: number): AttemptOutcome => ({
  kind: 'unknown',
  code: '429',
  message: `ingestion rate limit (10) exceeded while adding ${n} samples and 0 metadata`,
});

describe('LimitsModel', () => {
  it('the token bucket: a second burst within a second must be refused', () => {
    const good = world();
    good.push(0, [0], 80, ok);
    good.push(1, [0], 80, rate(80));
    good.push(7, [0], 80, ok); // 20 + 10/s × 6s ≥ 80
    expect(new LimitsModel(good.ledger, config(), EPOCH, () => true).problems()).toEqual([]);

    const tooMany = world();
    tooMany.push(0, [0], 80, ok);
    tooMany.push(1, [0], 80, ok); // at most 20 + 10/s × 1.005s
    expect(new LimitsModel(tooMany.ledger, config(), EPOCH, () => true).problems()).toEqual([
      'push #2 of t (attempt sent +1s): 80 samples passed the rate limit although tokens between 29.9 and 30.0 (rate 10/s, burst 100)',
    ]);

    const tooFew = world();
    tooFew.push(0, [0], 50, ok);
    tooFew.push(1, [0], 50, rate(50));
    expect(new LimitsModel(tooFew.ledger, config(), EPOCH, () => true).problems()).toEqual([
      'push #2 of t (attempt sent +1s): refused by the rate limit with 50 samples although tokens between 60.0 and 60.0 (rate 10/s, burst 100)',
    ]);
  });

  it('series limits: the per-metric limit, then the per-user one, with their messages; refused series are absent', () => {
    const w = world();
    const perMetric = {
      kind: 'rejected' as const,
      code: '400',
      message:
        'user=t: per-metric series limit of 2 exceeded, please contact administrator to raise it (local limit: 0 global limit: 2 actual local limit: 2) for series {__name__="strata_lim_m0", job="strata-sim-limits", series="4"}',
    };
    // Series 0, 1, 4 are metric 0; 2 is metric 1; 3 is metric 2.
    w.push(0, [0, 1, 4], 1, perMetric);
    w.push(20, [2, 3], 1, {
      kind: 'rejected',
      code: '400',
      message:
        'user=t: per-user series limit of 3 exceeded, please contact administrator to raise it (local limit: 0 global limit: 3 actual local limit: 3)',
    });
    const model = new LimitsModel(w.ledger, config(), EPOCH, () => true);
    expect(model.problems()).toEqual([]);
    const fate = (i: number): string =>
      [...w.ledger.samples('t')]
        .filter((s) => s.series === seriesKey(ordinaryLabels(i)))
        .map((s) => model.fateOf(s))
        .join();
    expect([0, 1, 2, 3, 4].map(fate)).toEqual([
      'present',
      'present',
      'present',
      'absent',
      'absent',
    ]);

    // A limit message with the wrong number, and a 200 where the limit refuses.
    const wrong = world();
    wrong.push(0, [0, 1, 4], 1, {
      ...perMetric,
      message: perMetric.message.replace('of 2', 'of 3'),
    });
    wrong.push(20, [2, 3], 1, ok);
    expect(new LimitsModel(wrong.ledger, config(), EPOCH, () => true).problems()).toEqual([
      expect.stringMatching(
        /^push #1 of t \(attempt sent \+0s\) answered 400 "user=t: per-metric series limit of 3 exceeded/,
      ),
      expect.stringMatching(
        /^push #2 of t \(attempt sent \+20s\) answered 200, the limits in force give 400 per-user series limit of 3 exceeded/,
      ),
    ]);
  });

  it('an attempt without an answer leaves the series count, and so later new series, undecided', () => {
    const w = world();
    w.push(0, [0, 2], 1, ok);
    w.push(5, [0, 2, 3], 1, { kind: 'unknown', code: 'timeout', message: 'no answer' });
    // Series 3 may exist now; with it, series 1 would break the per-user limit of 3.
    w.push(10, [0, 2, 3, 1], 1, ok);
    const model = new LimitsModel(w.ledger, config(), EPOCH, () => true);
    expect(model.problems()).toEqual([]);
    const fates = [...w.ledger.samples('t')].map((s) => `${s.push!.id}:${model.fateOf(s)}`);
    expect(fates.sort()).toEqual(
      ['1:present', '1:present', '2:maybe', '2:maybe', '2:maybe']
        .concat(['3:maybe', '3:maybe', '3:maybe', '3:maybe'])
        .sort(),
    );
  });

  it('label limits are judged by the phase in force when the attempt was sent', () => {
    const raised: LimitSet = { ...LIMITS, maxLabelNamesPerSeries: 6 };
    const probe = probeLabels('names', 1, LIMITS); // 5 labels: over 4, within 6
    expect(probe).toHaveLength(5);
    expect(labelProblem(probe, LIMITS)?.kind).toBe('label_names');
    expect(labelProblem(probe, raised)).toBeUndefined();
    const refused = {
      kind: 'rejected' as const,
      code: '400',
      message: `series has too many labels (actual: 5, limit: 4) series: 'strata_lim_probe{…}'`,
    };
    const phases = [
      { atMs: 0, limits: LIMITS },
      { atMs: 30_000, limits: raised },
    ];
    const w = world();
    w.push(0, [probe], 1, refused);
    w.push(45, [probe], 1, ok);
    const model = new LimitsModel(w.ledger, config(phases), EPOCH, () => true);
    expect(model.problems()).toEqual([]);
    expect([...w.ledger.samples('t')].map((s) => model.fateOf(s))).toEqual(['absent', 'present']);

    const stale = world();
    stale.push(45, [probe], 1, refused);
    expect(new LimitsModel(stale.ledger, config(phases), EPOCH, () => true).problems()).toEqual([
      "push #1 of t (attempt sent +45s) answered 400 (series has too many labels (actual: 5, limit: 4) series: 'strata_lim_probe{…}'), the limits in force give 200",
    ]);
  });
});
