// Compacts several blocks into one, as Prometheus's LeveledCompactor.Compact does: the
// sources' series are merged (vertically, when they overlap: identical replicated samples
// collapse into one), tombstoned samples are dropped, and the result is written as a new
// block whose meta.json records its lineage (level, sources, parents). An empty result writes
// no block; the sources are then marked deletable, as Prometheus does.

import { Matcher } from '../../model/index.js';
import type { Clock, FileSystem, RandomStream } from '../../runtime/index.js';
import {
  BlockReader,
  BlockSource,
  compareUlids,
  writeBlock,
  writeBlockMeta,
  type BlockDesc,
  type BlockMeta,
  type BlockSeries,
  type WriteBlockOptions,
} from '../block/index.js';
import { CompactionError } from './errors.js';
import { mergeSeriesSets } from './merge_series.js';

export interface CompactOptions {
  /** Chunk range of the cutting rule for the re-encoded chunks, ms (default 2h). */
  chunkRange?: number;
  /** Target samples per chunk (default 120). */
  samplesPerChunk?: number;
  /** Maximum chunk segment file size (default 512 MiB). */
  segmentSize?: number;
  /**
   * Thanos section of the new block. Default: the external labels of the first source that
   * has a Thanos section, with source `compactor`; no section when no source has one.
   */
  thanos?: { labels: Record<string, string>; source?: string };
}

export interface CompactDeps {
  fs: FileSystem;
  clock: Clock;
  /** Entropy of the new block's ULID. */
  random: RandomStream;
}

/** What a compaction did. */
export interface CompactResult {
  /** The new block's meta; null when every sample was deleted and no block was written. */
  meta: BlockMeta | null;
  /** The source directories were marked `deletable` in their meta.json (empty result). */
  sourcesMarkedDeletable: boolean;
}

// Selects every series: a matcher accepting the empty value subtracts nothing from the
// all-series postings list, including series without a metric name.
const EVERY_SERIES = [Matcher.regex('__name__', '.*')];

/**
 * Compacts the blocks in `dirs` into a new block under `outDir` (`<outDir>/<ulid>`). The
 * sources are left in place; deleting them is the caller's decision, as in Prometheus.
 */
export async function compactBlocks(
  dirs: readonly string[],
  outDir: string,
  opts: CompactOptions,
  deps: CompactDeps,
): Promise<CompactResult> {
  if (dirs.length === 0) throw new CompactionError('compactBlocks needs at least one block');
  const readers: BlockReader[] = [];
  try {
    for (const dir of dirs) readers.push(await BlockReader.open(dir, { fs: deps.fs }));
    const seen = new Set<string>();
    for (let i = 0; i < readers.length; i++) {
      const ulid = (readers[i] as BlockReader).meta.ulid;
      if (seen.has(ulid)) {
        throw new CompactionError(`block ${ulid} (${dirs[i]}) is given twice to compactBlocks`);
      }
      seen.add(ulid);
    }
    const lineage = compactBlockMetas(readers.map((r) => r.meta));
    // Half-open block ranges: a sample at the new maxTime would not belong to the block.
    const sets: AsyncIterator<BlockSeries>[] = readers.map((r) =>
      r.select(EVERY_SERIES, lineage.minTime, lineage.maxTime - 1),
    );
    const merged = await mergeSeriesSets(sets);

    if (merged.length === 0) {
      for (let i = 0; i < readers.length; i++) {
        const meta = (readers[i] as BlockReader).meta;
        const marked: BlockMeta = { ...meta, compaction: { ...meta.compaction, deletable: true } };
        await writeBlockMeta(dirs[i] as string, marked, { fs: deps.fs });
      }
      return { meta: null, sourcesMarkedDeletable: true };
    }

    const writeOpts: WriteBlockOptions = {};
    if (opts.chunkRange !== undefined) writeOpts.chunkRange = opts.chunkRange;
    if (opts.samplesPerChunk !== undefined) writeOpts.samplesPerChunk = opts.samplesPerChunk;
    if (opts.segmentSize !== undefined) writeOpts.segmentSize = opts.segmentSize;
    const thanos = opts.thanos ?? inheritedThanos(readers.map((r) => r.meta));
    if (thanos !== undefined) writeOpts.thanos = thanos;

    // The block spans its sources (not only the surviving samples) and carries their lineage
    // from the moment it appears: no meta.json rewrite, so no crash window.
    writeOpts.meta = {
      minTime: lineage.minTime,
      maxTime: lineage.maxTime,
      compaction: { level: lineage.level, sources: lineage.sources, parents: lineage.parents },
    };
    const meta = await writeBlock(outDir, merged, writeOpts, deps);
    return { meta, sourcesMarkedDeletable: false };
  } finally {
    for (const r of readers) await r.close();
  }
}

/** The lineage of a block compacted from `metas` (Prometheus's CompactBlockMetas). */
export interface CompactedLineage {
  minTime: number;
  maxTime: number;
  level: number;
  sources: string[];
  parents: BlockDesc[];
}

/**
 * Prometheus's CompactBlockMetas: the time span covering every source, level one above the
 * highest source level, the sorted union of their sources, and the sources as parents.
 */
export function compactBlockMetas(metas: readonly BlockMeta[]): CompactedLineage {
  if (metas.length === 0) throw new CompactionError('compactBlockMetas needs at least one meta');
  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  let level = 0;
  const sources = new Set<string>();
  const parents: BlockDesc[] = [];
  for (const m of metas) {
    minTime = Math.min(minTime, m.minTime);
    maxTime = Math.max(maxTime, m.maxTime);
    level = Math.max(level, m.compaction.level);
    for (const s of m.compaction.sources) sources.add(s);
    parents.push({ ulid: m.ulid, minTime: m.minTime, maxTime: m.maxTime });
  }
  return {
    minTime,
    maxTime,
    level: level + 1,
    sources: [...sources].sort(compareUlids),
    parents,
  };
}

function inheritedThanos(
  metas: readonly BlockMeta[],
): { labels: Record<string, string>; source: string } | undefined {
  for (const m of metas) {
    if (m.thanos !== undefined) {
      return { labels: { ...m.thanos.labels }, source: BlockSource.Compactor };
    }
  }
  return undefined;
}
