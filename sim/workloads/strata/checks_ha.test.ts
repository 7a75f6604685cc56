import { describe, expect, it } from 'vitest';
import {
  checkHaFailover,
  checkHaOneReplicaAtATime,
  checkHaReads,
  type HaCheckContext,
} from './checks_ha.js';
import type { HaConfig } from './config_ha.js';
import { seriesKey } from './generator.js';
import { haSeriesLabels } from './ha_writer.js';
import { WriteLedger } from './ledger.js';
import { ReadLog } from './read_log.js';

const EPOCH = 1_000_000;
const HA: HaConfig = {
  updateTimeoutMs: 4_000,
  updateTimeoutJitterMaxMs: 2_000,
  failoverTimeoutMs: 10_000,
  clusters: new Map([['c', ['a1', 'a2']]]),
  series: 1,
  broken: 'none',
};

/** A ledger of one-sample pushes of slot 0 of cluster `c` (tenant `t`), answered 10ms later. */
function world(): {
  ledger: WriteLedger;
  reads: ReadLog;
  ctx: HaCheckContext;
  push: (replica: string, atS: number, status: 200 | 202) => void;
} {
  const ledger = new WriteLedger();
  const reads = new ReadLog();
  let value = 0;
  const push = (replica: string, atS: number, status: 200 | 202): void => {
    const labels = haSeriesLabels('c', replica, 0);
    const at = EPOCH + atS * 1000;
    const [s] = ledger.scraped(
      replica,
      't',
      [{ series: seriesKey(labels), labels, timestamp: at, value: ++value }],
      at,
    );
    const p = ledger.newPush(replica, 't', [s!]);
    ledger.attemptEnded(ledger.attemptStarted(p, at), at + 10, { kind: 'ok', status });
  };
  const ctx: HaCheckContext = {
    ledger,
    reads,
    ha: HA,
    tenants: ['t'],
    epochMs: EPOCH,
    intervalMs: 2_000,
    timeoutMs: 2_000,
    scrapeStartMs: 0,
    scrapeStopMs: 60_000,
  };
  return { ledger, reads, ctx, push };
}

/** The final read holds, for cluster c slot 0 (replica label removed), these accepted samples. */
function readBack(w: ReturnType<typeof world>, opts: { keepReplica?: boolean } = {}): void {
  const stored = [...w.ledger.samples('t')].filter((s) =>
    s.push!.attempts.some((a) => a.outcome?.kind === 'ok' && a.outcome.status === 200),
  );
  const labels = haSeriesLabels('c', opts.keepReplica === true ? 'a1' : undefined, 0);
  w.reads.finalReads.set('t', {
    tenant: 't',
    startedAt: EPOCH + 70_000,
    answeredAt: EPOCH + 70_010,
    attempts: 1,
    series: [
      {
        key: seriesKey(labels),
        labels,
        timestamps: stored.map((s) => s.timestamp),
        values: stored.map((s) => s.value),
      },
    ],
  });
}

/** a1 elected until it dies after +20s; a2 dropped until the failover, accepted from +31s. */
function failover(w: ReturnType<typeof world>): void {
  for (let t = 0; t <= 20; t += 2) {
    w.push('a1', t, 200);
    w.push('a2', t + 1, 202);
  }
  for (let t = 23; t < 60; t += 2) w.push('a2', t, t < 31 ? 202 : 200);
}

describe('HA checks', () => {
  it('pass a failover after the elected replica fell silent for the failover timeout', () => {
    const w = world();
    failover(w);
    readBack(w);
    expect(checkHaOneReplicaAtATime(w.ctx)).toMatchObject({ verdict: 'pass' });
    const f = checkHaFailover(w.ctx, { expectFailover: ['c'] });
    expect(f).toMatchObject({ verdict: 'pass' });
    expect(f.detail).toContain('t/c 15 dropped, slowest failover 11s');
    expect(checkHaReads(w.ctx, { maxGapMs: 15_000 })).toMatchObject({ verdict: 'pass' });
  });

  it('ha_one_replica_at_a_time fails when both replicas are accepted together', () => {
    const w = world();
    for (let t = 0; t <= 20; t += 2) {
      w.push('a1', t, 200);
      w.push('a2', t + 1, 200);
    }
    const r = checkHaOneReplicaAtATime(w.ctx);
    expect(r.verdict).toBe('fail');
    expect(r.detail).toMatch(
      /^21 time\(s\) two replicas of one cluster were accepted together: t\/c: a2 accepted \(push #2 sent \+1s\) only 1.01s after a1 was \(push #1 sent \+0s\); a failover needs the elected replica silent for 10s, so at least 4s apart/,
    );
  });

  it('ha_failover fails on a 202 when the elected replica was silent for the failover timeout', () => {
    const w = world();
    for (let t = 0; t <= 20; t += 2) w.push('a1', t, 200);
    for (let t = 23; t < 40; t += 2) w.push('a2', t, 202);
    const r = checkHaFailover(w.ctx, { expectFailover: ['c'] });
    expect(r.verdict).toBe('fail');
    // +31s is within the failover timeout plus the 1s message allowance; +33s is not.
    expect(r.detail).toMatch(/^5 violation\(s\)/);
    expect(r.detail).toContain(
      "t/c: a2's push #17 sent +33s was dropped (202) although no other replica was heard from in the 10s before (a1 last heard +20.01s)",
    );
    expect(r.detail).toContain(
      't/c: never failed over; the scenario does not exercise the failover',
    );
  });

  it('ha_reads_match fails on the replica label, a dropped sample stored and a gap', () => {
    const w = world();
    failover(w);
    readBack(w, { keepReplica: true });
    expect(checkHaReads(w.ctx, { maxGapMs: 15_000 }).detail).toMatch(
      /is stored with the replica label/,
    );

    const dropped = world();
    failover(dropped);
    readBack(dropped);
    // A 202'd sample of a2 shows up in the read.
    const s = [...dropped.ledger.samples('t')].find((x) => x.writer === 'a2')!;
    const series = dropped.reads.finalReads.get('t')!.series[0]!;
    series.timestamps.push(s.timestamp);
    series.values.push(s.value);
    const r = checkHaReads(dropped.ctx, { maxGapMs: 15_000 });
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain(
      `t=+1s from a2 is stored although its push #${s.push!.id} was only answered 202`,
    );

    const gap = world();
    failover(gap);
    readBack(gap);
    const r2 = checkHaReads(gap.ctx, { maxGapMs: 8_000 });
    expect(r2.verdict).toBe('fail');
    expect(r2.detail).toContain('no sample stored from +20s to +31s (11s, more than 8s)');
  });
});
