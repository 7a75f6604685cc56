/**
 * Test support for the cleaner's tests: a cleaner over a recording in-memory bucket with a
 * manual clock, a capturing logger and its own registry, and a reader for one metric
 * series. Only tests import this file.
 */
import { readBucketIndex } from '../bucket/index.js';
import { RecordingBucket, testUlid } from '../bucket/testing.js';
import { MemoryBucket, newMetricsRegistry, type MetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { BlocksCleaner, type BlocksCleanerConfig, type BlocksCleanerDeps } from './cleaner.js';

export const T0 = 1_700_000_000_000;
export const HOUR = 3_600_000;

/** Distinct block IDs minted two days before T0. */
export const id = (n: number): string => testUlid(T0 - 48 * HOUR, n);

export const signal = (): AbortSignal => new AbortController().signal;

export interface World {
  clock: ManualClock;
  inner: MemoryBucket;
  bucket: RecordingBucket;
  logger: CapturingLogger;
  metrics: MetricsRegistry;
  cleaner: BlocksCleaner;
}

export function world(
  config: Partial<BlocksCleanerConfig> = {},
  deps: Partial<BlocksCleanerDeps> = {},
): World {
  const clock = new ManualClock(T0);
  const inner = new MemoryBucket({ clock });
  const bucket = new RecordingBucket(inner);
  const logger = new CapturingLogger();
  const metrics = newMetricsRegistry();
  const cleaner = new BlocksCleaner(
    { deletionDelayMs: 12 * HOUR, cleanupConcurrency: 20, ...config },
    { bucket, clock, logger, metrics, ...deps },
  );
  return { clock, inner, bucket, logger, metrics, cleaner };
}

/** The value of the series of `name` whose labels include `labels`; undefined when absent. */
export async function metric(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const m = registry.getSingleMetric(name);
  if (m === undefined) throw new Error(`no metric ${name}`);
  const { values } = await m.get();
  const found = values.find((v) =>
    Object.entries(labels).every(([k, val]) => (v.labels as Record<string, unknown>)[k] === val),
  );
  return found?.value;
}

export async function blockIds(w: World, tenant: string): Promise<string[]> {
  return (await readBucketIndex(w.inner, tenant)).blocks.map((b) => b.block_id);
}
