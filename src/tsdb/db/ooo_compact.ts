// Out-of-order compaction (Prometheus db.compactOOOHead and compactOOO): the head's
// out-of-order samples become level-1 blocks, one per block range they touch, covering
// that whole aligned range and marked with the `from-out-of-order` compaction hint. Such
// blocks may overlap in-order blocks: the querier merges them and the compactor's vertical
// compaction folds them in. Afterwards the written chunks leave the head and the WBL
// segments holding their samples are deleted.
import type { Clock, FileSystem, Logger, RandomStream } from '../../runtime/index.js';
import {
  OUT_OF_ORDER_HINT,
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
} from '../block/index.js';
import { ValueType } from '../chunkenc/index.js';
import type { Head, HeadSeries } from '../head/index.js';

export interface OOOCompactionConfig {
  /** The database directory the blocks are written to. */
  readonly dir: string;
  /** The smallest block range: out-of-order blocks are aligned to it. */
  readonly chunkRange: number;
  readonly blockLabels?: Record<string, string>;
  readonly deps: { fs: FileSystem; clock: Clock; random: RandomStream; logger: Logger };
  /**
   * Makes the written blocks visible to queries. Awaited before their chunks leave the
   * head, so that no read finds those samples in neither place.
   */
  readonly load: (metas: readonly BlockMeta[]) => Promise<void>;
}

/** Start of the block range holding t (floored, so negative times land right too). */
function rangeStart(t: number, range: number): number {
  return t - (((t % range) + range) % range);
}

/**
 * Writes the head's out-of-order data into blocks and drops it from the head and the WBL;
 * returns the metas of the blocks written, oldest first.
 */
export async function compactOOO(head: Head, cfg: OOOCompactionConfig): Promise<BlockMeta[]> {
  // Cut buffers and start a new WBL segment between two commits: every sample logged to an
  // older segment is then in a chunk this compaction writes, and nothing newer is.
  const cut = await head.serializeCommit(async () => {
    const taken = head.cutOOOForCompaction();
    if (taken === undefined) return undefined;
    const wbl = head.wbl();
    const nextSegment = wbl === undefined ? undefined : await wbl.nextSegment();
    return { ...taken, nextSegment };
  });
  if (cut === undefined) return [];
  const { deps } = cfg;
  const range = cfg.chunkRange;
  const metas: BlockMeta[] = [];
  for (let mint = rangeStart(cut.mint, range); mint <= cut.maxt; mint += range) {
    const maxt = mint + range;
    const input = toBlockInput(head.selectOOOForCompaction(mint, maxt - 1, cut.seq));
    if (input.length === 0) continue;
    const meta = await writeBlock(
      cfg.dir,
      input,
      {
        chunkRange: range,
        rules: 'current',
        meta: { minTime: mint, maxTime: maxt, hints: [OUT_OF_ORDER_HINT] },
        ...(cfg.blockLabels === undefined ? {} : { thanos: { labels: cfg.blockLabels } }),
      },
      { fs: deps.fs, clock: deps.clock, random: deps.random },
    );
    metas.push(meta);
  }
  await cfg.load(metas);
  const gc = head.truncateOOO(cut.seq);
  const wbl = head.wbl();
  if (wbl !== undefined && cut.nextSegment !== undefined) await wbl.truncate(cut.nextSegment);
  deps.logger.info('out-of-order head compacted', {
    dir: cfg.dir,
    mint: cut.mint,
    maxt: cut.maxt,
    blocks: metas.map((m) => m.ulid),
    removedChunks: gc.removedChunks,
    removedSeries: gc.removedSeries,
  });
  return metas;
}

/** Selected head series copied into typed arrays for writeBlock (empty ones left out). */
export function toBlockInput(selected: readonly HeadSeries[]): BlockSeriesInput[] {
  const out: BlockSeriesInput[] = [];
  for (const s of selected) {
    let n = 0;
    const counter = s.iterator();
    while (counter.next() !== ValueType.None) n++;
    const countErr = counter.err();
    if (countErr !== null) throw countErr;
    if (n === 0) continue;
    const timestamps = new Float64Array(n);
    const values = new Float64Array(n);
    const it = s.iterator();
    for (let i = 0; i < n && it.next() !== ValueType.None; i++) {
      timestamps[i] = it.atT();
      values[i] = it.atF();
    }
    const readErr = it.err();
    if (readErr !== null) throw readErr;
    out.push({ labels: s.labels, timestamps, values });
  }
  return out;
}
