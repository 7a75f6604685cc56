/**
 * Verifying a downloaded block before it is compacted (Thanos's GatherBlockHealthStats with
 * its chunk checks): the chunk segments are numbered without gaps, the index opens and every
 * series in it has labels, follows the previous one in label order and has chunks; every
 * chunk lies within the block's time range, starts after the previous chunk of its series
 * ends (identical time ranges are tolerated as duplicates, as Thanos does) and, optionally,
 * reads back with a good CRC, samples in strictly increasing time order and first and last
 * timestamps equal to what the index says. One series and one chunk are held at a time.
 *
 * Problems are thrown as CorruptBlockError (`out-of-order-chunks` for overlapping chunks of a
 * series, `corrupted` for the rest); disk and abort errors are passed on unchanged, they say
 * nothing about the block.
 */
import {
  FileSystemError,
  isAbortError,
  throwIfAborted,
  type FileSystem,
} from '../runtime/index.js';
import { Labels } from '../model/index.js';
import {
  ChunkReader,
  FileSegmentSource,
  IndexReader,
  ReadAheadSegmentSource,
  ValueType,
  chunkRefSegment,
  openFileSource,
  readAheadSource,
  segmentFileName,
  type BlockMeta,
  type ChunkMeta,
} from '../tsdb/index.js';
import { CorruptBlockError, errorMessage } from './compaction_errors.js';

export interface VerifyOptions {
  /** Read every chunk back (CRC, sample order, bounds); index-only when false. */
  checkChunks: boolean;
}

/** What the walk over the index counted (Thanos's HealthStats, the parts we act on). */
export interface BlockHealth {
  totalSeries: number;
  outOfOrderSeries: number;
  outOfOrderChunks: number;
  duplicatedChunks: number;
  outsideChunks: number;
}

/** Verifies the block in `dir` whose meta is `meta`; resolves with its health when sound. */
export async function verifyBlock(
  dir: string,
  meta: BlockMeta,
  opts: VerifyOptions,
  deps: { fs: FileSystem },
  signal?: AbortSignal,
): Promise<BlockHealth> {
  try {
    return await walk(dir, meta, opts, deps.fs, signal);
  } catch (err) {
    if (err instanceof CorruptBlockError || err instanceof FileSystemError || isAbortError(err)) {
      throw err;
    }
    // Whatever a decoder threw (format errors, bad CRCs, impossible lengths) is the block's.
    throw new CorruptBlockError(meta.ulid, 'corrupted', errorMessage(err), { cause: err });
  }
}

async function walk(
  dir: string,
  meta: BlockMeta,
  opts: VerifyOptions,
  fs: FileSystem,
  signal: AbortSignal | undefined,
): Promise<BlockHealth> {
  const corrupt = (msg: string): CorruptBlockError =>
    new CorruptBlockError(meta.ulid, 'corrupted', msg);
  const names = (await fs.readdir(`${dir}/chunks`)).filter((n) => /^\d+$/.test(n));
  names.forEach((name, i) => {
    if (name !== segmentFileName(i)) {
      throw corrupt(`chunk segment ${segmentFileName(i)} is missing (found ${name})`);
    }
  });
  const health: BlockHealth = {
    totalSeries: 0,
    outOfOrderSeries: 0,
    outOfOrderChunks: 0,
    duplicatedChunks: 0,
    outsideChunks: 0,
  };
  const source = await openFileSource(fs, `${dir}/index`);
  const segments = await FileSegmentSource.open(`${dir}/chunks`, { fs }).catch(
    async (err: unknown) => {
      await source.close();
      throw err;
    },
  );
  let chunkError: CorruptBlockError | undefined;
  try {
    // Series entries and chunks are visited in file order: read-ahead windows spare a file
    // read per series and per chunk.
    const index = await IndexReader.open(readAheadSource(source));
    const chunks = new ChunkReader(new ReadAheadSegmentSource(segments));
    let last: Labels | undefined;
    for (const ref of await index.allPostings()) {
      throwIfAborted(signal);
      const series = await index.series(ref);
      health.totalSeries++;
      if (series.labels.isEmpty()) throw corrupt(`series ${ref} has an empty label set`);
      if (last !== undefined && Labels.compare(last, series.labels) >= 0) {
        throw corrupt(
          `series ${series.labels.toString()} out of order; previous ${last.toString()}`,
        );
      }
      last = series.labels;
      if (series.chunks.length === 0) throw corrupt(`series ${ref} has no chunks`);
      let ooo = 0;
      series.chunks.forEach((c, i) => {
        if (chunkRefSegment(c.ref) >= names.length) {
          throw corrupt(
            `series ${series.labels.toString()}: chunk ${c.ref} is in segment ${segmentFileName(chunkRefSegment(c.ref))}, which does not exist`,
          );
        }
        if (c.minTime > c.maxTime || c.minTime < meta.minTime || c.maxTime > meta.maxTime) {
          health.outsideChunks++;
        }
        const prev = series.chunks[i - 1];
        if (prev === undefined || c.minTime > prev.maxTime) return;
        if (c.minTime === prev.minTime && c.maxTime === prev.maxTime) health.duplicatedChunks++;
        else ooo++;
      });
      if (ooo > 0) {
        health.outOfOrderSeries++;
        health.outOfOrderChunks += ooo;
      }
      if (opts.checkChunks && chunkError === undefined) {
        try {
          for (const c of series.chunks) await checkChunk(chunks, c, meta.ulid);
        } catch (err) {
          if (!(err instanceof CorruptBlockError)) throw err;
          // Reported after the index checks, as Thanos reports index health first.
          chunkError = err;
        }
      }
    }
  } finally {
    await source.close();
    await segments.close();
  }
  if (health.outOfOrderChunks > 0) {
    throw new CorruptBlockError(
      meta.ulid,
      'out-of-order-chunks',
      `${health.outOfOrderSeries}/${health.totalSeries} series have an average of ${(health.outOfOrderChunks / health.outOfOrderSeries).toFixed(3)} out-of-order chunks: ${(health.duplicatedChunks / health.outOfOrderChunks).toFixed(3)} of these are exact duplicates (in terms of data and time range)`,
    );
  }
  if (health.outsideChunks > 0) {
    throw corrupt(`found ${health.outsideChunks} chunks outside the block time range`);
  }
  if (chunkError !== undefined) throw chunkError;
  return health;
}

/** Thanos's verifyChunks: the chunk decodes and its samples match its index entry. */
async function checkChunk(reader: ChunkReader, c: ChunkMeta, block: string): Promise<void> {
  const bad = (msg: string): CorruptBlockError =>
    new CorruptBlockError(block, 'corrupted', `chunk ${c.ref}: ${msg}`);
  const chunk = await reader.chunk(c.ref);
  const it = chunk.iterator();
  let samples = 0;
  let prev = Number.NEGATIVE_INFINITY;
  while (it.next() !== ValueType.None) {
    const t = it.atT();
    if (samples === 0 && t !== c.minTime) {
      throw bad(`first sample ${t} does not match the chunk's min time ${c.minTime}`);
    }
    if (t <= prev) throw bad(`out of order sample timestamps: ${t} after ${prev}`);
    prev = t;
    samples++;
  }
  const err = it.err();
  if (err !== null) throw bad(`failed to iterate over the samples: ${err.message}`);
  if (samples === 0) throw bad('no samples');
  if (prev !== c.maxTime) {
    throw bad(`last sample ${prev} does not match the chunk's max time ${c.maxTime}`);
  }
}
