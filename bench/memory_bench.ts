// Head memory per series: the heap growth (V8 heap plus ArrayBuffer stores) (after full garbage collections) of a head holding
// `numSeries` series of three labels with one sample each, i.e. one open XOR chunk per series,
// postings and stripes included. Needs node's --expose-gc.
import { Head } from '../src/tsdb/index.js';
import { benchLabels, BENCH_START_MS } from './series_shapes.js';
import { silentLogger } from './silent_logger.js';

export interface MemoryResult {
  series: number;
  heapDeltaBytes: number;
  bytesPerSeries: number;
}

/** The `gc` function node exposes with --expose-gc, or undefined without the flag. */
export function exposedGc(): (() => void) | undefined {
  const gc: unknown = (globalThis as { gc?: unknown }).gc;
  return typeof gc === 'function' ? (gc as () => void) : undefined;
}

/** JS heap plus ArrayBuffer backing stores: chunk bytes live outside the V8 heap. */
function settledHeap(gc: () => void): number {
  for (let i = 0; i < 3; i++) gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export async function runMemoryBench(numSeries: number): Promise<MemoryResult> {
  const gc = exposedGc();
  if (gc === undefined) throw new Error('head memory benchmark needs node --expose-gc');
  const before = settledHeap(gc);
  const head = new Head({}, { logger: silentLogger });
  const batch = 10_000;
  for (let start = 0; start < numSeries; start += batch) {
    const app = head.appender();
    const end = Math.min(numSeries, start + batch);
    for (let s = start; s < end; s++) app.append(benchLabels('memory', s), BENCH_START_MS, s);
    await app.commit();
  }
  const after = settledHeap(gc);
  if (head.seriesCount() !== numSeries) {
    throw new Error(`head holds ${head.seriesCount()} series, expected ${numSeries}`);
  }
  const heapDeltaBytes = after - before;
  return { series: numSeries, heapDeltaBytes, bytesPerSeries: heapDeltaBytes / numSeries };
}
