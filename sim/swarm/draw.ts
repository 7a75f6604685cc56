import type { RandomStream } from '../../src/runtime/index.js';

/** Small helpers for drawing a swarm profile's parameters from its seed stream. */

/** An inclusive range of numbers. */
export type Bounds = readonly [min: number, max: number];

/** Uniform integer in [min, max]. */
export function drawInt(r: RandomStream, [min, max]: Bounds): number {
  return min + r.int(max - min + 1);
}

/** Uniform number in [min, max], rounded to `step` (so profiles print and parse back exactly). */
export function drawNumber(r: RandomStream, [min, max]: Bounds, step: number): number {
  const v = min + r.next() * (max - min);
  const rounded = Math.round(v / step) * step;
  return Math.min(max, Math.max(min, +rounded.toFixed(6)));
}

/** True with probability `p`. */
export function chance(r: RandomStream, p: number): boolean {
  return r.next() < p;
}

export function pickOne<T>(r: RandomStream, items: readonly T[]): T {
  if (items.length === 0) throw new RangeError('pickOne: no items');
  return items[r.int(items.length)]!;
}

/** A duration as a scenario file writes it (whole milliseconds). */
export function ms(value: number): string {
  return `${Math.round(value)}ms`;
}

/**
 * The network latency every family draws: lognormal, median 1–4ms, sigma 0.3–0.9, capped at
 * 40–150ms (drawn in that order, so profiles stay what they were).
 */
export function drawNetworkLatency(r: RandomStream): Record<string, unknown> {
  return {
    distribution: 'lognormal',
    median: ms(drawInt(r, [1, 4])),
    sigma: drawNumber(r, [0.3, 0.9], 0.05),
    max: ms(drawInt(r, [40, 150])),
  };
}

/** A drawn rate for a profile's summary: `duplication 2.1%`, or `no duplication` at 0. */
export function rateSummary(what: string, rate: number): string {
  return rate > 0 ? `${what} ${+(rate * 100).toFixed(2)}%` : `no ${what}`;
}
