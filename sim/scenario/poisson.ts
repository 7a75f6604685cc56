import type { RandomStream } from '../../src/runtime/index.js';

/** Arrival times of a Poisson process with `perMinute` events per minute within [from, until). */
export function arrivals(
  stream: RandomStream,
  perMinute: number,
  fromMs: number,
  untilMs: number,
): number[] {
  if (perMinute <= 0 || untilMs <= fromMs) return [];
  const meanGapMs = 60_000 / perMinute;
  const out: number[] = [];
  for (let t = fromMs; ;) {
    t += Math.max(1, Math.round(-Math.log(1 - stream.next()) * meanGapMs));
    if (t >= untilMs) return out;
    out.push(t);
  }
}

/** One of `items`, drawn uniformly. */
export function pick<T>(stream: RandomStream, items: readonly T[]): T {
  return items[stream.int(items.length)]!;
}
