// Writes a whole block from in-memory float series, as Prometheus's LeveledCompactor.write
// does for a head: chunks cut with the head's rules (decideFloatAppend), written per series in
// label order through the ChunkWriter, the index through the IndexWriter, an empty tombstones
// file and meta.json, all into `<ulid>.tmp-for-creation`, which is fsynced and then renamed to
// `<ulid>` (the atomic block creation that makes a half-written block invisible).
//
// Given the same samples, the 'v2.42' rules and promtool's 4h chunk range, the chunk segment
// files and the index are byte-identical to what `promtool tsdb create-blocks-from` writes.
//
// Callers that know the block's final meta (an aligned range for a head cut, the lineage of a
// compaction) pass it in, so meta.json is final when the block appears.

import { Labels } from '../../model/index.js';
import type { Clock, FileSystem, RandomStream } from '../../runtime/index.js';
import type { ChunkCutRules } from '../chunkenc/index.js';
import { uvarintSize } from '../encoding/index.js';
import { IndexWriter, type ChunkMeta } from '../index/index.js';
import { CHUNK_CRC_SIZE, CHUNK_ENCODING_SIZE } from './chunk_format.js';
import { DEFAULT_BLOCK_CHUNK_RANGE, SeriesChunkCutter } from './chunk_cutter.js';
import { ChunkWriter, type ChunkToWrite } from './chunk_writer.js';
import {
  BlockSource,
  META_VERSION_1,
  writeBlockMeta,
  type BlockDesc,
  type BlockMeta,
  type BlockMetaCompaction,
} from './meta.js';
import { Tombstones, writeTombstones } from './tombstones.js';
import { isCanonicalUlid, UlidGenerator } from './ulid.js';

export { DEFAULT_BLOCK_CHUNK_RANGE };
/** The chunk range promtool's create-blocks-from uses for its 2h blocks (twice the block). */
export const PROMTOOL_CHUNK_RANGE = 4 * 60 * 60 * 1000;
/** Suffix of the directory a block is built in before it is renamed into place. */
export const TMP_FOR_CREATION_SUFFIX = '.tmp-for-creation';

/**
 * One series to write. Timestamps (integer ms, strictly increasing) and values are parallel
 * arrays; values are Float64Array so NaN payloads (stale markers) keep their exact bits.
 */
