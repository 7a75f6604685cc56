// The head and its WAL (Prometheus head_wal.go and Head.truncateWAL): opening a head replays
// the newest checkpoint and the segments after it, then the write-behind log (WBL) of
// out-of-order samples; truncating drops old data from memory, then checkpoints the older
// two thirds of the WAL and deletes what the checkpoint covers.
import type { FileSystem, Logger, MetricsRegistry } from '../../runtime/index.js';
import {
  RecordType,
  SampleBatch,
  decodeSamples,
  decodeSeries,
  recordType,
  recordTypeName,
  type RefSeries,
} from '../record/index.js';
import {
  WAL,
  checkpoint,
  deleteCheckpoints,
  readRecords,
  replayPlan,
  type CheckpointOptions,
  type CorruptionError,
  type WALConfig,
} from '../wal/index.js';
import { applyBatch } from './head_append.js';
import { replayOOO } from './head_commit.js';
import { Head, type HeadConfig } from './head.js';

export interface OpenHeadConfig extends HeadConfig {
  /** WAL segment size and `wal_compression_enabled`. */
  wal?: WALConfig;
}

export interface OpenHeadDeps {
  fs: FileSystem;
  logger: Logger;
  metrics?: MetricsRegistry;
}

/** What replay found. */
export interface HeadReplayStats {
  readonly series: number;
  readonly samples: number;
  /** Samples and series records of refs no series record introduced. */
  readonly unknownRefs: number;
  /** Samples skipped: before the min valid time, or not after their series' newest. */
  readonly skippedSamples: number;
  /** Records of kinds the head does not keep yet (tombstones, exemplars, metadata…). */
  readonly ignoredRecords: number;
  /** Out-of-order samples replayed from the WBL. */
  readonly oooSamples: number;
  /** The corruption that ended replay, after which the WAL was repaired. */
  readonly repaired?: CorruptionError;
  /** The corruption that ended WBL replay, after which the WBL was repaired. */
  readonly repairedWBL?: CorruptionError;
}

/** The WAL directory of a head living in `dir`. */
export function walDir(dir: string): string {
  return `${dir.replace(/\/+$/, '')}/wal`;
}

/** The write-behind log directory of a head living in `dir` (Prometheus's `wbl`). */
export function wblDir(dir: string): string {
  return `${dir.replace(/\/+$/, '')}/wbl`;
}

/**
 * Opens the head stored in `dir` (its WAL in `dir/wal`): replays checkpoint and segments,
 * repairing a torn or corrupt tail (the records after it are lost, as in Prometheus), and
 * returns a head whose commits log to a new WAL segment.
 */
export async function openHead(
  dir: string,
  config: OpenHeadConfig,
  deps: OpenHeadDeps,
): Promise<{ head: Head; replay: HeadReplayStats }> {
  const logger = deps.logger;
  const wal = await WAL.open(walDir(dir), config.wal ?? {}, { fs: deps.fs, logger });
  // Like Prometheus, the WBL exists once out-of-order ingestion was enabled: open it now if
  // it is or was (its samples must be replayed), else on the first out-of-order commit.
  const openWBL = (): Promise<WAL> =>
    WAL.open(wblDir(dir), config.wal ?? {}, { fs: deps.fs, logger });
  const wblExists = await deps.fs.exists(wblDir(dir));
  const wbl = wblExists || (config.outOfOrderTimeWindow ?? 0) > 0 ? await openWBL() : undefined;
  const headDeps = {
    logger,
    wal,
    openWBL,
    ...(wbl === undefined ? {} : { wbl }),
    ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
  };
  const head = new Head(config, headDeps);
  const replayer = new Replayer(head);
  const plan = await replayPlan(wal.dir, { fs: deps.fs });
  if (plan.checkpoint !== undefined) {
    // A checkpoint is written whole and renamed into place, so corruption in it is real
    // damage, not a torn tail: fail loudly rather than open with series missing.
    for await (const record of readRecords(plan.checkpoint.dir, {}, { fs: deps.fs }))
      replayer.record(record);
  }
  const result = await wal.replay((record) => replayer.record(record), {
    fromSegment: plan.fromSegment,
  });
  // Out-of-order samples after the WAL: their series records are in the WAL.
  const wblResult =
    wbl === undefined ? undefined : await wbl.replay((record) => replayer.oooRecord(record));
  const stats: HeadReplayStats = {
    ...replayer.stats(),
    ...(result.repaired === undefined ? {} : { repaired: result.repaired }),
    ...(wblResult?.repaired === undefined ? {} : { repairedWBL: wblResult.repaired }),
  };
  if (stats.unknownRefs > 0)
    head.metrics.walReplayUnknownRefs.inc({ type: 'samples' }, stats.unknownRefs);
  logger.info('head WAL replayed', {
    dir,
    series: stats.series,
    samples: stats.samples,
    unknownRefs: stats.unknownRefs,
    skippedSamples: stats.skippedSamples,
    ignoredRecords: stats.ignoredRecords,
    oooSamples: stats.oooSamples,
    repaired: result.repaired?.message,
    repairedWBL: wblResult?.repaired?.message,
  });
  return { head, replay: stats };
}

