import { describe, expect, it } from 'vitest';
import { checkNoRequestLost, checkTenantFairness } from './checks_frontend.js';
import type { QuerySpec } from './config.js';
import { FrontendLog, type FrontendRequest } from './frontend_load.js';

const EPOCH = 1_000_000;
const QUERIES: QuerySpec[] = [
  { kind: 'count_over_time', tenant: 'team-a', metric: 'm0', rangeMs: 60_000, atMs: [] },
  { kind: 'sum', tenant: 'team-b', metric: 'm1', rangeMs: 0, atMs: [] },
];
const FLOOD = { tenant: 'team-b', concurrency: 4, fromMs: 60_000, untilMs: 120_000 };

/** A request; `unanswered` drops the answer (still waiting when the run ended). */
function req(over: Partial<FrontendRequest>, unanswered = false): FrontendRequest {
  const r: FrontendRequest = {
    kind: 'mix',
    tenant: 'team-a',
    query: 0,
    startMs: EPOCH,
    endMs: EPOCH + 60_000,
    stepMs: 15_000,
    sentAt: EPOCH + 70_000,
    answeredAt: EPOCH + 70_100,
    outcome: 200,
    ...over,
  };
  if (unanswered) {
    delete r.answeredAt;
    delete r.outcome;
  }
  return r;
}

function logOf(...requests: FrontendRequest[]): FrontendLog {
  const log = new FrontendLog();
  log.requests.push(...requests);
  return log;
}

describe('no_request_lost', () => {
  const opts = { expectOk: true, flooder: 'team-b' };
  it('passes answered requests and the flooder’s 429s; abandoned ones are not judged', () => {
    const r = checkNoRequestLost(
      logOf(
        req({}),
        req({ kind: 'flood', tenant: 'team-b', query: 1, outcome: 429 }),
        req({ outcome: 'aborted' }),
      ),
      EPOCH,
      QUERIES,
      opts,
    );
    expect(r.verdict).toBe('pass');
    expect(r.detail).toBe('2 range quer(ies) through the frontend all answered (200: 1, 429: 1)');
  });

  it('fails a request that timed out or never got an answer, naming it', () => {
    const r = checkNoRequestLost(
      logOf(
        req({ outcome: 'timeout', error: 'timed out', answeredAt: EPOCH + 130_000 }),
        req({ sentAt: EPOCH + 80_000 }, true),
      ),
      EPOCH,
      QUERIES,
      opts,
    );
    expect(r.verdict).toBe('fail');
    expect(r.detail).toContain(
      'mix team-a: count_over_time(m0[1m0s]) over [+0s, +1m0s] step 15s sent at +1m10s: lost (timed out)',
    );
    expect(r.detail).toContain('lost (no answer by the end of the run)');
  });

  it('with expect_ok, fails a 502 and a 429 of a tenant that does not flood', () => {
    const log = logOf(req({ outcome: 502, error: 'bad gateway' }), req({ outcome: 429 }));
    expect(checkNoRequestLost(log, EPOCH, QUERIES, opts).detail).toMatch(
      /^2 request\(s\) lost or failed: .*HTTP 502 \(bad gateway\).*HTTP 429/,
    );
    expect(checkNoRequestLost(log, EPOCH, QUERIES, { ...opts, expectOk: false }).verdict).toBe(
      'pass',
    );
  });
});

describe('tenant_fairness', () => {
  it('passes when the other tenant’s queries during the flood finish within the bound', () => {
    const r = checkTenantFairness(
      logOf(req({}), req({ kind: 'flood', tenant: 'team-b', query: 1, outcome: 429 })),
      EPOCH,
      QUERIES,
      { withinMs: 1_000, flood: FLOOD },
    );
    expect(r.verdict).toBe('pass');
    expect(r.detail).toBe(
      '1 quer(ies) of other tenants during the flood (1 refusals of team-b) each finished within 1s (slowest 100ms)',
    );
  });

  it('fails a starved query, and a flood that never filled its queue', () => {
    const slow = checkTenantFairness(
      logOf(
        req({ answeredAt: EPOCH + 75_000 }),
        req({ kind: 'flood', tenant: 'team-b', query: 1, outcome: 429 }),
      ),
      EPOCH,
      QUERIES,
      { withinMs: 1_000, flood: FLOOD },
    );
    expect(slow.verdict).toBe('fail');
    expect(slow.detail).toContain('answered after 5s (bound 1s)');
    const neverFull = checkTenantFairness(logOf(req({})), EPOCH, QUERIES, {
      withinMs: 1_000,
      flood: FLOOD,
    });
    expect(neverFull.detail).toContain(
      'team-b was never refused with 429: its queue was never full',
    );
  });

  it('does not judge queries sent outside the flood', () => {
    const r = checkTenantFairness(
      logOf(
        req({ sentAt: EPOCH + 10_000, answeredAt: EPOCH + 50_000 }),
        req({}),
        req({ kind: 'flood', tenant: 'team-b', query: 1, outcome: 429 }),
      ),
      EPOCH,
      QUERIES,
      { withinMs: 1_000, flood: FLOOD },
    );
    expect(r.verdict).toBe('pass');
  });
});
