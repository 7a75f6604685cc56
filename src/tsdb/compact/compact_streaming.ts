// Compaction that never holds a block in memory (what the compactor runs): the same result as
// compactBlocks — series merged across the sources, identical replicated samples collapsed,
// tombstoned samples dropped, lineage in meta.json — but written as it is merged, counting the
// samples dropped although their value differs from the kept one (sample_conflicts.ts). The symbol
// table is the merge of the sources' tables; then the merged series stream goes one series at
// a time through the chunk cutter into the block's files. Memory holds one series per source
// plus the index writer's postings (four bytes per series) and a read-ahead window per source
// file (BlockReader.open with readAhead). Sources are never modified.

import { Matcher } from '../../model/index.js';
import { throwIfAborted } from '../../runtime/index.js';
import {
  BlockSource,
  StreamingBlockWriter,
  type BlockMeta,
  BlockReader,
  type StreamingWriteOptions,
} from '../block/index.js';
import { compactBlockMetas, type CompactDeps, type CompactOptions } from './compact_blocks.js';
import { CompactionError } from './errors.js';
import { mergeSeriesStream, mergeSymbolTables, type MergedSeries } from './merge_stream.js';
import { SampleConflictCounter, type SampleConflicts } from './sample_conflicts.js';

// Every series: a matcher accepting the empty value subtracts nothing from all postings.
const EVERY_SERIES = [Matcher.regex('__name__', '.*')];

/** What a streaming compaction wrote. */
export interface StreamingCompactResult {
  /** The new block's meta; null when no sample survived and no block was written. */
  meta: BlockMeta | null;
  /** Series written from more than one source (adjacent blocks share most of their series). */
  sharedSeries: number;
  /**
   * Samples dropped at a timestamp where an earlier source's differing value was kept (only
   * overlapping sources can have any); block ids in the examples are the sources' ULIDs.
   */
  conflicts: SampleConflicts;
}

/** Observes the merged stream (tests check memory bounds through it). */
export type MergedSeriesObserver = (series: MergedSeries) => void;

/**
 * Compacts the blocks in `dirs` into a new block under `outDir` (`<outDir>/<ulid>`), streaming.
 * An empty result writes nothing and leaves the sources as they are: marking them is the
 * caller's business (the compactor marks them for deletion in the bucket).
 */
export async function compactBlocksStreaming(
  dirs: readonly string[],
  outDir: string,
  opts: CompactOptions,
  deps: CompactDeps & { observe?: MergedSeriesObserver; signal?: AbortSignal },
): Promise<StreamingCompactResult> {
  if (dirs.length === 0) throw new CompactionError('compaction needs at least one block');
  const readers: BlockReader[] = [];
  let writer: StreamingBlockWriter | undefined;
  try {
    for (const dir of dirs)
      readers.push(await BlockReader.open(dir, { fs: deps.fs }, { readAhead: true }));
    const seen = new Set<string>();
    for (const r of readers) {
      if (seen.has(r.meta.ulid)) {
        throw new CompactionError(`block ${r.meta.ulid} is given twice to a compaction`);
      }
      seen.add(r.meta.ulid);
    }
    const metas = readers.map((r) => r.meta);
    const lineage = compactBlockMetas(metas);
    const writeOpts: StreamingWriteOptions = {
      meta: {
        minTime: lineage.minTime,
        maxTime: lineage.maxTime,
        compaction: { level: lineage.level, sources: lineage.sources, parents: lineage.parents },
      },
    };
    if (opts.chunkRange !== undefined) writeOpts.chunkRange = opts.chunkRange;
    if (opts.samplesPerChunk !== undefined) writeOpts.samplesPerChunk = opts.samplesPerChunk;
    if (opts.segmentSize !== undefined) writeOpts.segmentSize = opts.segmentSize;
    const thanos = opts.thanos ?? inheritedThanos(metas);
    if (thanos !== undefined) writeOpts.thanos = thanos;

    writer = await StreamingBlockWriter.create(outDir, writeOpts, deps);
    await writer.addSymbols(mergeSymbolTables(readers.map((r) => r.symbols())));
    // Half-open block ranges: a sample at the new maxTime would not belong to the block.
    const sets = readers.map((r) => r.select(EVERY_SERIES, lineage.minTime, lineage.maxTime - 1));
    const conflicts = new SampleConflictCounter(metas.map((m) => m.ulid));
    let sharedSeries = 0;
    for await (const series of mergeSeriesStream(sets, conflicts.add.bind(conflicts))) {
      throwIfAborted(deps.signal);
      deps.observe?.(series);
      const written = await writer.addSeries(series.labels, series.iterator());
      if (written > 0 && series.sourceCount > 1) sharedSeries++;
    }
    const meta = await writer.finish();
    return { meta, sharedSeries, conflicts: conflicts.result };
  } catch (err) {
    await writer?.abort();
    throw err;
  } finally {
    for (const r of readers) await r.close();
  }
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
