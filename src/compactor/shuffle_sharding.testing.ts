/**
 * Test support for the shuffle-sharding tests: a recording bucket that can hold back the
 * upload of a compacted block's meta.json (so a compactor stays "mid-compaction" while others
 * run), and readers for which source blocks a compactor downloaded. Only tests import this.
 */
import { RecordingBucket } from '../bucket/testing.js';
import type { BucketCallOptions } from '../runtime/index.js';
import type { CompactionWorld } from './compaction_harness.testing.js';
import { DEFAULT_COMPACTION, HOUR, shipBlock, testSeries } from './compaction_harness.testing.js';
import type { CompactionConfig } from './compaction_loop.js';
import type { BlockMeta } from '../tsdb/index.js';

export class GatedBucket extends RecordingBucket {
  private held: (() => void) | undefined;
  private gate: Promise<void> | undefined;
  /** Resolves when an upload of a meta.json is being held. */
  reached: Promise<void>;
  private onReached: () => void = () => undefined;

  constructor(inner: CompactionWorld['inner']) {
    super(inner);
    this.reached = new Promise((resolve) => (this.onReached = resolve));
  }

  /** Holds the next meta.json upload until `release()`. */
  hold(): void {
    this.gate = new Promise((resolve) => (this.held = resolve));
  }

  release(): void {
    this.held?.();
    this.gate = undefined;
  }

  override async upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    const gate = this.gate;
    if (gate !== undefined && name.endsWith('/meta.json')) {
      this.onReached();
      await gate;
    }
    return super.upload(name, data, opts);
  }
}

/** Block IDs whose index or chunks this bucket client read (what its compactor downloaded). */
export function downloadedBlocks(bucket: RecordingBucket): Set<string> {
  const out = new Set<string>();
  for (const name of [...bucket.names('get'), ...bucket.names('getRange')]) {
    const [, block, file] = name.split('/');
    if (block !== undefined && (file === 'index' || file === 'chunks')) out.add(block);
  }
  return out;
}

/** Two replicas (ingester-0, ingester-1) of each 2h range starting at `starts`. */
export async function shipReplicatedRanges(
  w: CompactionWorld,
  tenant: string,
  starts: readonly number[],
): Promise<BlockMeta[][]> {
  const out: BlockMeta[][] = [];
  for (const start of starts) {
    const range = { minTime: start, maxTime: start + 2 * HOUR };
    const series = testSeries(3, start, start + 2 * HOUR, 60_000);
    out.push([
      await shipBlock(w, tenant, 'ingester-0', series, range),
      await shipBlock(w, tenant, 'ingester-1', series, range),
    ]);
  }
  return out;
}

/** A compaction config whose schedule never fires within a test (runs are started by hand). */
export const MANUAL_COMPACTION: CompactionConfig = {
  ...DEFAULT_COMPACTION,
  compactionIntervalMs: 100_000 * HOUR,
};
