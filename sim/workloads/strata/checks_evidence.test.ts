import { describe, expect, it } from 'vitest';
import { AckLedger } from '../pingpong/ledger.js';
import { checkDurability, checkLiveness as checkPingPongLiveness } from '../pingpong/checks.js';
import { checkAckedReadableExactlyOnce, checkIngestionRule, checkLiveness } from './checks.js';
import { checkOneCompactorPerTenant } from './checks_compaction.js';
import { checkBlocksShipped } from './checks_long_term.js';
import { WriteLedger, type AttemptOutcome } from './ledger.js';
import { ReferenceModel } from './model.js';
import { ReadLog } from './read_log.js';

const M = 60_000;
const KEY = '{__name__="m"}';

/** Tenant a: one sample at 100m, pushed twice (a 503, then a 200), and a read at 200m. */
function world(read: boolean) {
  const ledger = new WriteLedger();
  const [sample] = ledger.scraped(
    'w1',
    'a',
    [{ series: KEY, labels: [], timestamp: 100 * M, value: 1 }],
    100 * M,
  );
  const push = ledger.newPush('w1', 'a', [sample!]);
  const unknown: AttemptOutcome = { kind: 'unknown', code: '503', message: 'unavailable' };
  ledger.attemptEnded(ledger.attemptStarted(push, 100 * M), 100 * M + 50, unknown);
  ledger.attemptEnded(ledger.attemptStarted(push, 100 * M + 500), 100 * M + 510, {
    kind: 'ok',
    status: 200,
  });
  const reads = new ReadLog();
  if (read)
    reads.finalReads.set('a', {
      tenant: 'a',
      startedAt: 200 * M,
      answeredAt: 200 * M + 30,
      attempts: 1,
      series: [],
    });
  const model = new ReferenceModel(ledger, {
    tenants: [{ name: 'a', outOfOrderWindowMs: 0 }],
    blockRangeMs: 120 * M,
    settleMs: 1_000,
  });
  return { ledger, ctx: { ledger, model, reads, tenants: ['a'], epochMs: 0 } };
}

