import { describe, expect, it } from 'vitest';
import { WriteLedger, type AttemptOutcome, type LedgerSample, type PushRecord } from './ledger.js';
import { ReferenceModel, type ReferenceModelConfig } from './model.js';
import { ReplicaHistory, type ReplicaEvent } from './model_replicas.js';

const S = 1_000;
const M = 60_000;
const OK: AttemptOutcome = { kind: 'ok', status: 200 };
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

  /** A writer on time: one sample every `every` from `from` to `until`, each acked 10ms later. */
  steady(tenant: string, from: number, until: number, every = 10 * S): void {
    for (let t = from; t < until; t += every)
      this.push(tenant, 'steady', [t], t, { at: t + 10, outcome: OK });
  }

  model(over: Partial<ReferenceModelConfig> = {}): ReferenceModel {
    return new ReferenceModel(this.ledger, {
      tenants: [
        { name: 'a', outOfOrderWindowMs: 0 },
        { name: 'b', outOfOrderWindowMs: 2 * 60 * M },
        { name: 'c', outOfOrderWindowMs: 20 * S },
      ],
      blockRangeMs: 120 * M,
      settleMs: 1_000,
      ...over,
    });
  }
}

/** Three ingesters started at 0 with the given lifecycle events. */
function replicas(events: ReplicaEvent[], flushOnStop = false): ReplicaHistory {
  return new ReplicaHistory({
    nodes: ['i1', 'i2', 'i3'],
    startAt: 0,
    events,
    flushOnStop,
    readyGraceMs: 5 * S,
  });
}

/** Block range 2m (rule window 1m); the head is cut every minute or so. */
const SHORT = { blockRangeMs: 2 * M };

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
    expect(m.pushBounds(late.push)).toEqual({
      lo: 100 * M,
      hi: 100 * M,
      refuseBelow: 40 * M,
      acceptFrom: 40 * M,
    });
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
    expect(m.pushBounds(late.push)).toMatchObject({ lo: 100 * M, hi: 101 * M });
    expect(m.verdict(late.samples[0]!)).toBe('either');
    expect(m.verdicts(late.push)).toEqual(['either']);
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
});