export interface BlockSeriesInput {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

export interface WriteBlockOptions {
  /** Chunk range of the cutting rule, ms (default 2h; promtool uses PROMTOOL_CHUNK_RANGE). */
  chunkRange?: number;
  /** Which Prometheus release's cutting rules to follow (default 'current'). */
  rules?: ChunkCutRules;
  /** Target samples per chunk (default 120). */
  samplesPerChunk?: number;
  /** Maximum chunk segment file size (default 512 MiB). */
  segmentSize?: number;
  /** Adds the Thanos section Cortex ships with: external labels (tenant) and source. */
  thanos?: { labels: Record<string, string>; source?: string };
  /**
   * The block's final meta values where they are not those of a fresh level-1 block of its
   * samples, so meta.json is right from the atomic rename on (no rewrite, no crash window).
   */
  meta?: FinalBlockMeta;
}

/** meta.json values a caller fixes in advance; each one left out gets its default. */
export interface FinalBlockMeta {
  /** Block min time, ms; at most the first sample (default: the first sample). */
  minTime?: number;
  /** Block max time, ms, exclusive; after the last sample (default: the last sample + 1). */
  maxTime?: number;
  /** Lineage of a compacted block (default: level 1, the block itself its only source). */
  compaction?: { level: number; sources: readonly string[]; parents?: readonly BlockDesc[] };
  /** Compaction hints, e.g. OUT_OF_ORDER_HINT for a block cut from out-of-order samples. */
  hints?: readonly string[];
}

export interface WriteBlockDeps {
  fs: FileSystem;
  clock: Clock;
  /** Entropy of the block's ULID. */
  random: RandomStream;
}

/** The input cannot form a block; the message names the series and the bad value. */
export class BlockWriteError extends Error {
  override readonly name = 'BlockWriteError';
}

interface BuiltSeries {
  labels: Labels;
  chunks: ChunkToWrite[];
  metas: ChunkMeta[];
}

/** Bytes a chunk takes in its segment file: length, encoding byte, data and CRC. */
export function storedChunkSize(c: ChunkToWrite): number {
  return uvarintSize(c.data.length) + CHUNK_ENCODING_SIZE + c.data.length + CHUNK_CRC_SIZE;
}

/**
 * Writes a block of `input` under `dir` (the directory holding blocks) and returns its meta;
 * the block is `<dir>/<meta.ulid>`. Series without samples are left out, as Prometheus's
 * compactor leaves out series without chunks; input without any sample is an error.
 */
export async function writeBlock(
  dir: string,
  input: Iterable<BlockSeriesInput>,
  opts: WriteBlockOptions,
  deps: WriteBlockDeps,
): Promise<BlockMeta> {
  const series = [...input].filter((s) => s.timestamps.length > 0);
  for (const s of series) checkSeries(s);
  Labels.sortBy(series, (s) => s.labels);
  for (let i = 1; i < series.length; i++) {
    const s = series[i] as BlockSeriesInput;
    if (Labels.compare((series[i - 1] as BlockSeriesInput).labels, s.labels) === 0) {
      throw new BlockWriteError(`duplicate series ${s.labels.toString()} in block input`);
    }
  }
  if (series.length === 0) throw new BlockWriteError('block input has no samples');

  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  let numSamples = 0;
  for (const s of series) {
    minTime = Math.min(minTime, s.timestamps[0] as number);
    maxTime = Math.max(maxTime, s.timestamps[s.timestamps.length - 1] as number);
    numSamples += s.timestamps.length;
  }
  const range = blockRange(minTime, maxTime, opts.meta);
  const lineage = opts.meta?.compaction;
  if (lineage !== undefined) checkLineage(lineage);

  const ulid = new UlidGenerator({}, { clock: deps.clock, random: deps.random }).next();
  const finalDir = `${dir}/${ulid}`;
  const tmp = `${finalDir}${TMP_FOR_CREATION_SUFFIX}`;
  await deps.fs.mkdir(dir, { recursive: true });
  // A crashed earlier attempt may have left a partial directory under the same name.
  await deps.fs.remove(tmp, { recursive: true });
  await deps.fs.mkdir(tmp, { recursive: true });

  const chunkWriter = await ChunkWriter.create(
    `${tmp}/chunks`,
    opts.segmentSize === undefined ? {} : { segmentSize: opts.segmentSize },
    { fs: deps.fs },
  );
  const indexWriter = new IndexWriter({ path: `${tmp}/index` }, { fs: deps.fs });
  // The head's symbol table holds the empty string (the key of its all-postings list), and
  // Prometheus carries it into every block it writes; so do we, to stay byte-identical.
  const symbols = new Set<string>(['']);
  for (const s of series) {
    s.labels.forEach((name, value) => {
      symbols.add(name);
      symbols.add(value);
    });
  }
  await indexWriter.addSymbols(symbols);

  let numChunks = 0;
  let chunkMaxSize = 0;
  for (let i = 0; i < series.length; i++) {
    const built = buildChunks(series[i] as BlockSeriesInput, opts);
    for (const c of built.chunks) chunkMaxSize = Math.max(chunkMaxSize, storedChunkSize(c));
    // One writeChunks call per series, as Prometheus's populateBlock: segment cuts depend on it.
    const refs = await chunkWriter.writeChunks(built.chunks);
    for (let c = 0; c < refs.length; c++) (built.metas[c] as ChunkMeta).ref = refs[c] as number;
    await indexWriter.addSeries(i, built.labels, built.metas);
    numChunks += built.metas.length;
  }
  await chunkWriter.close();
  await indexWriter.close();

  const meta: BlockMeta = {
    ulid,
    minTime: range.minTime,
    maxTime: range.maxTime,
    stats: { numSamples, numSeries: series.length, numChunks, numTombstones: 0 },
    compaction: lineage === undefined ? { level: 1, sources: [ulid] } : copyLineage(lineage),
    version: META_VERSION_1,
  };
  const hints = opts.meta?.hints;
  if (hints !== undefined && hints.length > 0) meta.compaction.hints = [...hints];
  if (opts.thanos !== undefined) {
    meta.thanos = {
      labels: { ...opts.thanos.labels },
      downsample: { resolution: 0 },
      source: opts.thanos.source ?? BlockSource.Receive,
      // Exact maxima, not Thanos's estimates: a store-gateway sizes its range reads by them
      // (Cortex ingesters leave them empty, which costs each query a 64 KiB read per block).
      index_stats: { series_max_size: indexWriter.seriesMaxSize, chunk_max_size: chunkMaxSize },
    };
  }
  await writeBlockMeta(tmp, meta, { fs: deps.fs });
  await writeTombstones(tmp, new Tombstones(), { fs: deps.fs });
  await deps.fs.syncDir(tmp);
  await deps.fs.rename(tmp, finalDir);
  await deps.fs.syncDir(dir);
  return meta;
}

/**
 * The block's [minTime, maxTime): the samples' span by default (Prometheus block ranges are
 * half-open, so maxTime is one past the last sample), or the given bounds if they hold it.
 */
function blockRange(
  firstSample: number,
  lastSample: number,
  meta: FinalBlockMeta | undefined,
): { minTime: number; maxTime: number } {
  const minTime = meta?.minTime ?? firstSample;
  const maxTime = meta?.maxTime ?? lastSample + 1;
  if (!Number.isSafeInteger(minTime) || minTime > firstSample) {
    throw new BlockWriteError(
      `block minTime ${minTime} must be a safe integer at most the first sample's timestamp ${firstSample}`,
    );
  }
  if (!Number.isSafeInteger(maxTime) || maxTime <= lastSample) {
    throw new BlockWriteError(
      `block maxTime ${maxTime} must be a safe integer after the last sample's timestamp ${lastSample}`,
    );
  }
  return { minTime, maxTime };
}

export function checkLineage(c: NonNullable<FinalBlockMeta['compaction']>): void {
  if (!Number.isSafeInteger(c.level) || c.level < 1) {
    throw new BlockWriteError(`compaction level ${c.level} must be a positive integer`);
  }
  if (c.sources.length === 0) {
    throw new BlockWriteError(`compaction level ${c.level} block needs at least one source`);
  }
  for (const source of c.sources) {
    if (!isCanonicalUlid(source)) {
      throw new BlockWriteError(`compaction source ${JSON.stringify(source)} is not a ULID`);
    }
  }
  for (const p of c.parents ?? []) {
    if (!isCanonicalUlid(p.ulid)) {
      throw new BlockWriteError(`compaction parent ${JSON.stringify(p.ulid)} is not a ULID`);
    }
  }
}

/** A copy, so the caller's arrays are not shared with the returned meta. */
export function copyLineage(c: NonNullable<FinalBlockMeta['compaction']>): BlockMetaCompaction {
  const out: BlockMetaCompaction = { level: c.level, sources: [...c.sources] };
  if (c.parents !== undefined) out.parents = c.parents.map((p) => ({ ...p }));
  return out;
}

function checkSeries(s: BlockSeriesInput): void {
  const { timestamps, values } = s;
  if (timestamps.length !== values.length) {
    throw new BlockWriteError(
      `series ${s.labels.toString()}: ${timestamps.length} timestamps but ${values.length} values`,
    );
  }
  let prev = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i] as number;
    if (!Number.isSafeInteger(t)) {
      throw new BlockWriteError(
        `series ${s.labels.toString()}: timestamp ${t} at index ${i} is not a safe integer`,
      );
    }
    if (t <= prev) {
      throw new BlockWriteError(
        `series ${s.labels.toString()}: timestamp ${t} at index ${i} is not after ${prev}`,
      );
    }
    prev = t;
  }
}

/** Cuts a series into XOR chunks with the head's rules. */
function buildChunks(s: BlockSeriesInput, opts: WriteBlockOptions): BuiltSeries {
  const cutter = new SeriesChunkCutter(opts);
  for (let i = 0; i < s.timestamps.length; i++) {
    cutter.append(s.timestamps[i] as number, s.values[i] as number);
  }
  const { chunks, metas } = cutter.finish();
  return { labels: s.labels, chunks, metas };
}
