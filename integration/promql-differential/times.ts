/**
 * Evaluation times for the differential test, derived from the scraped data: every time
 * shares one millisecond phase (within the second) that is as far as possible from the
 * phases of all sample timestamps. Ranges, offsets and steps in the query list are whole
 * seconds, so no range or lookback boundary ever coincides with a sample, which is where
 * Prometheus 2.x (closed) and 3.x (left-open) windows differ.
 */

export interface EvalTimes {
  /** Instant-query times: before the data, early, middle, late, and after it (lookback). */
  readonly instants: readonly number[];
  /** The time `{AT}` stands for in `@` modifiers. */
  readonly at: number;
  readonly rangeStart: number;
  readonly rangeEnd: number;
  readonly step: number;
  /** The chosen phase, ms within the second, and its distance to the nearest sample phase. */
  readonly phase: number;
  readonly margin: number;
  /** A sample lies on a whole second: subquery steps (whole seconds) may meet it. */
  readonly gridHazard: boolean;
}

const mod1000 = (t: number): number => ((t % 1000) + 1000) % 1000;

function circularDistance(a: number, b: number): number {
  const d = Math.abs(a - b);
  return Math.min(d, 1000 - d);
}

/** The phase in [0, 1000) farthest from every given sample phase (the first such). */
export function farthestPhase(timestamps: readonly number[]): { phase: number; margin: number } {
  const phases = [...new Set(timestamps.map(mod1000))];
  let best = { phase: 500, margin: phases.length === 0 ? 500 : -1 };
  if (phases.length === 0) return best;
  for (let p = 0; p < 1000; p++) {
    let m = 1000;
    for (const q of phases) m = Math.min(m, circularDistance(p, q));
    if (m > best.margin) best = { phase: p, margin: m };
  }
  return best;
}

export function chooseTimes(timestamps: readonly number[], minT: number, maxT: number): EvalTimes {
  const { phase, margin } = farthestPhase(timestamps);
  const at = (t: number): number => Math.floor(t / 1000) * 1000 + phase;
  return {
    instants: [
      at(minT - 20_000),
      at(minT + 12_000),
      at((minT + maxT) / 2),
      at(minT + (maxT - minT) * 0.8),
      at(maxT - 2_000),
      at(maxT + 20_000),
    ],
    at: at(minT + (maxT - minT) * 0.6),
    rangeStart: at(minT + 10_000),
    rangeEnd: at(maxT + 10_000),
    step: 3_000,
    phase,
    margin,
    gridHazard: timestamps.some((t) => mod1000(t) === 0),
  };
}

/** Fills `{AT}` with Unix seconds and milliseconds, as PromQL's `@` takes them. */
export function fillTemplate(query: string, times: EvalTimes): string {
  return query.replaceAll('{AT}', (times.at / 1000).toFixed(3));
}
