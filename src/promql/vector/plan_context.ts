// What every operator of one query shares: the default engine's query context (limits,
// deadline, annotations, stale-marker test, the series the fallback evaluator reads), the
// querier, the selectors' storage hints, and the batch size.
import { StorageError } from '../errors.js';
import type { QueryContext } from '../engine/index.js';
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

/** Selects a selector's series with the hints the default engine would pass. */
export async function selectSeries(pc: PlanContext, vs: VectorSelector): Promise<StorageSeries[]> {
  pc.ctx.checkDone('query preparation');
  const hints = pc.hints.get(vs);
  try {
    return await pc.querier.select(vs.labelMatchers, hints);
  } catch (err) {
    if (err instanceof StorageError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    throw new StorageError(`expanding series: ${msg}`, err);
  }
}

/** Throws the iterator's error, as the default engine does when it expands a series. */
export function checkIterator(it: SampleIterator): void {
  const err = it.err();
  if (err !== null) throw new StorageError(`expanding series: ${err.message}`, err);
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
