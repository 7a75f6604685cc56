import {
  mkdirAllDurable,
  type FileHandle,
  type FileSystem,
  type Logger,
} from '../../runtime/index.js';
import { crc32c } from '../encoding/index.js';
import { snappyEncode } from './compression.js';
import { CorruptionError } from './corruption.js';
import {
  DEFAULT_SEGMENT_SIZE,
  FRAGMENT_FIRST,
  FRAGMENT_FULL,
  FRAGMENT_LAST,
  FRAGMENT_MIDDLE,
  PAGE_SIZE,
  RECORD_HEADER_SIZE,
  SNAPPY_FLAG,
  joinPath,
  segmentName,
} from './format.js';
import type { WALMetrics } from './metrics.js';
import { readRecords } from './reader.js';
import { rewriteSegmentPrefix } from './repair.js';
import { listSegments, segmentRange, type SegmentRange } from './segments.js';

export interface WALConfig {
  /** Maximum segment size in bytes, a multiple of the 32 KiB page; default 128 MiB. */
  segmentSize?: number;
  /** Snappy-compress records (`wal_compression_enabled`); default false. */
  compress?: boolean;
}

export interface WALDeps {
  fs: FileSystem;
  logger: Logger;
  metrics?: WALMetrics;
}

export interface ReplayResult {
  /** Records handed to the callback. */
  records: number;
  /** The corruption that ended the replay and was repaired, if any. */
  repaired?: CorruptionError;
}

/**
 * The page being filled. Prometheus keeps it in memory, writes its new bytes to the file at
 * the end of every `log` call (`flushed` marks how far), and zero-pads it to 32 KiB once no
 * header fits anymore, so the file only ever grows by appends.
 */
class Page {
  readonly buf = new Uint8Array(PAGE_SIZE);
  alloc = 0;
  flushed = 0;

  remaining(): number {
    return PAGE_SIZE - this.alloc;
  }

  full(): boolean {
    return PAGE_SIZE - this.alloc < RECORD_HEADER_SIZE;
  }

  reset(): void {
    this.buf.fill(0);
    this.alloc = 0;
    this.flushed = 0;
  }
}

/**
 * Prometheus's write log (tsdb/wlog) over the runtime FileSystem: records are appended to
 * the newest segment in 32 KiB pages of CRC32C-checked fragments; a record never spans two
 * segments. Opening always starts a fresh segment after the existing ones. Read the log
 * (`replay`) before logging after a restart, so corruption is repaired first.
 */
export class WAL {
  private segmentIndex = -1;
  private handle: FileHandle | undefined;
  private donePages = 0;
  private readonly page = new Page();
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly segmentSize: number;
  private readonly compress: boolean;

  private constructor(
    readonly dir: string,
    config: WALConfig,
    private readonly deps: WALDeps,
  ) {
    this.segmentSize = config.segmentSize ?? DEFAULT_SEGMENT_SIZE;
    this.compress = config.compress ?? false;
    if (
      !Number.isSafeInteger(this.segmentSize) ||
      this.segmentSize <= 0 ||
      this.segmentSize % PAGE_SIZE !== 0
    )
      throw new RangeError(
        `WAL segment size must be a positive multiple of ${PAGE_SIZE} bytes, got ${this.segmentSize}`,
      );
  }

  /** Opens (creating if needed) the WAL in `dir` and starts a new segment after the last one. */
  static async open(dir: string, config: WALConfig, deps: WALDeps): Promise<WAL> {
    const wal = new WAL(dir, config, deps);
    await mkdirAllDurable(deps.fs, dir);
    const { last } = await segmentRange(deps.fs, dir);
    await wal.createSegment(last + 1);
    return wal;
  }

  /** Index of the segment being written. */
  get currentSegment(): number {
    return this.segmentIndex;
  }

  /**
   * Appends records in order and writes them to the segment file (not yet durable: see
   * `sync`). Passing several records at once saves writes.
   */
  log(...records: Uint8Array[]): Promise<void> {
    return this.exclusive(async () => {
      this.checkOpen('log');
      try {
        for (let i = 0; i < records.length; i++) {
          await this.logOne(records[i]!, i === records.length - 1);
        }
      } catch (err) {
        this.deps.metrics?.writesFailed.inc();
        throw err;
      }
    });
  }

  /** Makes everything logged so far durable. */
  sync(): Promise<void> {
    return this.exclusive(async () => {
      this.checkOpen('sync');
      await this.activeHandle().sync();
    });
  }

