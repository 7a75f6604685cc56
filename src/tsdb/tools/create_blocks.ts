// `tools tsdb create-blocks-from openmetrics`: promtool's backfill. A first pass over the
// input finds the lowest and highest timestamps; then, for every block-duration-aligned
// range between them, one more pass collects that range's samples and writes them as one
// block. Memory therefore holds one block range's samples, never the whole input, at the
// cost of one read of the input per range (as promtool does).

import { parseOpenMetricsStream, TextParseError, type Labels } from '../../model/index.js';
import type { Clock, FileSystem, RandomStream } from '../../runtime/index.js';
import {
  writeBlock,
  type BlockMeta,
  type BlockSeriesInput,
  type WriteBlockOptions,
} from '../block/index.js';
import { formatGoDurationMs } from './go_format.js';
import { readFileChunks } from './read_stream.js';

/** Prometheus's default (and smallest) block duration. */
export const DEFAULT_BLOCK_DURATION_MS = 2 * 60 * 60 * 1000;

export interface CreateBlocksConfig {
  /** OpenMetrics input file. */
  inputPath: string;
  /** Directory the blocks are written under. */
  outputDir: string;
  /**
   * Longest block to write, ms; rounded down to one of Prometheus's ranges 2h·3^n (n < 10).
   * Anything at or below 2h gives 2h blocks.
   */
  maxBlockDurationMs?: number;
  /** Chunk cutting rules (default 'current'; promtool 2.42 cuts with 'v2.42'). */
  rules?: WriteBlockOptions['rules'];
  /** Do not print the table of created blocks on stdout. */
  quiet?: boolean;
  /** Report progress on stderr every this many samples read (default 1,000,000). */
  progressEverySamples?: number;
}

export interface CreateBlocksDeps {
  fs: FileSystem;
  clock: Clock;
  /** Entropy of the block ULIDs. */
  random: RandomStream;
  stdout(s: string): void;
  stderr(s: string): void;
}

/** The input cannot be turned into blocks; the message names the line and the bad value. */
export class CreateBlocksError extends Error {
  override readonly name = 'CreateBlocksError';
}

/** Go's math.NaN(): the NaN that promtool's parser stores for "NaN". */
const GO_NAN_BITS = 0x7ff8000000000001n;

/** The block duration promtool uses for a requested maximum (getCompatibleBlockDuration). */
export function compatibleBlockDuration(maxBlockDurationMs: number): number {
  let duration = DEFAULT_BLOCK_DURATION_MS;
  if (maxBlockDurationMs > DEFAULT_BLOCK_DURATION_MS) {
    for (let i = 1; i < 10; i++) {
      const next = duration * 3;
      if (next > maxBlockDurationMs) break;
      duration = next;
    }
  }
  return duration;
}

/** One series' samples of the current range, in growable typed arrays. */
class SeriesBuffer {
  timestamps = new Float64Array(16);
  values = new Float64Array(16);
  private view = new DataView(this.values.buffer);
  length = 0;

  constructor(readonly labels: Labels) {}

  /** Appends a sample; returns an error text for out-of-order or conflicting duplicates. */
  add(t: number, v: number): string | undefined {
    if (this.length > 0) {
      const last = this.timestamps[this.length - 1] as number;
      if (t < last) return `out of order sample: ts=${t}, last ts=${last}`;
      if (t === last) {
        const prev = this.values[this.length - 1] as number;
        if (Object.is(prev, v) || (Number.isNaN(prev) && Number.isNaN(v))) return undefined;
        return `duplicate sample for timestamp ${t} with a different value`;
      }
    }
    if (this.length === this.timestamps.length) this.grow();
    this.timestamps[this.length] = t;
    if (Number.isNaN(v)) this.view.setBigUint64(this.length * 8, GO_NAN_BITS, true);
    else this.values[this.length] = v;
    this.length++;
    return undefined;
  }

  toInput(): BlockSeriesInput {
    return {
      labels: this.labels,
      timestamps: this.timestamps.subarray(0, this.length),
      values: this.values.subarray(0, this.length),
    };
  }

  private grow(): void {
    const ts = new Float64Array(this.timestamps.length * 2);
    ts.set(this.timestamps);
    const vs = new Float64Array(this.values.length * 2);
    vs.set(this.values);
    this.timestamps = ts;
    this.values = vs;
    this.view = new DataView(vs.buffer);
  }
}

interface Sample {
  line: number;
  labels: Labels;
  t: number;
  v: number;
}

/**
 * Writes blocks from an OpenMetrics file as promtool does and returns their metas in time
 * order. Prints promtool's table of created blocks on stdout (unless quiet) and progress on
 * stderr. Throws CreateBlocksError or the parser's TextParseError (both name the line).
 */
