// The four series shapes the storage benchmarks measure, generated deterministically (a
// seeded LCG) so every run and both writers (ours and promtool) see the same samples.
import { Labels } from '../src/model/index.js';
import type { BlockSeriesInput } from '../src/tsdb/index.js';

export type SeriesShape = 'constant' | 'counter' | 'jittered' | 'random';

export const SERIES_SHAPES: readonly SeriesShape[] = ['constant', 'counter', 'jittered', 'random'];

/** Start of the samples: a 2h block boundary, so one promtool block holds them all. */
export const BENCH_START_MS = 1_699_999_200_000;
/** Scrape interval of every shape. */
export const BENCH_INTERVAL_MS = 15_000;
/** Samples that fit one 2h block at 15s (promtool cuts blocks at 2h boundaries). */
export const SAMPLES_PER_2H_BLOCK = 480;

/** A deterministic uniform [0, 1) generator; benchmarks must be repeatable. */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Labels of series `i` of a shape, like a scraped target's. */
export function benchLabels(shape: string, i: number): Labels {
  return Labels.fromStrings(
    '__name__',
    `bench_${shape}`,
    'instance',
    `host-${i}.example.org:9100`,
    'job',
    'node',
  );
}

/**
 * `numSeries` series of `shape`, `samplesPerSeries` samples each every 15s from
 * BENCH_START_MS. Jittered timestamps move each sample by 0–3999 ms (as a busy scraper
 * does); counters grow by 0–99 per scrape; random values are uniform doubles.
 */
export function generateShape(
  shape: SeriesShape,
  numSeries: number,
  samplesPerSeries: number,
): BlockSeriesInput[] {
  const rand = lcg(0x5eed + SERIES_SHAPES.indexOf(shape));
  const out: BlockSeriesInput[] = [];
  for (let s = 0; s < numSeries; s++) {
    const timestamps = new Float64Array(samplesPerSeries);
    const values = new Float64Array(samplesPerSeries);
    let counter = Math.floor(rand() * 1000);
    for (let i = 0; i < samplesPerSeries; i++) {
      const base = BENCH_START_MS + i * BENCH_INTERVAL_MS;
      switch (shape) {
        case 'constant':
          timestamps[i] = base;
          values[i] = 1;
          break;
        case 'counter':
          counter += Math.floor(rand() * 100);
          timestamps[i] = base;
          values[i] = counter;
          break;
        case 'jittered':
          timestamps[i] = base + Math.floor(rand() * 4000);
          values[i] = s % 10;
          break;
        case 'random':
          timestamps[i] = base;
          values[i] = rand() * 1000;
          break;
      }
    }
    out.push({ labels: benchLabels(shape, s), timestamps, values });
  }
  return out;
}