  /** Closes the current segment (padded, synced) and starts the next; returns its index. */
  nextSegment(): Promise<number> {
    return this.exclusive(async () => {
      this.checkOpen('nextSegment');
      await this.rotate();
      return this.segmentIndex;
    });
  }

  /** First and last existing segment. */
  segments(): Promise<SegmentRange> {
    return segmentRange(this.deps.fs, this.dir);
  }

  /** Removes every segment with an index below `beforeSegment` (after a checkpoint or block cut). */
  truncate(beforeSegment: number): Promise<void> {
    return this.exclusive(async () => {
      this.checkOpen('truncate');
      const metrics = this.deps.metrics;
      metrics?.truncations.inc();
      if (beforeSegment > this.segmentIndex) {
        metrics?.truncationsFailed.inc();
        throw new RangeError(
          `cannot truncate WAL ${this.dir} before segment ${beforeSegment}: segment ${this.segmentIndex} is being written`,
        );
      }
      try {
        let removed = false;
        for (const ref of await listSegments(this.deps.fs, this.dir)) {
          if (ref.index >= beforeSegment) break;
          await this.deps.fs.remove(joinPath(this.dir, ref.name));
          removed = true;
        }
        if (removed) await this.deps.fs.syncDir(this.dir);
      } catch (err) {
        metrics?.truncationsFailed.inc();
        throw err;
      }
    });
  }

  /**
   * Reads every record from `fromSegment` (default: the oldest) and hands it to `onRecord`.
   * A corruption (including a torn tail after power loss) ends the replay: the WAL is
   * repaired to the last intact record before it and the error is returned, not thrown, so
   * the caller opens with what was recoverable.
   */
  async replay(
    onRecord: (record: Uint8Array) => void | Promise<void>,
    opts: { fromSegment?: number } = {},
  ): Promise<ReplayResult> {
    let records = 0;
    try {
      for await (const record of readRecords(this.dir, opts, { fs: this.deps.fs })) {
        await onRecord(record);
        records++;
      }
      return { records };
    } catch (err) {
      if (!(err instanceof CorruptionError) || err.dir !== this.dir) throw err;
      this.deps.metrics?.corruptions.inc();
      this.deps.logger.warn('WAL corruption found on replay, repairing', {
        dir: this.dir,
        segment: err.segment,
        offset: err.offset,
        kind: err.kind,
        records,
        err: err.message,
      });
      await this.repair(err);
      return { records, repaired: err };
    }
  }

  /**
   * Repairs the WAL after `err`, as Prometheus does: segments after the corrupted one are
   * deleted (later records may depend on lost ones), the corrupted segment is cut at the
   * start of the broken record and zero-padded to a page boundary, and writing continues in
   * a fresh segment after it.
   */
  repair(err: CorruptionError): Promise<void> {
    return this.exclusive(async () => {
      this.checkOpen('repair');
      if (err.dir !== this.dir)
        throw new Error(`corruption in ${err.dir} cannot be repaired by the WAL in ${this.dir}`);
      const { fs, logger } = this.deps;
      logger.warn('repairing WAL', { dir: this.dir, segment: err.segment, offset: err.offset });
      await this.closeActive();
      for (const ref of await listSegments(fs, this.dir)) {
        if (ref.index > err.segment) {
          logger.warn('deleting WAL segment after corruption', { segment: ref.index });
          await fs.remove(joinPath(this.dir, ref.name));
        }
      }
      await fs.syncDir(this.dir);
      await rewriteSegmentPrefix(fs, this.dir, err.segment, err.recordStart);
      await this.createSegment(err.segment + 1);
    });
  }

