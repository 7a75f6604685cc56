// `tools tsdb dump`: prints every sample of every block of a database directory the way
// `promtool tsdb dump` does — series in label order, overlapping blocks merged per series
// with samples in time order and duplicate timestamps printed once, each line
// `{name="value", …} <Go %g value> <timestamp ms>`. The WAL and head chunks are not read
// (promtool also replays the WAL; Strata's tool reads blocks only).

import { goQuote, Labels, type Matcher } from '../../model/index.js';
import type { FileSystem } from '../../runtime/index.js';
import { ValueType } from '../chunkenc/index.js';
import {
  BlockReader,
  MergedSampleIterator,
  isCanonicalUlid,
  type BlockSeries,
  type SeriesSampleIterator,
} from '../block/index.js';
import { formatGoG } from './go_format.js';

export interface DumpConfig {
  /** The database directory holding block directories. */
  dbPath: string;
  /** Inclusive bounds, ms (default: everything). */
  minTime?: number;
  maxTime?: number;
  /** Series selector matchers; an empty list selects nothing, as in promtool. */
  matchers: readonly Matcher[];
}

export interface DumpDeps {
  fs: FileSystem;
  /** Receives the output in pieces of whole lines. */
  write(s: string): void;
}

export interface DumpSummary {
  blocks: number;
  series: number;
  samples: number;
}

const FLUSH_CHARS = 1 << 16;

/** Prometheus 2.42's labels.String (names unquoted, values in Go %q). */
export function formatLabelsPromtool(labels: Labels): string {
  let out = '{';
  let first = true;
  labels.forEach((name, value) => {
    out += `${first ? '' : ', '}${name}=${goQuote(value)}`;
    first = false;
  });
  return out + '}';
}

/** The block directories of a database, oldest data first (Prometheus orders by min time). */
export async function openBlocks(fs: FileSystem, dbPath: string): Promise<BlockReader[]> {
  const stat = await fs.stat(dbPath);
  if (stat === undefined || !stat.isDirectory) {
    throw new Error(`database path ${JSON.stringify(dbPath)} is not a directory`);
  }
  const readers: BlockReader[] = [];
  try {
    for (const name of await fs.readdir(dbPath)) {
      // Block directories are named by their ULID; `wal`, `chunks_head` and temporary
      // `<ulid>.tmp-*` directories are not blocks.
      if (!isCanonicalUlid(name)) continue;
      const dir = `${dbPath}/${name}`;
      if ((await fs.stat(dir))?.isDirectory !== true) continue;
      readers.push(await BlockReader.open(dir, { fs }));
    }
  } catch (err) {
    await Promise.all(readers.map((r) => r.close()));
    throw err;
  }
  readers.sort((a, b) => a.meta.minTime - b.meta.minTime || (a.meta.ulid < b.meta.ulid ? -1 : 1));
  return readers;
}

/** Prints the selected samples of every block in `dbPath` and returns what was printed. */
export async function dumpSamples(config: DumpConfig, deps: DumpDeps): Promise<DumpSummary> {
  const mint = config.minTime ?? Number.MIN_SAFE_INTEGER;
  const maxt = config.maxTime ?? Number.MAX_SAFE_INTEGER;
  const readers = await openBlocks(deps.fs, config.dbPath);
  const summary: DumpSummary = { blocks: readers.length, series: 0, samples: 0 };
  if (config.matchers.length === 0) {
    await Promise.all(readers.map((r) => r.close()));
    return summary;
  }
  let out = '';
  try {
    const cursors = readers.map((r) => r.select(config.matchers, mint, maxt));
    const heads: (BlockSeries | undefined)[] = [];
    for (const c of cursors) heads.push(await nextOf(c));
    for (;;) {
      // The smallest label set among the blocks' current series, and every block holding it.
      let smallest: Labels | undefined;
      for (const h of heads) {
        if (h !== undefined && (smallest === undefined || Labels.compare(h.labels, smallest) < 0)) {
          smallest = h.labels;
        }
      }
      if (smallest === undefined) break;
      const iterators: SeriesSampleIterator[] = [];
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h !== undefined && Labels.compare(h.labels, smallest) === 0) {
          iterators.push(h.iterator());
          heads[i] = await nextOf(cursors[i] as AsyncGenerator<BlockSeries>);
        }
      }
      const prefix = `${formatLabelsPromtool(smallest)} `;
      let printed = 0;
      mergeSamples(iterators, (t, v) => {
        out += `${prefix}${formatGoG(v)} ${t}\n`;
        printed++;
        if (out.length >= FLUSH_CHARS) {
          deps.write(out);
          out = '';
        }
      });
      if (printed > 0) summary.series++;
      summary.samples += printed;
    }
    if (out.length > 0) deps.write(out);
  } finally {
    await Promise.all(readers.map((r) => r.close()));
  }
  return summary;
}

async function nextOf(it: AsyncGenerator<BlockSeries>): Promise<BlockSeries | undefined> {
  const r = await it.next();
  return r.done === true ? undefined : r.value;
}

/**
 * Samples of one series from several blocks in time order; of samples sharing a timestamp
 * only the first (from the block with the lowest min time) is kept, as a chained merge does.
 * Samples go to `emit` rather than being yielded, so merging allocates nothing per sample.
 */
function mergeSamples(
  iterators: SeriesSampleIterator[],
  emit: (t: number, v: number) => void,
): void {
  const merged = new MergedSampleIterator(iterators);
  while (merged.next() === ValueType.Float) emit(merged.atT(), merged.atF());
  const err = merged.err();
  if (err !== null) throw err;
}
