// WAL checkpoints, as Prometheus makes them (tsdb/wlog/checkpoint.go): before old segments
// are truncated, the records still needed from them (series that are still in the head,
// samples and tombstones not older than the new head minimum) are rewritten, compacted,
// into `checkpoint.NNNNNNNN` (N = the last segment covered), itself a WAL in the same
// segment/page format. A new checkpoint also absorbs the previous one. Replay then reads
// the newest checkpoint first and the segments after it.
import type { FileSystem, Logger } from '../../runtime/index.js';
import { EncBuf } from '../encoding/index.js';
import {
  RecordType,
  SampleBatch,
  decodeExemplars,
  decodeMetadata,
  decodeSamples,
  decodeSeries,
  decodeTombstones,
  encodeExemplars,
  encodeMetadata,
  encodeSamples,
  encodeSeries,
  encodeTombstones,
  recordType,
  type RefMetadata,
} from '../record/index.js';
import { joinPath } from './format.js';
import { readRecords } from './reader.js';
import { listSegments } from './segments.js';
import { WAL } from './wal.js';

const CHECKPOINT_PREFIX = 'checkpoint.';
const CHECKPOINT_NAME = /^checkpoint\.(\d+)$/;
const TEMP_SUFFIX = '.tmp';
/** Records are handed to the checkpoint WAL in batches of about this many bytes. */
const FLUSH_BYTES = 1024 * 1024;

export interface CheckpointDeps {
  fs: FileSystem;
  logger: Logger;
}

export interface CheckpointOptions {
  /** Snappy-compress the checkpoint's records (use the WAL's own setting); default false. */
  compress?: boolean;
  /** Segment size of the checkpoint WAL; default Prometheus's 128 MiB. */
  segmentSize?: number;
}

/** Counts of what a checkpoint kept and dropped (Prometheus's CheckpointStats). */
export interface CheckpointStats {
  /** Path of the new checkpoint directory. */
  dir: string;
  totalSeries: number;
  droppedSeries: number;
  /** Float samples read / dropped. */
  totalSamples: number;
  droppedSamples: number;
  totalTombstones: number;
  droppedTombstones: number;
  totalExemplars: number;
  droppedExemplars: number;
  totalMetadata: number;
  droppedMetadata: number;
  /** Records of a type we recognise but cannot decode yet (histograms), copied unchanged. */
  copiedUndecoded: number;
  /** Records of an unknown type, dropped as Prometheus does (a newer writer's records). */
  droppedUnknown: number;
}

export interface CheckpointRef {
  /** Path of the checkpoint directory. */
  dir: string;
  /** The last WAL segment it covers. */
  index: number;
}

/** The directory name of the checkpoint covering segments up to `index`. */
export function checkpointName(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new RangeError(`checkpoint index must be a non-negative integer, got ${index}`);
  return `${CHECKPOINT_PREFIX}${String(index).padStart(8, '0')}`;
}

/** The checkpoints in `walDir`, oldest first. A `checkpoint.N` that is not a directory is an error. */
export async function listCheckpoints(
  walDir: string,
  deps: { fs: FileSystem },
): Promise<CheckpointRef[]> {
  const refs: CheckpointRef[] = [];
  for (const name of await deps.fs.readdir(walDir)) {
    const match = CHECKPOINT_NAME.exec(name);
    if (match === null) continue;
    const dir = joinPath(walDir, name);
    const stat = await deps.fs.stat(dir);
    if (stat !== undefined && !stat.isDirectory)
      throw new Error(`checkpoint ${dir} is not a directory`);
    const index = Number(match[1]);
    if (Number.isSafeInteger(index)) refs.push({ dir, index });
  }
  return refs.sort((a, b) => a.index - b.index);
}

/** The newest checkpoint in `walDir`, or undefined when there is none. */
export async function lastCheckpoint(
  walDir: string,
  deps: { fs: FileSystem },
): Promise<CheckpointRef | undefined> {
  const refs = await listCheckpoints(walDir, deps);
  return refs[refs.length - 1];
}

/** Removes every checkpoint with an index below `maxIndex`. */
export async function deleteCheckpoints(
  walDir: string,
  maxIndex: number,
  deps: { fs: FileSystem },
): Promise<void> {
  let removed = false;
  for (const ref of await listCheckpoints(walDir, deps)) {
    if (ref.index >= maxIndex) break;
    await deps.fs.remove(ref.dir, { recursive: true });
    removed = true;
  }
  if (removed) await deps.fs.syncDir(walDir);
}

