import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../src/runtime/index.js';
import { Incarnation } from './incarnation.js';
import { SimKernel } from './kernel.js';
import type { TraceEvent } from './trace.js';

const EPOCH = Date.UTC(2026, 0, 1);

describe('the kernel trace hook (onTraceEvent)', () => {
  it('receives every executed event in order, and none that were cancelled or dropped', async () => {
    const seen: TraceEvent[] = [];
    const k = new SimKernel({
      epochMs: EPOCH,
      scheduling: createSeededRandom('1').stream('scheduling'),
      onTraceEvent: (e) => seen.push(e),
    });
    const life = new Incarnation('n1', 1);
    k.after(5, { kind: 'timer', detail: 'first', owner: life }, () => {
      life.kill();
    });
    k.after(10, { kind: 'timer', detail: 'dropped', owner: life }, () => {});
    k.after(15, { kind: 'cancelled' }, () => {}).cancel();
    k.after(20, { kind: 'net.arrive', detail: 'a->b' }, () => {});
    await k.run();
    expect(seen).toEqual([
      { seq: 1, time: EPOCH + 5, node: 'n1', incarnation: 1, kind: 'timer', detail: 'first' },
      { seq: 2, time: EPOCH + 20, node: '-', incarnation: 0, kind: 'net.arrive', detail: 'a->b' },
    ]);
    expect(k.eventsExecuted).toBe(seen.length);
    expect(k.eventsDropped).toBe(1);
  });
});
