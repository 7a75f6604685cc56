// The measured part of the compaction benchmark: one run of the compactor's CompactionLoop
// (tenant discovery, meta sync, grouping, planning, download, verification, streaming merge,
// verification of the output, upload, deletion marks) over a filesystem bucket holding the
// three replicas, with wall time, CPU time (process.cpuUsage) and memory. Memory is sampled
// every few milliseconds (RSS, and V8 heap plus ArrayBuffer stores) and attributed to the
// phase the compaction is in, which a bucket and a file system wrapper infer from what the
// compactor touches: data reads from the bucket (download), the first look at a downloaded
// block's chunks (verify), a downloaded meta.json read (the merge opening its sources as block
// readers; conflicting samples are counted during the merge itself), the first file of the new block (merge), the
// look at the new block's chunks (verify output), the first upload (upload) and meta.json
// uploaded (finish). A phase the compactor does not go through is left out.
// Run in a child process (compaction_child.ts) the process's own peak RSS counts nothing
// but the compaction; in-process (tests) only the sampled values mean anything.
import {
  CompactionLoop,
  type CompactionConfig,
  type CompactionRunResult,
} from '../src/compactor/index.js';
import {
  newMetricsRegistry,
  type Bucket,
  type BucketCallOptions,
  type UploadSource,
  type BucketListOptions,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type Logger,
  type ObjectAttributes,
  type OpenMode,
} from '../src/runtime/index.js';
import {
  FilesystemBucket,
  NodeFileSystem,
  RealClock,
  createRealRandom,
} from '../src/runtime/real/index.js';

export const PHASES = [
  'sync',
  'download',
  'verify',
  'open sources',
  'merge',
  'verify output',
  'upload',
  'finish',
] as const;
export type Phase = (typeof PHASES)[number];

export interface PhaseStats {
  phase: Phase;
  wallMs: number;
  peakRssBytes: number;
  peakHeapBytes: number;
}

export interface MeasuredRun {
  measuredIn: 'child process' | 'in-process';
  wallMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  /** RSS and heap (V8 heap + ArrayBuffers) just before the run. */
  baselineRssBytes: number;
  baselineHeapBytes: number;
  /** Child: the kernel's high-water mark of the process; in-process: the largest sample. */
  peakRssBytes: number;
  peakHeapBytes: number;
  samples: number;
  phases: PhaseStats[];
  run: CompactionRunResult;
}

export interface MeasureInput {
  bucketDir: string;
  dataDir: string;
  /** Milliseconds between memory samples. */
  sampleEveryMs: number;
}

const HOUR = 3_600_000;

/** The product's defaults (Cortex's), with one attempt: a failing compaction must fail now. */
export const BENCH_COMPACTION_CONFIG: CompactionConfig = {
  blockRangesMs: [2 * HOUR, 12 * HOUR, 24 * HOUR],
  blockSyncConcurrency: 20,
  metaSyncConcurrency: 20,
  consistencyDelayMs: 0,
  compactionIntervalMs: HOUR,
  compactionRetries: 1,
  compactionConcurrency: 1,
  skipBlocksWithOutOfOrderChunksEnabled: false,
};

/** Memory of the current phase, kept as running maxima. */
class PhaseTracker {
  private current: Phase = 'sync';
  private startedAt: number;
  readonly stats = new Map<Phase, PhaseStats>();
  peakRss = 0;
  peakHeap = 0;
  samples = 0;

  constructor() {
    this.startedAt = performance.now();
    this.sample();
  }

  get phase(): Phase {
    return this.current;
  }

  /** Moves to `next` if it comes later than the current phase. */
  enter(next: Phase): void {
    if (PHASES.indexOf(next) <= PHASES.indexOf(this.current)) return;
    this.sample();
    this.close();
    this.current = next;
    this.sample();
  }

  sample(): void {
    const m = process.memoryUsage();
    const heap = m.heapUsed + m.arrayBuffers;
    this.samples++;
    this.peakRss = Math.max(this.peakRss, m.rss);
    this.peakHeap = Math.max(this.peakHeap, heap);
    const s = this.stats.get(this.current) ?? {
      phase: this.current,
      wallMs: 0,
      peakRssBytes: 0,
      peakHeapBytes: 0,
    };
    s.peakRssBytes = Math.max(s.peakRssBytes, m.rss);
    s.peakHeapBytes = Math.max(s.peakHeapBytes, heap);
    this.stats.set(this.current, s);
  }

  /** Ends the current phase's clock. */
  close(): void {
    const now = performance.now();
    const s = this.stats.get(this.current);
    if (s !== undefined) s.wallMs += now - this.startedAt;
    this.startedAt = now;
  }
}

