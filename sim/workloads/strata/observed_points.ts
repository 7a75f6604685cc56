import type { FinalRead } from './read_log.js';

/** What a read showed: series key → timestamp → values read (several = duplicates). */
export type ObservedPoints = Map<string, Map<number, number[]>>;

/**
 * Each read's observed points, built once per read and shared by the checks of a run. A
 * recorded read is never changed (the reader records each answer as a new object), so an
 * entry cannot go stale.
 */
export type ObservedIndex = WeakMap<FinalRead, ObservedPoints>;

/** Observed points of one read (a read phase's or the final one). */
export function observedPoints(read: FinalRead): ObservedPoints {
  const out: ObservedPoints = new Map();
  for (const s of read.series) {
    let points = out.get(s.key);
    if (points === undefined) {
      points = new Map();
      out.set(s.key, points);
    }
    const { timestamps, values } = s;
    for (let i = 0; i < timestamps.length; i++) {
      const ts = timestamps[i] as number;
      const v = values[i] as number;
      const list = points.get(ts);
      if (list === undefined) points.set(ts, [v]);
      else list.push(v);
    }
  }
  return out;
}

/** `observedPoints(read)`, from `index` when there is one (filled on first use). */
export function observedIn(index: ObservedIndex | undefined, read: FinalRead): ObservedPoints {
  if (index === undefined) return observedPoints(read);
  let points = index.get(read);
  if (points === undefined) {
    points = observedPoints(read);
    index.set(read, points);
  }
  return points;
}
