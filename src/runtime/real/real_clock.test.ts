import { describe, expect, it } from 'vitest';
import { isAbortError } from '../clock.js';
import { CapturingLogger } from '../testing/index.js';
import { RealClock } from './real_clock.js';

const activeTimeouts = (): number =>
  process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('RealClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = new RealClock().now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it('resolves sleep after the time has passed', async () => {
    const clock = new RealClock();
    const start = clock.now();
    await clock.sleep(20);
    expect(clock.now() - start).toBeGreaterThanOrEqual(19);
  });

  it('rejects sleep with an AbortError on abort and clears its timer', async () => {
    const clock = new RealClock();
    const baseline = activeTimeouts();
    const ac = new AbortController();
    const sleeping = clock.sleep(60_000, ac.signal);
    expect(activeTimeouts()).toBe(baseline + 1);
    ac.abort();
    const err: unknown = await sleeping.catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(activeTimeouts()).toBe(baseline);
  });

  it('rejects sleep at once when the signal already aborted', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(new RealClock().sleep(60_000, ac.signal)).rejects.toSatisfy(isAbortError);
  });

  it('runs a timer once and not at all when cancelled', async () => {
    const clock = new RealClock();
    const fired: string[] = [];
    clock.setTimer(5, () => fired.push('a'));
    clock.setTimer(5, () => fired.push('b')).cancel();
    await clock.sleep(30);
    expect(fired).toEqual(['a']);
  });

  it('never overlaps runs of every(), even when a run outlasts the period', async () => {
    const clock = new RealClock();
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const timer = clock.every(2, async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await clock.sleep(15);
      running--;
      if (++runs === 4) done();
    });
    await finished;
    timer.cancel();
    await clock.sleep(30);
    expect(maxRunning).toBe(1);
    expect(runs).toBe(4); // cancel stopped the schedule
  });

  it('keeps every() going after a failing run and logs the error', async () => {
    const logger = new CapturingLogger();
    const clock = new RealClock({}, { logger });
    let runs = 0;
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    const timer = clock.every(1, () => {
      runs++;
      if (runs === 3) done();
      if (runs <= 2) throw new Error(`tick ${runs} failed`);
    });
    await finished;
    timer.cancel();
    expect(logger.lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
      'error periodic task failed',
      'error periodic task failed',
    ]);
    expect(String(logger.lines[0]?.fields['err'])).toContain('tick 1 failed');
  });

  it('keeps timers referenced by default and unrefs them only when asked', async () => {
    const baseline = activeTimeouts();
    const refd = new RealClock().setTimer(60_000, () => undefined);
    expect(activeTimeouts()).toBe(baseline + 1);
    refd.cancel();
    const unrefd = new RealClock({ unrefTimers: true }).setTimer(60_000, () => undefined);
    expect(activeTimeouts()).toBe(baseline);
    unrefd.cancel();
    await Promise.resolve();
  });
});
