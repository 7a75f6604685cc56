import { describe, expect, it } from 'vitest';
import type { GeneratedSample } from './generator.js';
import {
  WriteLedger,
  pushStatus,
  resolvedAt,
  sampleStatus,
  statusCounts,
  type LedgerSample,
} from './ledger.js';

function scrape(ledger: WriteLedger, tenant: string, ts: number, n = 2): LedgerSample[] {
  const samples = Array.from({ length: n }, (_, i) => ({
    series: `{s="${i}"}`,
    labels: [['s', String(i)]] as [string, string][],
    timestamp: ts,
    value: ts + i,
  }));
  return ledger.scraped('w', tenant, samples, ts);
}

describe('WriteLedger', () => {
  it('tracks samples from scrape to push outcome', () => {
    const ledger = new WriteLedger();
    const [a, b] = [scrape(ledger, 't', 10), scrape(ledger, 't', 20)];
    const c = scrape(ledger, 't', 30);
    expect(sampleStatus(a[0]!)).toBe('unsent');

    const pa = ledger.newPush('w', 't', a);
    ledger.attemptEnded(ledger.attemptStarted(pa, 11), 12, { kind: 'ok', status: 200 });
    expect(sampleStatus(a[1]!)).toBe('acked');
    expect(resolvedAt(pa)).toBe(12);

    const pb = ledger.newPush('w', 't', b);
    ledger.attemptEnded(ledger.attemptStarted(pb, 21), 22, {
      kind: 'unknown',
      code: 'deadline_exceeded',
      message: 'timed out',
    });
    ledger.attemptEnded(ledger.attemptStarted(pb, 25), 26, {
      kind: 'rejected',
      code: 'invalid_argument',
      message: 'out of bounds',
    });
    // The first attempt may have stored the samples: a later 4xx does not make them refused.
    expect(pushStatus(pb)).toBe('unknown');
    expect(resolvedAt(pb)).toBe(26);

    const pc = ledger.newPush('w', 't', c);
    ledger.attemptStarted(pc, 31); // still in flight when the run ended
    expect(pushStatus(pc)).toBe('unknown');
    expect(resolvedAt(pc)).toBeUndefined();

    expect(statusCounts(ledger)).toEqual({ acked: 2, rejected: 0, unknown: 4, unsent: 0 });
    expect(ledger.lookup('t', '{s="1"}', 20)?.value).toBe(21);
    expect([...ledger.samples('t')]).toHaveLength(6);
    expect(ledger.generatedCount).toBe(6);
  });

  it('a push refused at its only attempt is rejected', () => {
    const ledger = new WriteLedger();
    const p = ledger.newPush('w', 't', scrape(ledger, 't', 1));
    ledger.attemptEnded(ledger.attemptStarted(p, 2), 3, {
      kind: 'rejected',
      code: 'invalid_argument',
      message: 'x',
    });
    expect(pushStatus(p)).toBe('rejected');
  });

  it('walks samples series by series, each in time order, for one tenant or all', () => {
    const ledger = new WriteLedger();
    scrape(ledger, 't', 10);
    scrape(ledger, 'u', 15, 1);
    scrape(ledger, 't', 20);
    const order = (it: Iterable<LedgerSample>): string[] =>
      [...it].map((s) => `${s.tenant}${s.series}@${s.timestamp}`);
    expect(order(ledger.samples('t'))).toEqual([
      't{s="0"}@10',
      't{s="0"}@20',
      't{s="1"}@10',
      't{s="1"}@20',
    ]);
    expect(order(ledger.samples())).toEqual([...order(ledger.samples('t')), 'u{s="0"}@15']);
    expect(order(ledger.samples('none'))).toEqual([]);
  });

  it('records several samples of a series in one call, and refuses a repeated timestamp in it', () => {
    const ledger = new WriteLedger();
    const sample = (series: string, timestamp: number): GeneratedSample => ({
      series,
      labels: [['s', series]],
      timestamp,
      value: timestamp,
    });
    const recs = ledger.scraped('w', 't', [sample('A', 1), sample('A', 2), sample('B', 1)], 0);
    expect(recs.map((r) => [r.series, r.timestamp, r.push])).toEqual([
      ['A', 1, undefined],
      ['A', 2, undefined],
      ['B', 1, undefined],
    ]);
    expect(ledger.lookup('t', 'A', 2)).toBe(recs[1]);
    expect(() => ledger.scraped('w', 't', [sample('C', 1), sample('C', 1)], 0)).toThrow(
      /C already has a sample at 1/,
    );
  });

  it('refuses a sample scraped twice or pushed twice', () => {
    const ledger = new WriteLedger();
    const s = scrape(ledger, 't', 5);
    expect(() => scrape(ledger, 't', 5)).toThrow(/already has a sample at 5/);
    ledger.newPush('w', 't', s);
    expect(() => ledger.newPush('w', 't', s)).toThrow(/already in push 1/);
  });
});
