/**
 * What the querier needs to know about a tenant's blocks before asking store-gateways
 * (Cortex's BlocksFinder): the complete blocks overlapping a query's range, with their
 * upload time and any deletion mark, for the consistency check. Two implementations sit
 * behind it: the bucket index (default) and a periodic bucket scan.
 */
import type { BucketIndexBlock, BucketIndexDeletionMark } from '../bucket/index.js';
import { isAbortError, type Clock } from '../runtime/index.js';
import type { Service } from '../services/index.js';

/** A block as the finder knows it (the bucket index's entry; times in ms, upload in Unix s). */
export type FoundBlock = Pick<
  BucketIndexBlock,
  'block_id' | 'min_time' | 'max_time' | 'uploaded_at'
>;

export interface FoundBlocks {
  /** Blocks with samples in the range; max time descending (newest first). */
  readonly blocks: readonly FoundBlock[];
  /** Deletion marks of those blocks, by block ID (only blocks still queried). */
  readonly deletionMarks: ReadonlyMap<string, BucketIndexDeletionMark>;
}

/**
 * A service: started with the querier, whose readiness (`isReady`) stays false until the
 * first discovery of the bucket's blocks completed.
 */
export interface BlocksFinder extends Service {
  /**
   * The tenant's blocks containing samples within [minT, maxT] (ms, both inclusive). An
   * unknown tenant (nothing shipped yet) has none.
   */
  getBlocks(tenant: string, minT: number, maxT: number, signal?: AbortSignal): Promise<FoundBlocks>;
}

/** Cortex's errInvalidBlocksRange. */
export const INVALID_BLOCKS_RANGE_MESSAGE = 'invalid blocks time range';

/** The blocks finder's own failures (a query then fails with 500, as a storage error). */
export class BlocksFinderError extends Error {
  override name = 'BlocksFinderError';
}

/**
 * Cortex's `Block.Within`: a block is half-open [min_time, max_time), the query closed
 * [minT, maxT].
 */
export function blockWithin(block: FoundBlock, minT: number, maxT: number): boolean {
  return block.min_time <= maxT && minT < block.max_time;
}

/** Newest first, as Cortex's finders return them; ties by ID so the order is stable. */
export function sortByMaxTimeDesc(blocks: FoundBlock[]): FoundBlock[] {
  return blocks.sort(
    (a, b) =>
      b.max_time - a.max_time || (a.block_id < b.block_id ? -1 : a.block_id > b.block_id ? 1 : 0),
  );
}

/** Sleeps unless aborted; false once `signal` aborts. */
export async function sleep(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return true;
  } catch (err) {
    if (isAbortError(err)) return false;
    throw err;
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
