import { describe, expect, it } from 'vitest';
import type { CheckResult, RunEvent } from '../workloads/index.js';
import { firstFailure, formatFirstFailure } from './failure_window.js';
import { faultTimeline } from './fault_timeline.js';

const EPOCH = 1_000_000;
const END = EPOCH + 300_000;
const t = (s: number): number => EPOCH + s * 1000;

const push = (s: number, kind: string, detail = 'push #1'): RunEvent => ({
  at: t(s),
  node: 'writer-1',
  kind,
  detail,
});

const faults: RunEvent[] = [
  { at: t(10), node: 'ingester-1', kind: 'crash', detail: 'crash ingester-1' },
  { at: t(15), node: 'ingester-1', kind: 'restart', detail: 'restart ingester-1' },
  { at: t(40), node: 'ingester-2', kind: 'power_loss', detail: 'power loss ingester-2' },
  { at: t(45), node: 'ingester-2', kind: 'restart', detail: 'restart ingester-2' },
  { at: t(200), node: 'ingester-1', kind: 'crash', detail: 'crash ingester-1' },
];

function fail(name: string, violations?: CheckResult['violations']): CheckResult {
  return { name, verdict: 'fail', detail: `${name} failed`, ...(violations ? { violations } : {}) };
}

describe('firstFailure', () => {
  it('is undefined when every check passes', () => {
    const checks: CheckResult[] = [{ name: 'a', verdict: 'pass', detail: 'ok' }];
    expect(firstFailure({ checks, faults, epochMs: EPOCH, endMs: END })).toBeUndefined();
  });

  it('names the check whose violation was observed earliest, not the first listed', () => {
    const checks = [
      fail('late', [{ message: 'late one', observedAt: t(100), events: [push(90, 'push.acked')] }]),
      fail('early', [
        {
          message: 'early one',
          observedAt: t(50),
          events: [push(5, 'push.sent'), push(6, 'push.acked')],
        },
      ]),
    ];
    const f = firstFailure({ checks, faults, epochMs: EPOCH, endMs: END })!;
    expect(f.check).toBe('early');
    expect(f.violation).toBe('early one');
    // From the first push attempt to the observation; the faults in between (any node: the
    // check named none), not the crash after it.
    expect(f.window.from_ms).toBe(5000);
    expect(f.window.to_ms).toBe(50_000);
    expect(f.window.events.map((e) => `${e.at_ms} ${e.node} ${e.kind}`)).toEqual([
      '5000 writer-1 push.sent',
      '6000 writer-1 push.acked',
      '10000 ingester-1 crash',
      '15000 ingester-1 restart',
      '40000 ingester-2 power_loss',
      '45000 ingester-2 restart',
    ]);
  });

  it('counts violations without a time as observed at the end, and breaks ties by check order', () => {
    const untimed = fail('untimed');
    const atEnd = fail('at_end', [{ message: 'x', observedAt: END, events: [] }]);
    expect(
      firstFailure({ checks: [untimed, atEnd], faults, epochMs: EPOCH, endMs: END })!.check,
    ).toBe('untimed');
    expect(
      firstFailure({ checks: [atEnd, untimed], faults, epochMs: EPOCH, endMs: END })!.check,
    ).toBe('at_end');
    const timed = fail('timed', [{ message: 'y', observedAt: END - 1, events: [] }]);
    const f = firstFailure({ checks: [untimed, timed], faults, epochMs: EPOCH, endMs: END })!;
    expect(f.check).toBe('timed');
    // No events of its own: the window is the moment it was observed.
    expect(f.window).toMatchObject({ from_ms: 299_999, to_ms: 299_999 });
  });

  it('among equally early violations takes the shortest window', () => {
    const checks = [
      fail('lost', [
        { message: 'long', observedAt: t(150), events: [push(20, 'push.acked')] },
        { message: 'short', observedAt: t(150), events: [push(100, 'push.acked')] },
      ]),
    ];
    const f = firstFailure({ checks, faults, epochMs: EPOCH, endMs: END })!;
    expect(f.violation).toBe('short');
    expect(f.window).toMatchObject({ from_ms: 100_000, to_ms: 150_000 });
  });

  it('ends an end-state violation on known nodes at their first restart after its data, with their faults only', () => {
    const checks = [
      fail('durability', [
        {
          message: 'acknowledged id 7 is missing',
          events: [push(38, 'msg.sent'), push(39, 'msg.acked')],
          nodes: ['ingester-2'],
        },
      ]),
    ];
    const f = firstFailure({ checks, faults, epochMs: EPOCH, endMs: END })!;
    expect(f.window).toMatchObject({ from_ms: 38_000, to_ms: 45_000 });
    expect(f.window.events.map((e) => e.kind)).toEqual([
      'msg.sent',
      'msg.acked',
      'power_loss',
      'restart',
    ]);
    const lines = formatFirstFailure(f, (ms) => `${ms / 1000}s`);
    expect(lines[0]).toBe('first violated check: durability: acknowledged id 7 is missing');
    expect(lines[1]).toBe('  window +38s .. +45s (4 events):');
    expect(lines[4]).toBe('    +40s ingester-2 power loss ingester-2');
  });

  it('lists at most 40 events and counts the rest', () => {
    const events = Array.from({ length: 55 }, (_, i) => push(i, 'push.acked', `push #${i}`));
    const f = firstFailure({
      checks: [fail('many', [{ message: 'm', observedAt: t(60), events }])],
      faults: [],
      epochMs: EPOCH,
      endMs: END,
    })!;
    expect(f.window.events).toHaveLength(40);
    expect(f.window.events_omitted).toBe(15);
    expect(f.window.events[0]!.detail).toBe('push #0');
  });
});

describe('faultTimeline', () => {
  it('puts a partition on every lane it cuts off until its heal, node faults on their node', () => {
    const events = faultTimeline(
      {
        faults: [
          {
            atMs: 1000,
            action: { kind: 'partition', groups: [['a'], ['b', 'c']], id: 'p1' },
            origin: 'schedule',
          },
          { atMs: 2000, action: { kind: 'crash', node: 'b' }, origin: 'schedule' },
          { atMs: 5000, action: { kind: 'heal' }, origin: 'schedule' },
          {
            atMs: 6000,
            action: { kind: 'partition_one_way', from: 'a', to: 'c', id: 'p2' },
            origin: 'schedule',
          },
        ],
        quietAtMs: 6000,
        activeAtEnd: [],
      },
      EPOCH,
      END,
    );
    expect(
      events.map((e) => [
        e.at - EPOCH,
        e.node,
        e.kind,
        e.until === undefined ? '' : e.until - EPOCH,
      ]),
    ).toEqual([
      [1000, 'a', 'partition', 5000],
      [1000, 'b', 'partition', 5000],
      [1000, 'c', 'partition', 5000],
      [2000, 'b', 'crash', ''],
      [5000, '-', 'heal', ''],
      [6000, 'a', 'partition', END - EPOCH],
      [6000, 'c', 'partition', END - EPOCH],
    ]);
  });
});
