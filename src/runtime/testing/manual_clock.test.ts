import { describe, expect, it } from 'vitest';
import { isAbortError } from '../clock.js';
import { ManualClock } from './manual_clock.js';

describe('ManualClock', () => {
  it('stands still until advanced, then fires due timers in time and scheduling order', async () => {
    const clock = new ManualClock(1000);
    const fired: string[] = [];
    clock.setTimer(20, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(20, () => fired.push(`c@${clock.now()}`));
    clock.setTimer(30, () => fired.push(`late@${clock.now()}`));
    expect(clock.now()).toBe(1000);
    await clock.advance(25);
    expect(fired).toEqual(['a@1010', 'b@1020', 'c@1020']);
    expect(clock.now()).toBe(1025);
    expect(clock.pendingTimers).toBe(1);
  });

  it('resolves sleeps, rejects aborted ones and forgets their timers', async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    let woke = false;
    const sleeping = clock.sleep(100).then(() => (woke = true));
    const aborted = clock.sleep(100, ac.signal);
    ac.abort();
    expect(isAbortError(await aborted.catch((e: unknown) => e))).toBe(true);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(99);
    expect(woke).toBe(false);
    await clock.advance(1);
    await sleeping;
    expect(woke).toBe(true);
  });

  it('runs every() without overlap, the next period starting after an async run settles', async () => {
    const clock = new ManualClock(0);
    const starts: number[] = [];
    const timer = clock.every(10, async () => {
      starts.push(clock.now());
      await clock.sleep(15);
    });
    await clock.advance(100);
    timer.cancel();
    // Runs at 10, then 10 + 15 (run) + 10 (period) = 35, 60, 85.
    expect(starts).toEqual([10, 35, 60, 85]);
    await clock.advance(100);
    expect(starts).toHaveLength(4);
  });

  it('keeps every() going after a throwing run and records the error', async () => {
    const clock = new ManualClock(0);
    let runs = 0;
    const timer = clock.every(10, () => {
      runs++;
      throw new Error(`run ${runs}`);
    });
    await clock.advance(30);
    timer.cancel();
    expect(runs).toBe(3);
    expect(clock.tickErrors.map(String)).toEqual(['Error: run 1', 'Error: run 2', 'Error: run 3']);
  });

  it('rejects a negative advance naming it', async () => {
    await expect(new ManualClock().advance(-5)).rejects.toThrow(/-5/);
  });
});