describe('ReferenceModel: runs spanning several block ranges', () => {
  it('regular head compaction leaves the rule where it was: the window slides with the max time', () => {
    const h = new History();
    h.steady('a', 10 * S, 20 * M); // ten 2m block ranges; the head is cut about every 2m
    const probes = [5, 11, 19].map((minute) =>
      h.push('a', 'late', [(minute - 1) * M - 1, (minute - 1) * M + 10 * S], minute * M + 5 * S, {
        at: minute * M + 5 * S + 10,
        outcome: OUT_OF_BOUNDS,
      }),
    );
    const m = h.model(SHORT);
    for (const p of probes) {
      // The newest sample acked settle before the probe is the minute's; one minute back
      // is the floor, whatever was cut into blocks before.
      expect(p.samples.map((s) => m.verdict(s))).toEqual(['must_reject', 'must_accept']);
      expect(p.samples.map((s) => m.expectation(s, 21 * M))).toEqual(['absent', 'present']);
    }
    // Acknowledged samples stay present however many blocks were cut, shipped and deleted.
    for (const s of h.ledger.samples('a'))
      if (s.writer === 'steady') expect(m.expectation(s, 21 * M)).toBe('present');
  });

  it('a forced flush raises the floor to its max time + 1 on the restarted replica (no window)', () => {
    const h = new History();
    h.steady('a', 10 * S, 20 * M);
    // A lagging series catches up after i2 flushed on a graceful stop (10m) and restarted
    // (10m30s): its head's minimum valid time is the newest sample before the stop + 1.
    const lagging = h.push('a', 'lagging', [10 * M - 5 * S, 10 * M + 40 * S], 10 * M + 45 * S, {
      at: 10 * M + 45 * S + 10,
      outcome: OUT_OF_BOUNDS,
    });
    const events: ReplicaEvent[] = [
      { at: 10 * M, node: 'i2', kind: 'stop' },
      { at: 10 * M + 30 * S, node: 'i2', kind: 'start' },
    ];
    const flushing = h.model({ ...SHORT, replicas: replicas(events, true) });
    const b = flushing.pushBounds(lagging.push);
    expect(b.acceptFrom).toBe(10 * M + 20 * S + 1); // newest sent before the restart + 1
    expect(lagging.samples.map((s) => flushing.verdict(s))).toEqual(['either', 'must_accept']);
    expect(flushing.expectation(lagging.samples[0]!, 21 * M)).toBe('maybe');
    // Without flush on shutdown the stop is a restart like any other: the floor is hi − 1m.
    const plain = h.model({ ...SHORT, replicas: replicas(events, false) });
    expect(plain.pushBounds(lagging.push).acceptFrom).toBe(10 * M + 40 * S - M);
    expect(lagging.samples.map((s) => plain.verdict(s))).toEqual(['must_accept', 'must_accept']);
  });

  it('a forced flush does not matter with an out-of-order window covering half a range', () => {
    const h = new History();
    h.steady('b', 10 * S, 20 * M);
    h.steady('c', 10 * S, 20 * M);
    const events: ReplicaEvent[] = [
      { at: 10 * M, node: 'i2', kind: 'stop' },
      { at: 10 * M + 30 * S, node: 'i2', kind: 'start' },
    ];
    const lagB = h.push('b', 'lagging', [10 * M - 5 * S], 10 * M + 45 * S, {
      at: 10 * M + 45 * S + 10,
      outcome: OK,
    });
    const lagC = h.push('c', 'lagging', [10 * M - 5 * S, 10 * M + 25 * S], 10 * M + 45 * S, {
      at: 10 * M + 45 * S + 10,
      outcome: OK,
    });
    const m = h.model({ ...SHORT, replicas: replicas(events, true) });
    // b: the window (2h) accepts out of order below the flushed floor.
    expect(m.verdict(lagB.samples[0]!)).toBe('must_accept');
    // c: a 20s window; the out-of-order path takes what is within 20s of the max time.
    expect(m.pushBounds(lagC.push).acceptFrom).toBe(10 * M + 40 * S - 20 * S);
    expect(lagC.samples.map((s) => m.verdict(s))).toEqual(['either', 'must_accept']);
  });

  it('a crash keeps a replica’s max time (the WAL replays); a power loss may lose it', () => {
    const h = new History();
    h.steady('a', 10 * S, 20 * M);
    const late = (at: number): { push: PushRecord; samples: LedgerSample[] } =>
      h.push('a', 'late', [at - 3 * M], at, { at: at + 10, outcome: OUT_OF_BOUNDS });
    const justAfter = late(8 * M + 12 * S); // i1 came back at 8m10s
    const later = late(9 * M); // pushes acked since have reached i1 again
    const crash = h.model({
      ...SHORT,
      replicas: replicas([
        { at: 8 * M, node: 'i1', kind: 'crash' },
        { at: 8 * M + 10 * S, node: 'i1', kind: 'restart' },
      ]),
    });
    expect(crash.pushBounds(justAfter.push).lo).toBe(8 * M - 10 * S);
    expect(crash.verdict(justAfter.samples[0]!)).toBe('must_reject');
    const power = h.model({
      ...SHORT,
      replicas: replicas([
        { at: 8 * M, node: 'i1', kind: 'power_loss' },
        { at: 8 * M + 10 * S, node: 'i1', kind: 'restart' },
      ]),
    });
    expect(power.pushBounds(justAfter.push).lo).toBe(Number.NEGATIVE_INFINITY);
    expect(power.verdict(justAfter.samples[0]!)).toBe('either');
    expect(power.expectation(justAfter.samples[0]!, 21 * M)).toBe('maybe');
    // Pushes sent after the restart and its grace were applied by i1 again.
    expect(power.pushBounds(later.push).lo).toBe(9 * M - 10 * S);
    expect(power.verdict(later.samples[0]!)).toBe('must_reject');
  });

  it('pushes acked while a replica was down do not raise its bound', () => {
    const h = new History();
    h.steady('a', 10 * S, 20 * M);
    const events: ReplicaEvent[] = [
      { at: 5 * M, node: 'i3', kind: 'crash' },
      { at: 7 * M, node: 'i3', kind: 'restart' },
    ];
    const late = h.push('a', 'late', [5 * M], 7 * M + 2 * S, {
      at: 7 * M + 2 * S + 10,
      outcome: OUT_OF_BOUNDS,
    });
    const m = h.model({ ...SHORT, replicas: replicas(events) });
    // i3 holds what it had before its crash (newest 4m50s): 5m is within its window.
    expect(m.pushBounds(late.push).lo).toBe(5 * M - 10 * S);
    expect(m.verdict(late.samples[0]!)).toBe('either');
    expect(h.model(SHORT).verdict(late.samples[0]!)).toBe('must_reject');
  });

  it('refuses nothing when a replica holds only some series (more ingesters than RF)', () => {
    const h = new History();
    h.steady('a', 10 * S, 10 * M);
    const late = h.push('a', 'late', [1 * M], 9 * M, { at: 9 * M + 10, outcome: OUT_OF_BOUNDS });
    const m = h.model({ ...SHORT, replicas: replicas([]), replicationFactor: 2 });
    expect(m.pushBounds(late.push).refuseBelow).toBe(Number.NEGATIVE_INFINITY);
    expect(m.verdict(late.samples[0]!)).toBe('either');
  });
});

describe('ReplicaHistory', () => {
  it('follows lives from the schedule: crashes, power losses, restarts, stops', () => {
    const h = new ReplicaHistory({
      nodes: ['i1', 'i2'],
      startAt: 0,
      events: [
        { at: 10 * S, node: 'i1', kind: 'crash' },
        { at: 20 * S, node: 'i1', kind: 'power_loss' }, // while down: the disk still loses
        { at: 30 * S, node: 'i1', kind: 'restart' },
        { at: 40 * S, node: 'i1', kind: 'restart' }, // of a running process: kills it first
        { at: 50 * S, node: 'i2', kind: 'stop' },
        { at: 55 * S, node: 'i2', kind: 'start' },
        { at: 56 * S, node: 'i2', kind: 'start' }, // already up: nothing
        { at: 5 * S, node: 'other', kind: 'crash' }, // not an ingester
      ],
      flushOnStop: true,
      readyGraceMs: 1 * S,
    });
    expect(h.firstUpIn('i1', 12 * S, 60 * S)).toBe(30 * S);
    expect(h.firstUpIn('i1', 12 * S, 25 * S)).toBeUndefined();
    expect(h.steadyOver('i1', 2 * S, 9 * S)).toBe(true);
    expect(h.steadyOver('i1', 2 * S, 10 * S)).toBe(false);
    expect(h.steadyOver('i1', 30 * S, 35 * S)).toBe(false); // within the ready grace
    expect(h.steadyOver('i1', 31 * S, 39 * S)).toBe(true);
    expect(h.resetIn('i1', 0, 25 * S)).toBe(true);
    expect(h.resetIn('i1', 21 * S, 60 * S)).toBe(false); // the second restart kept the WAL
    expect(h.resetIn('i2', 0, 60 * S)).toBe(true); // a flushing stop empties the head
    expect(h.flushesBackBy(54 * S)).toEqual([]);
    expect(h.flushesBackBy(55 * S)).toEqual([{ node: 'i2', at: 50 * S, restartAt: 55 * S }]);
  });
});
