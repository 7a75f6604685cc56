import { describe, expect, it } from 'vitest';
import { Slicer } from './slicer.js';
import { ManualClock } from './testing/manual_clock.js';

describe('Slicer', () => {
  it('answers due once a slice has used its time, checking the clock every few calls', async () => {
    const clock = new ManualClock(1_000);
    const slicer = new Slicer(clock, 4);
    for (let i = 0; i < 100; i++) expect(slicer.due()).toBe(false);
    await clock.advance(4);
    // The clock is read on every 32nd call: at most 32 calls after the slice ran out.
    let calls = 1;
    while (!slicer.due()) calls++;
    expect(calls).toBeLessThanOrEqual(32);
    await slicer.yield();
    for (let i = 0; i < 100; i++) expect(slicer.due()).toBe(false);
  });

  it('never answers due while time stands still (a simulation runs the loop in one turn)', () => {
    const slicer = new Slicer(new ManualClock(0), 0.001);
    for (let i = 0; i < 10_000; i++) expect(slicer.due()).toBe(false);
  });
});
