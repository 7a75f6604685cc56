// Append and iterate costs in ns/sample: appending into an existing head series set (the
// ingester's steady state) and into a bare XorChunk, and iterating head chunks and a block.
// Timed with performance.now() over many samples; the first round warms the JIT and is not
// counted. The process's CPU time (process.cpuUsage, all threads) over the same sections is
// reported too: on a shared machine wall time also counts the time other processes held the
// core, CPU time does not (it over- rather than under-states one core's work, since GC and
// JIT helper threads are included).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Matcher } from '../src/model/index.js';
import { NodeFileSystem, RealClock, createRealRandom } from '../src/runtime/real/index.js';
import {
  BlockReader,
  Head,
  ValueType,
  XorChunk,
  writeBlock,
  type BlockSeriesInput,
} from '../src/tsdb/index.js';
import {
  benchLabels,
  BENCH_INTERVAL_MS,
  BENCH_START_MS,
  generateShape,
  lcg,
} from './series_shapes.js';
import { silentLogger } from './silent_logger.js';

export interface SpeedResult {
  name: string;
  samples: number;
  nsPerSample: number;
  /** Process CPU time (user + system, all threads) per sample over the timed sections. */
  cpuNsPerSample: number;
}

/** Accumulates wall and process CPU time over several timed sections. */
class Stopwatch {
  wallMs = 0;
  cpuUs = 0;
  private wallStart = 0;
  private cpuStart: NodeJS.CpuUsage | undefined;

  start(): void {
    this.cpuStart = process.cpuUsage();
    this.wallStart = performance.now();
  }

  /** Ends the section; `count` false discards it (JIT warm-up). */
  stop(count = true): void {
    const wall = performance.now() - this.wallStart;
    const cpu = process.cpuUsage(this.cpuStart);
    if (!count) return;
    this.wallMs += wall;
    this.cpuUs += cpu.user + cpu.system;
  }

  result(name: string, samples: number): SpeedResult {
    return {
      name,
      samples,
      nsPerSample: (this.wallMs * 1e6) / samples,
      cpuNsPerSample: (this.cpuUs * 1e3) / samples,
    };
  }
}

export interface AppendBenchConfig {
  numSeries: number;
  /** Scrape rounds appended after the series exist (one sample per series per round). */
  rounds: number;
}

/**
 * Creates `numSeries` series in a fresh in-memory head (one sample each), then times
 * `rounds` commits of one sample per series by ref, as an ingester appends a push.
 * Returns the head too, so the iterate benchmark reads what was appended.
 */
export async function runHeadAppendBench(
  cfg: AppendBenchConfig,
): Promise<{ result: SpeedResult; head: Head }> {
  const head = new Head({}, { logger: silentLogger });
  const refs = new Float64Array(cfg.numSeries);
  const app0 = head.appender();
  for (let s = 0; s < cfg.numSeries; s++)
    refs[s] = app0.append(benchLabels('append', s), BENCH_START_MS, 0);
  await app0.commit();
  const rand = lcg(42);
  const values = new Float64Array(cfg.numSeries);
  const watch = new Stopwatch();
  let samples = 0;
  for (let r = 1; r <= cfg.rounds; r++) {
    const t = BENCH_START_MS + r * BENCH_INTERVAL_MS;
    for (let s = 0; s < cfg.numSeries; s++)
      values[s] = (values[s] as number) + Math.floor(rand() * 100);
    watch.start();
    const app = head.appender();
    for (let s = 0; s < cfg.numSeries; s++) app.append(refs[s] as number, t, values[s] as number);
    await app.commit();
    watch.stop(r > 1);
    if (r > 1) samples += cfg.numSeries;
  }
  return { result: watch.result('head append (existing series)', samples), head };
}

/** Appends `chunks` full 120-sample XOR chunks of counter-like samples. */
export function runXorAppendBench(chunks: number): SpeedResult {
  const rand = lcg(7);
  const ts = new Float64Array(120);
  const vs = new Float64Array(120);
  let v = 0;
  for (let i = 0; i < 120; i++) {
    ts[i] = BENCH_START_MS + i * BENCH_INTERVAL_MS;
    v += Math.floor(rand() * 100);
    vs[i] = v;
  }
  const once = (): void => {
    const app = new XorChunk().appender();
    for (let i = 0; i < 120; i++) app.append(ts[i] as number, vs[i] as number);
  };
  for (let c = 0; c < Math.min(chunks, 1000); c++) once(); // warm-up
  const watch = new Stopwatch();
  watch.start();
  for (let c = 0; c < chunks; c++) once();
  watch.stop();
  return watch.result('XorChunk append', chunks * 120);
}

/** Iterates every sample of every series in the head (twice; the second pass is timed). */
export async function runHeadIterateBench(head: Head): Promise<SpeedResult> {
  const series = await head.select(
    [Matcher.regex('__name__', '.+')],
    Number.MIN_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER,
  );
  const pass = (): number => {
    let n = 0;
    let sink = 0;
    for (const s of series) {
      const it = s.iterator();
      while (it.next() !== ValueType.None) {
        sink += it.atF();
        n++;
      }
    }
    return sink === -1 ? 0 : n;
  };
  pass();
  const watch = new Stopwatch();
  watch.start();
  const n = pass();
  watch.stop();
  return watch.result('iterate head chunks', n);
}

/**
 * Writes a block of `numSeries` counter series × `samplesPerSeries` samples, then times
 * selecting and iterating all of it through BlockReader (chunk reads from the file included).
 */
export async function runBlockIterateBench(
  numSeries: number,
  samplesPerSeries: number,
): Promise<SpeedResult> {
  const series: BlockSeriesInput[] = generateShape('counter', numSeries, samplesPerSeries);
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-iter-'));
  const fs = new NodeFileSystem();
  try {
    const meta = await writeBlock(
      work,
      series,
      {},
      {
        fs,
        clock: new RealClock({ unrefTimers: true }),
        random: createRealRandom().stream('bench-iter'),
      },
    );
    const block = await BlockReader.open(join(work, meta.ulid), { fs });
    try {
      const pass = async (): Promise<number> => {
        let n = 0;
        let sink = 0;
        for await (const s of block.select(
          [Matcher.regex('__name__', '.+')],
          Number.MIN_SAFE_INTEGER,
          Number.MAX_SAFE_INTEGER,
        )) {
          const it = s.iterator();
          while (it.next() !== ValueType.None) {
            sink += it.atF();
            n++;
          }
        }
        return sink === -1 ? 0 : n;
      };
      await pass();
      const watch = new Stopwatch();
      watch.start();
      const n = await pass();
      watch.stop();
      return watch.result('iterate block (select + read + decode)', n);
    } finally {
      await block.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
