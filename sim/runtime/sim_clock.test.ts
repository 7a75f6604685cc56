import { describe, expect, it } from 'vitest';
import { isAbortError } from '../../src/runtime/index.js';
import { Incarnation } from '../kernel/index.js';
import { TEST_EPOCH_MS, createTestWorld } from '../testing/index.js';
import { SimClock } from './sim_clock.js';

function setup(skew = 0) {
  const w = createTestWorld({ seed: 'clock' });
  const owner = new Incarnation('n', 1);
  const clock = new SimClock({ skewMs: () => skew }, { kernel: w.kernel, owner });
  return { ...w, owner, clock };
}

describe('SimClock', () => {
  it('tells virtual time plus the node skew', async () => {
    const { kernel, clock } = setup(250);
    expect(clock.now()).toBe(TEST_EPOCH_MS + 250);
    let seen = 0;
    kernel.after(1_000, { kind: 't' }, () => (seen = clock.now()));
    await kernel.run();
    expect(seen).toBe(TEST_EPOCH_MS + 1_250);
  });

  it('sleeps in virtual time and rejects with AbortError when aborted, cancelling the timer', async () => {
    const { kernel, clock } = setup();
    const log: string[] = [];
    const controller = new AbortController();
    kernel.after(0, { kind: 't' }, () => {
      void clock
        .sleep(3_600_000)
        .then(() => log.push(`slept until +${kernel.now() - TEST_EPOCH_MS}`));
      clock
        .sleep(10_000, controller.signal)
        .catch((e: unknown) =>
          log.push(`aborted: ${isAbortError(e)} at +${kernel.now() - TEST_EPOCH_MS}`),
        );
      clock.setTimer(5, () => controller.abort());
    });
    await kernel.run();
    expect(log).toEqual(['aborted: true at +5', 'slept until +3600000']);
  });

  it('cancelled timers never fire', async () => {
    const { kernel, clock } = setup();
    let fired = false;
    kernel.after(0, { kind: 't' }, () => clock.setTimer(10, () => (fired = true)).cancel());
    await kernel.run();
    expect(fired).toBe(false);
  });

  it('every() never overlaps: the next period starts after the previous run settles', async () => {
    const { kernel, clock } = setup();
    const starts: number[] = [];
    let running = 0;
    let maxConcurrent = 0;
    kernel.after(0, { kind: 't' }, () => {
      const timer = clock.every(100, async () => {
        starts.push(kernel.now() - TEST_EPOCH_MS);
        running++;
        maxConcurrent = Math.max(maxConcurrent, running);
        await clock.sleep(250);
        running--;
      });
      clock.setTimer(1_000, () => timer.cancel());
    });
    await kernel.run();
    expect(maxConcurrent).toBe(1);
    expect(starts).toEqual([100, 450, 800]);
  });

  it('reports errors thrown by timer callbacks and keeps periodic jobs running', async () => {
    const { kernel, clock } = setup();
    let runs = 0;
    kernel.after(0, { kind: 't' }, () => {
      clock.setTimer(1, () => {
        throw new Error('timer failed');
      });
      const t = clock.every(10, () => {
        runs++;
        return Promise.reject(new Error(`job failed ${runs}`));
      });
      clock.setTimer(35, () => t.cancel());
    });
    await kernel.run();
    expect(runs).toBe(3);
    expect(kernel.errors.map((e) => e.message)).toEqual([
      'Error: timer failed',
      'Error: job failed 1',
      'Error: job failed 2',
      'Error: job failed 3',
    ]);
  });

  it('rejects negative or non-finite delays naming the value', () => {
    const { clock } = setup();
    expect(() => clock.setTimer(-1, () => {})).toThrow(/got -1/);
    expect(() => clock.every(0, () => {})).toThrow(/got 0/);
  });
});