export async function createBlocksFromOpenMetrics(
  config: CreateBlocksConfig,
  deps: CreateBlocksDeps,
): Promise<BlockMeta[]> {
  const progressEvery = config.progressEverySamples ?? 1_000_000;
  const blockDuration = compatibleBlockDuration(config.maxBlockDurationMs ?? 0);

  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  let total = 0;
  try {
    for await (const s of samples(config.inputPath, deps.fs)) {
      if (s.t < minTime) minTime = s.t;
      if (s.t > maxTime) maxTime = s.t;
      total++;
      if (total % progressEvery === 0) {
        deps.stderr(`scanning: ${total} samples read (line ${s.line})\n`);
      }
    }
  } catch (err) {
    throw wrap('getting min and max timestamp', err);
  }
  if (total === 0) {
    deps.stderr('no samples in the input: no block written\n');
    return [];
  }
  // Go's integer division truncates toward zero; so does the alignment promtool does.
  const start = Math.trunc(minTime / blockDuration) * blockDuration;
  const ranges = Math.floor((maxTime - start) / blockDuration) + 1;
  deps.stderr(
    `${total} samples between ${minTime} and ${maxTime}: up to ${ranges} block(s) of ${formatGoDurationMs(blockDuration)}\n`,
  );

  const metas: BlockMeta[] = [];
  let printedHeader = false;
  let rangeIndex = 0;
  for (let t = start; t <= maxTime; t += blockDuration) {
    rangeIndex++;
    const upper = t + blockDuration;
    const series = new Map<string, SeriesBuffer>();
    let inRange = 0;
    try {
      for await (const s of samples(config.inputPath, deps.fs)) {
        if (s.t < t || s.t >= upper) continue;
        const key = s.labels.toString();
        let buf = series.get(key);
        if (buf === undefined) {
          buf = new SeriesBuffer(s.labels);
          series.set(key, buf);
        }
        const problem = buf.add(s.t, s.v);
        if (problem !== undefined) {
          throw new CreateBlocksError(`line ${s.line}: ${problem} for series ${key}`);
        }
        inRange++;
        if (inRange % progressEvery === 0) {
          deps.stderr(`block ${rangeIndex}/${ranges}: ${inRange} samples collected\n`);
        }
      }
    } catch (err) {
      throw wrap('process blocks', err);
    }
    if (inRange === 0) continue;
    const meta = await writeBlock(
      config.outputDir,
      [...series.values()].map((b) => b.toInput()),
      { chunkRange: 2 * blockDuration, rules: config.rules ?? 'current' },
      { fs: deps.fs, clock: deps.clock, random: deps.random },
    );
    metas.push(meta);
    deps.stderr(
      `block ${rangeIndex}/${ranges} [${t}, ${upper}): ${series.size} series, ${inRange} samples -> ${config.outputDir}/${meta.ulid}\n`,
    );
    if (config.quiet !== true) {
      const size = await blockSize(deps.fs, `${config.outputDir}/${meta.ulid}`);
      deps.stdout(blockTable(meta, size, !printedHeader));
      printedHeader = true;
    }
  }
  return metas;
}

/** Every sample line of the input with its timestamp; promtool requires one per sample. */
async function* samples(path: string, fs: FileSystem): AsyncGenerator<Sample> {
  for await (const entry of parseOpenMetricsStream(readFileChunks(fs, path))) {
    if (entry.kind !== 'series') continue;
    if (entry.timestamp === undefined) {
      throw new CreateBlocksError(
        `line ${entry.line}: expected timestamp for series ${entry.labels.toString()}, got none`,
      );
    }
    yield { line: entry.line, labels: entry.labels, t: entry.timestamp, v: entry.value };
  }
}

function wrap(stage: string, err: unknown): Error {
  if (err instanceof CreateBlocksError || err instanceof TextParseError) {
    return new CreateBlocksError(`${stage}: ${err.message}`);
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Bytes of a block as Prometheus's Block.Size counts them: chunks, index, tombstones, meta. */
async function blockSize(fs: FileSystem, dir: string): Promise<number> {
  let size = 0;
  for (const name of await fs.readdir(`${dir}/chunks`)) {
    size += (await fs.stat(`${dir}/chunks/${name}`))?.size ?? 0;
  }
  for (const name of ['index', 'tombstones', 'meta.json']) {
    size += (await fs.stat(`${dir}/${name}`))?.size ?? 0;
  }
  return size;
}

const TABLE_HEADER = [
  'BLOCK ULID',
  'MIN TIME',
  'MAX TIME',
  'DURATION',
  'NUM SAMPLES',
  'NUM CHUNKS',
  'NUM SERIES',
  'SIZE',
];

/**
 * promtool's printBlocks for one block: a Go tabwriter (min width 13, padding 2) per call, so
 * the header aligns with the first block only, exactly as promtool prints it.
 */
export function blockTable(meta: BlockMeta, sizeBytes: number, withHeader: boolean): string {
  const row = [
    meta.ulid,
    String(meta.minTime),
    String(meta.maxTime),
    formatGoDurationMs(meta.maxTime - meta.minTime),
    String(meta.stats.numSamples),
    String(meta.stats.numChunks),
    String(meta.stats.numSeries),
    String(sizeBytes),
  ];
  const rows = withHeader ? [TABLE_HEADER, row] : [row];
  const widths = row.map((_, col) =>
    Math.max(13, ...rows.map((r) => (r[col] as string).length + 2)),
  );
  return rows
    .map(
      (r) =>
        r
          .map((cell, col) => (col === r.length - 1 ? cell : cell.padEnd(widths[col] as number)))
          .join('') + '\n',
    )
    .join('');
}