/**
 * Writes `checkpoint.<to>` from the newest existing checkpoint and WAL segments [from, to]
 * of `walDir`, keeping:
 * - series records of series for which `keep(ref)` holds;
 * - samples and exemplars with t >= mint of kept series;
 * - tombstones of kept series whose interval ends at or after mint;
 * - the latest metadata of each kept series, in one record at the end.
 *
 * (Prometheus keeps samples of dropped series too; replay ignores them since their series
 * record is gone, so dropping them changes nothing but the size.)
 *
 * With a previous checkpoint `checkpoint.K`, segments up to K are already in it, so reading
 * starts at K+1 (and `from` may not be beyond K+1, which would lose segments). Every segment
 * to read must exist. The checkpoint is built in `checkpoint.<to>.tmp`, synced and renamed
 * into place, so a crash leaves either no checkpoint or a complete one; the caller then
 * truncates the WAL before segment `to + 1` and deletes checkpoints below `to`.
 *
 * Corruption in what is read is thrown (a `CorruptionError`): unlike replay, a checkpoint
 * cannot repair, because the head would not know which series records were lost.
 */
export async function checkpoint(
  walDir: string,
  from: number,
  to: number,
  keep: (ref: number) => boolean,
  mint: number,
  deps: CheckpointDeps,
  opts: CheckpointOptions = {},
): Promise<CheckpointStats> {
  const { fs, logger } = deps;
  logger.info('creating WAL checkpoint', { dir: walDir, from, to, mint });

  const previous = await lastCheckpoint(walDir, deps);
  if (previous !== undefined) {
    if (from > previous.index + 1)
      throw new Error(
        `unexpected gap to last checkpoint ${previous.dir}: expected segment ${previous.index + 1}, requested ${from}`,
      );
    // Segments up to the previous checkpoint are in it (and should be gone already).
    from = previous.index + 1;
  }
  await checkSegmentsPresent(walDir, from, to, fs);
  await deleteTempCheckpoints(walDir, fs);

  const cpDir = joinPath(walDir, checkpointName(to));
  const tmpDir = `${cpDir}${TEMP_SUFFIX}`;
  const stats: CheckpointStats = {
    dir: cpDir,
    totalSeries: 0,
    droppedSeries: 0,
    totalSamples: 0,
    droppedSamples: 0,
    totalTombstones: 0,
    droppedTombstones: 0,
    totalExemplars: 0,
    droppedExemplars: 0,
    totalMetadata: 0,
    droppedMetadata: 0,
    copiedUndecoded: 0,
    droppedUnknown: 0,
  };

  const walConfig: { compress: boolean; segmentSize?: number } = {
    compress: opts.compress ?? false,
  };
  if (opts.segmentSize !== undefined) walConfig.segmentSize = opts.segmentSize;
  const cp = await WAL.open(tmpDir, walConfig, { fs, logger });
  let closed = false;
  try {
    const filter = new RecordFilter(keep, mint, stats);
    const pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const sources: Array<{ dir: string; from?: number; to?: number }> = [];
    if (previous !== undefined) sources.push({ dir: previous.dir });
    if (from <= to) sources.push({ dir: walDir, from, to });
    for (const source of sources) {
      const range: { fromSegment?: number; toSegment?: number } = {};
      if (source.from !== undefined) range.fromSegment = source.from;
      if (source.to !== undefined) range.toSegment = source.to;
      for await (const record of readRecords(source.dir, range, { fs })) {
        const out = filter.apply(record);
        if (out === undefined) continue;
        pending.push(out);
        pendingBytes += out.length;
        if (pendingBytes > FLUSH_BYTES) {
          await cp.log(...pending);
          pending.length = 0;
          pendingBytes = 0;
        }
      }
    }
    if (pending.length > 0) await cp.log(...pending);
    const metadata = filter.latestMetadata();
    if (metadata !== undefined) await cp.log(metadata);
    closed = true;
    await cp.close();

    await fs.syncDir(tmpDir);
    // Replace an existing checkpoint of the same index (a crash after a previous attempt).
    await fs.remove(cpDir, { recursive: true });
    await fs.rename(tmpDir, cpDir);
    await fs.syncDir(walDir);
  } catch (err) {
    if (!closed) await cp.close().catch(() => undefined);
    await fs.remove(tmpDir, { recursive: true }).catch(() => undefined);
    throw err;
  }
  logger.info('WAL checkpoint created', { ...stats });
  return stats;
}

/**
 * Where replay starts: the newest checkpoint (if any), then the WAL segments after it.
 * Throws when segments after the checkpoint are missing (records would be lost); segments
 * the checkpoint already covers are skipped, as a crash between checkpoint and truncation
 * leaves them behind.
 */
export async function replayPlan(
  walDir: string,
  deps: { fs: FileSystem },
): Promise<{ checkpoint: CheckpointRef | undefined; fromSegment: number }> {
  const cp = await lastCheckpoint(walDir, deps);
  if (cp === undefined) return { checkpoint: undefined, fromSegment: 0 };
  const fromSegment = cp.index + 1;
  const after = (await listSegments(deps.fs, walDir)).find((s) => s.index >= fromSegment);
  if (after !== undefined && after.index !== fromSegment)
    throw new Error(
      `WAL ${walDir}: segment ${fromSegment} after ${cp.dir} is missing (next is ${after.name})`,
    );
  return { checkpoint: cp, fromSegment };
}

