// What every operator of one query shares: the default engine's query context (limits,
// deadline, annotations, stale-marker test, the series the fallback evaluator reads), the
// querier, the selectors' storage hints, and the batch size.
import { expandingSeriesError } from '../errors.js';
import type { SeriesMeta } from './batch.js';
import { dropMetadataLabels } from './labels.js';
import { withSignal, type QueryContext, type StaleMarkerTest } from '../engine/index.js';
import type { TimeModifiers, VectorSelector } from '../parser/index.js';
import {
  readNewestSample,
  readSeriesSamples,
  type Querier,
  type SelectHints,
  type SampleArrays,
  type StorageSeries,
} from '../storage.js';

export interface PlanContext {
  readonly ctx: QueryContext;
  readonly querier: Querier;
  readonly hints: ReadonlyMap<VectorSelector, SelectHints>;
  readonly batchSize: number;
}

/**
 * Raised while the plan prepares when dropping names at once (without delayed name removal)
 * makes two output series of one operator equal. Prometheus then merges them, or fails, in
 * ways that depend on the node and on which steps have samples; rather than reproduce each,
 * the engine answers the whole query with the default evaluator. It takes series of
 * different metric names with otherwise equal labels, which real queries rarely combine.
 */
export class NameCollision extends Error {
  constructor() {
    super('series collide once their names are dropped');
    this.name = 'NameCollision';
  }
}

/** Whether names are dropped where an operation drops them (delayed name removal is off). */
export function dropsNamesNow(pc: PlanContext): boolean {
  return !pc.ctx.config.delayedNameRemoval;
}

/**
 * Copies of an operator's output series with the metric name and type/unit labels dropped,
 * as Prometheus drops them at once without delayed name removal; throws NameCollision when
 * two of them become equal.
 */
export function withNamesDropped(metas: readonly SeriesMeta[]): SeriesMeta[] {
  const seen = new Set<string>();
  return metas.map((m) => {
    const metric = dropMetadataLabels(m.metric);
    const key = metric.key();
    if (seen.has(key)) throw new NameCollision();
    seen.add(key);
    return { metric, dropName: m.dropName };
  });
}

/** Selects a selector's series with the hints the default engine would pass. */
export async function selectSeries(pc: PlanContext, vs: VectorSelector): Promise<StorageSeries[]> {
  pc.ctx.checkDone('query preparation');
  const hints = pc.hints.get(vs);
  try {
    return await pc.querier.select(
      vs.labelMatchers,
      hints === undefined ? hints : withSignal(hints, pc.ctx.config.signal),
    );
  } catch (err) {
    throw expandingSeriesError(err);
  }
}

/** The offset a selector is read with on a grid starting at `start` (its `@` folded in). */
export function effectiveOffset(n: TimeModifiers, start: number): number {
  return n.timestamp === undefined ? n.originalOffset : n.originalOffset + start - n.timestamp;
}

/**
 * The series' samples within the querier's range, read in bulk (only the newest with
 * start ≤ t ≤ end when `newestIn` is given); storage errors as the default engine reports
 * them.
 */
export function readSamples(
  s: StorageSeries,
  newestIn?: { readonly start: number; readonly end: number },
): SampleArrays {
  try {
    return newestIn === undefined
      ? readSeriesSamples(s, -Infinity, Infinity)
      : readNewestSample(s, newestIn.start, newestIn.end);
  } catch (err) {
    throw expandingSeriesError(err);
  }
}

/** The samples without stale markers (what range selectors see); the same arrays when there are none. */
export function withoutStale(samples: SampleArrays, stale: StaleMarkerTest): SampleArrays {
  const { ts, fs } = samples;
  let kept = 0;
  for (let i = 0; i < fs.length; i++) {
    const f = fs[i] as number;
    if (!(f !== f && stale.isStale(f))) kept++;
  }
  if (kept === fs.length) return samples;
  const keptTs = new Float64Array(kept);
  const keptFs = new Float64Array(kept);
  let n = 0;
  for (let i = 0; i < fs.length; i++) {
    const f = fs[i] as number;
    if (f !== f && stale.isStale(f)) continue;
    keptTs[n] = ts[i] as number;
    keptFs[n] = f;
    n++;
  }
  return { ts: keptTs, fs: keptFs };
}
