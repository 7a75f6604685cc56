// What every operator of one query shares: the default engine's query context (limits,
// deadline, annotations, stale-marker test, the series the fallback evaluator reads), the
// querier, the selectors' storage hints, and the batch size.
import { expandingSeriesError } from '../errors.js';
import type { SeriesMeta } from './batch.js';
import { dropMetadataLabels, labelsKey } from './labels.js';
import { withSignal, type QueryContext } from '../engine/index.js';
import type { TimeModifiers, VectorSelector } from '../parser/index.js';
import {
  SAMPLE_NONE,
  type Querier,
  type SampleIterator,
  type SelectHints,
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
    const key = labelsKey(metric);
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

/** Throws the iterator's error, as the default engine does when it expands a series. */
export function checkIterator(it: SampleIterator): void {
  const err = it.err();
  if (err !== null) throw expandingSeriesError(err);
}

/** The offset a selector is read with on a grid starting at `start` (its `@` folded in). */
export function effectiveOffset(n: TimeModifiers, start: number): number {
  return n.timestamp === undefined ? n.originalOffset : n.originalOffset + start - n.timestamp;
}

/**
 * A series' samples read one at a time in a single forward pass, with one sample of
 * look-ahead so operators can stop before the first sample past a step.
 */
export class PeekingSeries {
  private readonly it: SampleIterator;
  /** The look-ahead sample; valid while `more`. */
  peekT = 0;
  peekF = 0;
  more: boolean;

  constructor(s: StorageSeries) {
    this.it = s.iterator();
    this.more = this.pull();
  }

  /** Consumes the look-ahead sample and reads the next one. */
  advance(): void {
    this.more = this.pull();
  }

  private pull(): boolean {
    if (this.it.next() === SAMPLE_NONE) {
      checkIterator(this.it);
      return false;
    }
    this.peekT = this.it.atT();
    this.peekF = this.it.atF();
    return true;
  }
}