  /** Pads and flushes the current page, syncs and closes the segment. */
  close(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw new Error(`WAL ${this.dir} is already closed`);
      this.closed = true;
      if (this.handle === undefined) return;
      if (this.page.alloc > 0) await this.flushPage(true);
      await this.closeActive();
    });
  }

  // ---- internals (called with the queue held) ----

  private async logOne(record: Uint8Array, final: boolean): Promise<void> {
    if (this.page.full()) await this.flushPage(true);

    let data = record;
    let flags = 0;
    if (this.compress) {
      // Like Prometheus: keep the compressed form only when it is smaller.
      const encoded = record.length > 0 ? snappyEncode(record) : record;
      const saved = record.length - encoded.length;
      if (saved > 0) {
        data = encoded;
        flags = SNAPPY_FLAG;
      }
      this.deps.metrics?.recordBytesSaved.inc({ compression: 'snappy' }, Math.max(saved, 0));
    }

    // A record never spans segments: if it does not fit in what is left of this one, rotate.
    // (Prometheus rotates even an empty segment; we keep writing into it instead.)
    const pagesPerSegment = this.segmentSize / PAGE_SIZE;
    const left =
      this.page.remaining() -
      RECORD_HEADER_SIZE +
      (PAGE_SIZE - RECORD_HEADER_SIZE) * (pagesPerSegment - this.donePages - 1);
    const segmentEmpty = this.donePages === 0 && this.page.alloc === 0;
    if (data.length > left && !segmentEmpty) await this.rotate();

    let offset = 0;
    for (let i = 0; i === 0 || offset < data.length; i++) {
      const page = this.page;
      const n = Math.min(data.length - offset, PAGE_SIZE - page.alloc - RECORD_HEADER_SIZE);
      const last = offset + n === data.length;
      const type =
        i === 0 ? (last ? FRAGMENT_FULL : FRAGMENT_FIRST) : last ? FRAGMENT_LAST : FRAGMENT_MIDDLE;
      const part = data.subarray(offset, offset + n);
      const crc = crc32c(part);
      const buf = page.buf;
      const h = page.alloc;
      buf[h] = type | flags;
      buf[h + 1] = n >>> 8;
      buf[h + 2] = n & 0xff;
      buf[h + 3] = crc >>> 24;
      buf[h + 4] = (crc >>> 16) & 0xff;
      buf[h + 5] = (crc >>> 8) & 0xff;
      buf[h + 6] = crc & 0xff;
      buf.set(part, h + RECORD_HEADER_SIZE);
      page.alloc += RECORD_HEADER_SIZE + n;
      this.deps.metrics?.recordPartWrites.inc();
      this.deps.metrics?.recordPartBytes.inc(RECORD_HEADER_SIZE + n);
      if (page.full()) await this.flushPage(true);
      offset += n;
    }

    if (final && this.page.alloc > this.page.flushed) await this.flushPage(false);
  }

  /** Writes the page's unwritten bytes; a full (or `forceClear`ed) page is zero-padded and reset. */
  private async flushPage(forceClear: boolean): Promise<void> {
    const page = this.page;
    const clear = forceClear || page.full();
    if (clear) page.alloc = PAGE_SIZE;
    this.deps.metrics?.pageFlushes.inc();
    if (page.alloc > page.flushed) {
      await this.activeHandle().append(page.buf.subarray(page.flushed, page.alloc));
      page.flushed = page.alloc;
    }
    if (clear) {
      page.reset();
      this.donePages++;
      this.deps.metrics?.pageCompletions.inc();
    }
  }

  private async rotate(): Promise<void> {
    if (this.page.alloc > 0) await this.flushPage(true);
    const next = this.segmentIndex + 1;
    // Synchronously, unlike Prometheus's background fsync: a later sync() only covers the
    // new segment, so the old one must be durable before anything is logged after it.
    await this.closeActive();
    await this.createSegment(next);
  }

  private async createSegment(index: number): Promise<void> {
    const handle = await this.deps.fs.open(joinPath(this.dir, segmentName(index)), 'a');
    // The new file's directory entry must survive a power loss, or its synced data would not.
    await this.deps.fs.syncDir(this.dir);
    const size = await handle.size();
    this.handle = handle;
    this.segmentIndex = index;
    this.donePages = Math.floor(size / PAGE_SIZE);
    this.page.reset();
    this.deps.metrics?.currentSegment.set(index);
  }

  private async closeActive(): Promise<void> {
    const handle = this.handle;
    if (handle === undefined) return;
    this.handle = undefined;
    await handle.sync();
    await handle.close();
  }

  private activeHandle(): FileHandle {
    if (this.handle === undefined)
      throw new Error(`WAL ${this.dir} has no open segment (a failed repair or rotation)`);
    return this.handle;
  }

  private checkOpen(op: string): void {
    if (this.closed) throw new Error(`WAL ${this.dir} is closed: cannot ${op}`);
  }

  /** Runs operations one at a time, in call order, like Prometheus's WAL mutex. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.queue.then(fn);
    this.queue = result.catch(() => undefined);
    return result;
  }
}
