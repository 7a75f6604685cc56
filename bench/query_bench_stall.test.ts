import { describe, expect, it } from 'vitest';
import { phaseOf, type Push } from './query_bench_stall.js';

const push = (at: number, ms: number, error?: string): Push => ({ at, ms, error });

describe('phaseOf', () => {
  it('measures a phase over every stretch of it: the quiet one before and after the loaded one', () => {
    const pushes = [
      push(5, 1),
      push(15, 2), // before the run's stretches
      push(110, 3),
      push(150, 4, '500 boom'),
      push(250, 100), // the loaded stretch, not part of the quiet phase
      push(310, 5),
      push(390, 6),
    ];
    const beats = [100, 160, 330];
    const quiet = phaseOf(
      pushes,
      beats,
      [
        [100, 200],
        [300, 400],
      ],
      50,
    );
    expect(quiet.requests).toBe(4);
    expect(quiet.errors).toBe(1);
    expect(quiet.firstError).toBe('500 boom');
    expect(quiet.maxMs).toBe(6);
    expect(quiet.heartbeats).toBe(3);
    // Gaps: 100→160, 160→200 (open at the first stretch's end), 160→330 (the last beat
    // before the second stretch to the first inside it), 330→400.
    expect(quiet.maxHeartbeatGapMs).toBe(170);
    expect(quiet.missedHeartbeats).toBe(0);
    const loaded = phaseOf(pushes, beats, [[200, 300]], 50);
    expect(loaded.requests).toBe(1);
    expect(loaded.p99Ms).toBe(100);
    expect(loaded.heartbeats).toBe(0);
    expect(loaded.maxHeartbeatGapMs).toBe(140);
  });

  it('counts a gap longer than the period and a second as missed', () => {
    const p = phaseOf([], [0, 7_000], [[0, 10_000]], 5_000);
    expect(p.missedHeartbeats).toBe(1);
    expect(p.maxHeartbeatGapMs).toBe(7_000);
  });
});