describe('violation evidence', () => {
  it('a lost acknowledged sample: every attempt of its push, then the read that missed it', () => {
    const r = checkAckedReadableExactlyOnce(world(true).ctx);
    expect(r.verdict).toBe('fail');
    expect(r.violations).toHaveLength(1);
    const v = r.violations![0]!;
    expect(v.message).toMatch(/^lost: a /);
    expect(v.observedAt).toBe(200 * M + 30);
    expect(v.samples).toEqual([{ tenant: 'a', series: KEY, timestamp: 100 * M }]);
    expect(v.events.map((e) => [e.at, e.node, e.kind])).toEqual([
      [100 * M, 'w1', 'push.sent'],
      [100 * M + 50, 'w1', 'push.unknown'],
      [100 * M + 500, 'w1', 'push.sent'],
      [100 * M + 510, 'w1', 'push.acked'],
      [200 * M, '-', 'read'],
    ]);
    expect(v.events[1]!.detail).toBe('push #1 of a (1 samples) attempt 1: 503 unavailable');
  });

  it('a failure without a time (no read at all) carries no observation time', () => {
    const r = checkAckedReadableExactlyOnce(world(false).ctx);
    expect(r.violations).toEqual([
      { message: 'no final read of tenant a was answered (never attempted)', events: [] },
    ]);
  });

  it('liveness: observed at the deadline, with the attempts before it', () => {
    const { ctx } = world(true);
    const r = checkLiveness(ctx, {
      quietAtMs: 0,
      withinMs: 200,
      judgeUntilMs: 300 * M,
      sendableAt: (s) => s.scrapedAt,
    });
    expect(r.verdict).toBe('fail');
    const v = r.violations![0]!;
    expect(v.observedAt).toBe(100 * M + 200);
    expect(v.events.map((e) => e.kind)).toEqual(['push.sent', 'push.unknown']);
  });

  it('ingestion rule: a refusal with the wrong message is observed when it was answered', () => {
    const ledger = new WriteLedger();
    const samples = ledger.scraped(
      'w1',
      'a',
      [{ series: KEY, labels: [], timestamp: 100 * M, value: 1 }],
      100 * M,
    );
    const push = ledger.newPush('w1', 'a', samples);
    ledger.attemptEnded(ledger.attemptStarted(push, 100 * M), 100 * M + 20, {
      kind: 'rejected',
      code: '400',
      message: 'something else',
    });
    const model = new ReferenceModel(ledger, {
      tenants: [{ name: 'a', outOfOrderWindowMs: 0 }],
      blockRangeMs: 120 * M,
      settleMs: 1_000,
    });
    const r = checkIngestionRule(
      { ledger, model, reads: new ReadLog(), tenants: ['a'], epochMs: 0 },
      { expectRejected: [] },
    );
    expect(r.verdict).toBe('fail');
    expect(r.violations![0]).toMatchObject({ observedAt: 100 * M + 20 });
    expect(r.violations![0]!.events.map((e) => e.kind)).toEqual(['push.sent', 'push.refused']);
  });

  it('blocks_shipped: the block cut on its node, observed at its shipping deadline', () => {
    const r = checkBlocksShipped({
      blocks: [{ node: 'i1', tenant: 't', ulid: '01JAAAAAAAAAAAAAAAAAAAAAA1', cutAt: 8 * M }],
      shippedAt: new Map(),
      compacted: new Set(),
      onDisk: () => true,
      powerLosses: () => [],
      quietAtMs: 5 * M,
      withinMs: 2 * M,
      judgeUntilMs: 20 * M,
      minBlocks: 1,
      epochMs: 0,
    });
    expect(r.violations).toEqual([
      expect.objectContaining({
        observedAt: 10 * M,
        nodes: ['i1'],
        events: [
          {
            at: 8 * M,
            node: 'i1',
            kind: 'block.cut',
            detail: 'block 01JAAAAAAAAAAAAAAAAAAAAAA1 of t',
          },
        ],
      }),
    ]);
  });

  it('one_compactor_per_tenant: observed when the second compactor first wrote, on both lanes', () => {
    const write = (at: number, by: string, name: string) =>
      ({ at, op: 'upload', name, existed: false, by }) as const;
    const r = checkOneCompactorPerTenant({
      history: [
        write(1 * M, 'c1', 't/bucket-index.json.gz'),
        write(3 * M, 'c2', 't/markers/x'),
        write(4 * M, 'c1', 't/y'),
      ],
      compactors: new Set(['c1', 'c2']),
      tenants: ['t'],
      windows: [],
      epochMs: 0,
      endMs: 10 * M,
    });
    expect(r.verdict).toBe('fail');
    expect(r.violations).toEqual([
      expect.objectContaining({
        observedAt: 3 * M,
        nodes: ['c1', 'c2'],
        events: [
          { at: 1 * M, node: 'c1', kind: 'object.uploaded', detail: 't/bucket-index.json.gz' },
          { at: 3 * M, node: 'c2', kind: 'object.uploaded', detail: 't/markers/x' },
        ],
      }),
    ]);
  });

  it('pingpong: a lost id names the receiver; a late one is observed at its deadline', () => {
    const ledger = new AckLedger();
    ledger.sent(7, 1000);
    ledger.acked(7, 1010);
    ledger.sent(8, 2000);
    const nodes = { sender: 'a', receiver: 'b' };
    const durability = checkDurability(
      ledger,
      { entries: [], incompleteTail: 0 },
      'b:/log',
      0,
      nodes,
    );
    expect(durability.violations).toEqual([
      {
        message: 'acknowledged id 7 is missing from b:/log',
        events: [
          { at: 1000, node: 'a', kind: 'msg.sent', detail: 'id 7' },
          { at: 1010, node: 'a', kind: 'msg.acked', detail: 'id 7' },
        ],
        nodes: ['b'],
      },
    ]);
    const late = checkPingPongLiveness(ledger, {
      quietAtMs: 0,
      withinMs: 500,
      endMs: 10_000,
      epochMs: 0,
      expectedMessages: 2,
      sender: 'a',
    });
    expect(late.violations).toEqual([
      {
        message: 'id 8 not acknowledged by its deadline',
        observedAt: 2500,
        events: [{ at: 2000, node: 'a', kind: 'msg.sent', detail: 'id 8' }],
      },
    ]);
  });
});