const isDataObject = (name: string): boolean =>
  name.endsWith('/index') || /\/chunks\/\d+$/.test(name);

/** Passes every call on; data reads mean download, uploads mean upload, meta.json last. */
class PhaseBucket implements Bucket {
  readonly name: string;
  constructor(
    private readonly inner: Bucket,
    private readonly tracker: PhaseTracker,
  ) {
    this.name = inner.name;
  }
  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    if (isDataObject(name)) this.tracker.enter('download');
    return this.inner.get(name, opts);
  }
  getRange(name: string, off: number, len: number, opts?: BucketCallOptions): Promise<Uint8Array> {
    if (isDataObject(name)) this.tracker.enter('download');
    return this.inner.getRange(name, off, len, opts);
  }
  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.inner.exists(name, opts);
  }
  async upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    if (isDataObject(name)) this.tracker.enter('upload');
    await this.inner.upload(name, data, opts);
    if (name.endsWith('/meta.json') && this.tracker.phase === 'upload') {
      this.tracker.enter('finish');
    }
  }
  async uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    if (isDataObject(name)) this.tracker.enter('upload');
    await this.inner.uploadStream(name, source, opts);
  }
  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.inner.delete(name, opts);
  }
  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    return this.inner.list(dir, opts);
  }
  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.inner.attributes(name, opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** Passes every call on; infers verify, open sources, merge and verify output. */
class PhaseFileSystem implements FileSystem {
  constructor(
    private readonly inner: FileSystem,
    private readonly tracker: PhaseTracker,
  ) {}
  open(path: string, mode: OpenMode): Promise<FileHandle> {
    if (mode === 'w' && path.includes('.tmp-for-creation/')) this.tracker.enter('merge');
    return this.inner.open(path, mode);
  }
  readFile(path: string): Promise<Uint8Array> {
    // Verification never reads meta.json; opening a BlockReader for the merge does.
    if (path.endsWith('/meta.json') && this.tracker.phase === 'verify') {
      this.tracker.enter('open sources');
    }
    return this.inner.readFile(path);
  }
  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return this.inner.writeFile(path, data);
  }
  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.mkdir(path, opts);
  }
  readdir(path: string): Promise<string[]> {
    if (path.endsWith('/chunks')) {
      if (this.tracker.phase === 'download') this.tracker.enter('verify');
      else if (this.tracker.phase === 'merge') this.tracker.enter('verify output');
    }
    return this.inner.readdir(path);
  }
  stat(path: string): Promise<FileStat | undefined> {
    return this.inner.stat(path);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }
  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.remove(path, opts);
  }
  syncDir(path: string): Promise<void> {
    return this.inner.syncDir(path);
  }
}

/** Warnings and errors go to stderr: a failing compaction must not pass unnoticed. */
function stderrLogger(): Logger {
  const log =
    (level: string) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      process.stderr.write(
        `compaction: ${level}: ${msg}${fields === undefined ? '' : ' ' + JSON.stringify(fields)}\n`,
      );
    };
  const logger: Logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  };
  return logger;
}

/** Runs one compaction run over the bucket in `bucketDir`, measured. */
export async function measureCompaction(
  input: MeasureInput,
  measuredIn: MeasuredRun['measuredIn'],
): Promise<MeasuredRun> {
  const clock = new RealClock();
  const before = process.memoryUsage();
  const tracker = new PhaseTracker();
  const bucket = new PhaseBucket(new FilesystemBucket(input.bucketDir, clock), tracker);
  const fs = new PhaseFileSystem(new NodeFileSystem(), tracker);
  const loop = new CompactionLoop(
    { ...BENCH_COMPACTION_CONFIG, dataDir: input.dataDir },
    {
      bucket,
      fs,
      clock,
      random: createRealRandom(),
      logger: stderrLogger(),
      metrics: newMetricsRegistry(),
      ownsTenant: () => true,
    },
  );
  const sampler = setInterval(() => tracker.sample(), input.sampleEveryMs);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let run: CompactionRunResult;
  try {
    run = await loop.runOnce(new AbortController().signal);
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  tracker.sample();
  tracker.close();
  const maxRss = measuredIn === 'child process' ? process.resourceUsage().maxRSS * 1024 : 0;
  return {
    measuredIn,
    wallMs,
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    baselineRssBytes: before.rss,
    baselineHeapBytes: before.heapUsed + before.arrayBuffers,
    peakRssBytes: Math.max(maxRss, tracker.peakRss),
    peakHeapBytes: tracker.peakHeap,
    samples: tracker.samples,
    phases: PHASES.flatMap((p) => {
      const s = tracker.stats.get(p);
      return s === undefined ? [] : [s];
    }),
    run,
  };
}