/**
 * Every record to replay, in order: the newest checkpoint's, then the segments after it.
 * Corruption is thrown as a `CorruptionError` (its `dir` tells checkpoint from WAL); use
 * `replayPlan` with `WAL.replay` to repair a torn WAL tail instead.
 */
export async function* readCheckpointAndSegments(
  walDir: string,
  deps: { fs: FileSystem },
): AsyncGenerator<Uint8Array> {
  const plan = await replayPlan(walDir, deps);
  if (plan.checkpoint !== undefined) yield* readRecords(plan.checkpoint.dir, {}, deps);
  yield* readRecords(walDir, { fromSegment: plan.fromSegment }, deps);
}

async function checkSegmentsPresent(
  walDir: string,
  from: number,
  to: number,
  fs: FileSystem,
): Promise<void> {
  if (from > to) return;
  const present = new Set((await listSegments(fs, walDir)).map((s) => s.index));
  for (let i = from; i <= to; i++) {
    if (!present.has(i))
      throw new Error(
        `cannot checkpoint WAL ${walDir} segments ${from}..${to}: segment ${i} is missing`,
      );
  }
}

/** Removes leftovers of checkpoints interrupted by a crash. */
async function deleteTempCheckpoints(walDir: string, fs: FileSystem): Promise<void> {
  let removed = false;
  for (const name of await fs.readdir(walDir)) {
    if (name.startsWith(CHECKPOINT_PREFIX) && name.endsWith(TEMP_SUFFIX)) {
      await fs.remove(joinPath(walDir, name), { recursive: true });
      removed = true;
    }
  }
  if (removed) await fs.syncDir(walDir);
}

/** Rewrites one record at a time, keeping what the checkpoint needs; collects metadata. */
class RecordFilter {
  private readonly buf = new EncBuf(4096);
  private readonly samples = new SampleBatch(1024);
  /** Latest metadata per kept series, in first-seen order (deterministic output). */
  private readonly latest = new Map<number, RefMetadata>();

  constructor(
    private readonly keep: (ref: number) => boolean,
    private readonly mint: number,
    private readonly stats: CheckpointStats,
  ) {}

  /** The record to write for `record` (a fresh copy), or undefined when nothing remains. */
  apply(record: Uint8Array): Uint8Array | undefined {
    const { keep, mint, stats } = this;
    switch (recordType(record)) {
      case RecordType.Series: {
        const all = decodeSeries(record);
        const kept = all.filter((s) => keep(s.ref));
        stats.totalSeries += all.length;
        stats.droppedSeries += all.length - kept.length;
        return kept.length > 0 ? encodeSeries(kept, this.buf).slice() : undefined;
      }
      case RecordType.Samples: {
        const batch = this.samples;
        batch.clear();
        decodeSamples(record, batch);
        stats.totalSamples += batch.length;
        stats.droppedSamples += batch.retain((ref, t) => t >= mint && keep(ref));
        return batch.length > 0 ? encodeSamples(batch, this.buf).slice() : undefined;
      }
      case RecordType.Tombstones: {
        const all = decodeTombstones(record);
        const kept = all.filter((s) => s.maxt >= mint && keep(s.ref));
        stats.totalTombstones += all.length;
        stats.droppedTombstones += all.length - kept.length;
        return kept.length > 0 ? encodeTombstones(kept, this.buf).slice() : undefined;
      }
      case RecordType.Exemplars: {
        const all = decodeExemplars(record);
        const kept = all.filter((e) => e.t >= mint && keep(e.ref));
        stats.totalExemplars += all.length;
        stats.droppedExemplars += all.length - kept.length;
        return kept.length > 0 ? encodeExemplars(kept, this.buf).slice() : undefined;
      }
      case RecordType.Metadata: {
        const all = decodeMetadata(record);
        let added = 0;
        for (const m of all) {
          if (!keep(m.ref)) continue;
          if (!this.latest.has(m.ref)) added++;
          this.latest.set(m.ref, m);
        }
        stats.totalMetadata += all.length;
        stats.droppedMetadata += all.length - added;
        return undefined;
      }
      case RecordType.Unknown:
        stats.droppedUnknown++;
        return undefined;
      default:
        // Histogram and newer sample records: not decodable here yet, so kept whole rather
        // than lost. Replay applies its own time and series checks to them.
        stats.copiedUndecoded++;
        return record.slice();
    }
  }

  /** One metadata record with the latest entry of every kept series, if there were any. */
  latestMetadata(): Uint8Array | undefined {
    if (this.latest.size === 0) return undefined;
    return encodeMetadata([...this.latest.values()], this.buf).slice();
  }
}