/** Turns WAL records back into head state, with Prometheus's replay rules. */
class Replayer {
  private readonly batch = new SampleBatch(1024);
  private readonly seriesBuf: RefSeries[] = [];
  /** A later series record for labels already seen under another ref maps to the first. */
  private readonly multiRef = new Map<number, number>();
  private series = 0;
  private samples = 0;
  private unknownRefs = 0;
  private skipped = 0;
  private ignored = 0;
  private oooSamples = 0;

  constructor(private readonly head: Head) {}

  record(record: Uint8Array): void {
    const type = recordType(record);
    switch (type) {
      case RecordType.Series:
        this.seriesBuf.length = 0;
        for (const s of decodeSeries(record, this.seriesBuf)) this.addSeries(s);
        return;
      case RecordType.Samples:
        this.addSamples(record);
        return;
      case RecordType.Unknown:
        throw new Error(`WAL record of unknown type ${record[0] ?? 'none'} found on replay`);
      default:
        this.ignored++;
        this.head.logger.debug('WAL record ignored on replay', { type: recordTypeName(type) });
    }
  }

  /** A WBL record: out-of-order samples (anything else there is ignored). */
  oooRecord(record: Uint8Array): void {
    const type = recordType(record);
    if (type !== RecordType.Samples) {
      this.ignored++;
      this.head.logger.debug('WBL record ignored on replay', { type: recordTypeName(type) });
      return;
    }
    const batch = this.decodeMapped(record);
    const { applied, unknown } = replayOOO(this.head, batch);
    this.oooSamples += applied;
    this.unknownRefs += unknown;
    this.skipped += batch.length - unknown - applied;
  }

  stats(): Omit<HeadReplayStats, 'repaired' | 'repairedWBL'> {
    return {
      series: this.series,
      samples: this.samples,
      unknownRefs: this.unknownRefs,
      skippedSamples: this.skipped,
      ignoredRecords: this.ignored,
      oooSamples: this.oooSamples,
    };
  }

  private addSeries(s: RefSeries): void {
    const existing = this.head.seriesByLabels(s.labels);
    if (existing !== undefined) {
      if (existing.ref !== s.ref) this.multiRef.set(s.ref, existing.ref);
      return;
    }
    if (this.head.seriesByRef(s.ref) !== undefined)
      throw new Error(
        `WAL series record reuses ref ${s.ref} for other labels ${s.labels.toString()}`,
      );
    this.head.insertSeries(s.ref, s.labels);
    this.series++;
  }

  /** Decodes a samples record into the reused batch, refs mapped to the first series record. */
  private decodeMapped(record: Uint8Array): SampleBatch {
    const batch = this.batch;
    batch.clear();
    decodeSamples(record, batch);
    const { refs } = batch;
    for (let i = 0; i < batch.length; i++) {
      const ref = refs[i] as number;
      const mapped = this.multiRef.get(ref);
      if (mapped !== undefined) refs[i] = mapped;
    }
    return batch;
  }

  private addSamples(record: Uint8Array): void {
    const batch = this.decodeMapped(record);
    const known = batch.length;
    const unknown = batch.retain((ref) => this.head.seriesByRef(ref) !== undefined);
    this.unknownRefs += unknown;
    const applied = applyBatch(this.head, batch, this.head.minValidTime());
    this.samples += applied;
    this.skipped += known - unknown - applied;
  }
}

/**
 * Garbage-collects the head before `mint` and truncates its WAL like Prometheus: a new
 * segment is started, the older two thirds of the closed segments are checkpointed
 * (keeping the series still in the head and samples at or after mint), then those segments
 * and older checkpoints are deleted. Pass the WAL's compression in `opts`. Returns the segment the checkpoint covers, if one was made.
 */
export async function truncateHead(
  head: Head,
  mint: number,
  deps: { fs: FileSystem },
  opts: CheckpointOptions = {},
): Promise<{ removedSeries: number; removedChunks: number; checkpointedThrough?: number }> {
  const gc = head.truncateMemory(mint);
  const wal = head.wal;
  if (wal === undefined) return gc;
  const { first } = await wal.segments();
  // Writing continues in a fresh segment, so every older one can be checkpointed.
  let last = (await wal.nextSegment()) - 1;
  if (last < 0 || first < 0) return gc;
  last = first + Math.trunc(((last - first) * 2) / 3);
  if (last <= first) return gc;
  await checkpoint(
    wal.dir,
    first,
    last,
    (ref) => head.seriesByRef(ref) !== undefined,
    mint,
    { fs: deps.fs, logger: head.logger },
    opts,
  );
  await wal.truncate(last + 1);
  await deleteCheckpoints(wal.dir, last, deps);
  return { ...gc, checkpointedThrough: last };
}
