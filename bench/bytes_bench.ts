// Bytes per sample: the same samples written by our writeBlock (promtool's rules: 2.42 chunk
// cutting, 4h chunk range) and by Debian's `promtool tsdb create-blocks-from openmetrics`,
// compared chunk file by chunk file and as whole blocks.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderOpenMetrics, type OpenMetricsRenderable } from '../src/model/index.js';
import { NodeFileSystem, RealClock, createRealRandom } from '../src/runtime/real/index.js';
import { PROMTOOL_CHUNK_RANGE, writeBlock, type BlockSeriesInput } from '../src/tsdb/index.js';
import { generateShape, SERIES_SHAPES, type SeriesShape } from './series_shapes.js';

export const PROMTOOL_PATH = '/usr/bin/promtool';

export interface BytesResult {
  shape: SeriesShape;
  series: number;
  samples: number;
  oursChunkBytes: number;
  promtoolChunkBytes: number;
  /** chunks/000001 of both blocks are the same bytes. */
  chunksIdentical: boolean;
  oursBlockBytes: number;
  promtoolBlockBytes: number;
}

export interface BytesBenchConfig {
  numSeries: number;
  samplesPerSeries: number;
  promtool?: string;
}

/** Runs the comparison for every shape; needs promtool installed. */
export async function runBytesBench(cfg: BytesBenchConfig): Promise<BytesResult[]> {
  const results: BytesResult[] = [];
  for (const shape of SERIES_SHAPES) results.push(await compareShape(shape, cfg));
  return results;
}

async function compareShape(shape: SeriesShape, cfg: BytesBenchConfig): Promise<BytesResult> {
  const series = generateShape(shape, cfg.numSeries, cfg.samplesPerSeries);
  const work = mkdtempSync(join(tmpdir(), `strata-bench-${shape}-`));
  try {
    const oursDir = join(work, 'ours');
    const theirsDir = join(work, 'promtool');
    const meta = await writeBlock(
      oursDir,
      series,
      { rules: 'v2.42', chunkRange: PROMTOOL_CHUNK_RANGE },
      {
        fs: new NodeFileSystem(),
        clock: new RealClock({ unrefTimers: true }),
        random: createRealRandom().stream('bench-block'),
      },
    );
    const ours = join(oursDir, meta.ulid);

    const omFile = join(work, 'input.om');
    writeFileSync(omFile, [...renderOpenMetrics(openMetricsEntries(series))].join(''));
    execFileSync(
      cfg.promtool ?? PROMTOOL_PATH,
      ['tsdb', 'create-blocks-from', 'openmetrics', omFile, theirsDir],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const blocks = readdirSync(theirsDir);
    if (blocks.length !== 1 || blocks[0] === undefined) {
      throw new Error(
        `promtool wrote ${blocks.length} blocks for shape ${shape} (expected 1): ${blocks.join(', ')}`,
      );
    }
    const theirs = join(theirsDir, blocks[0]);

    const oursChunk = readFileSync(join(ours, 'chunks', '000001'));
    const theirsChunk = readFileSync(join(theirs, 'chunks', '000001'));
    let samples = 0;
    for (const s of series) samples += s.timestamps.length;
    return {
      shape,
      series: series.length,
      samples,
      oursChunkBytes: dirBytes(join(ours, 'chunks')),
      promtoolChunkBytes: dirBytes(join(theirs, 'chunks')),
      chunksIdentical:
        readdirSync(join(ours, 'chunks')).length === 1 &&
        readdirSync(join(theirs, 'chunks')).length === 1 &&
        oursChunk.equals(theirsChunk),
      oursBlockBytes: dirBytes(ours),
      promtoolBlockBytes: dirBytes(theirs),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function* openMetricsEntries(
  series: readonly BlockSeriesInput[],
): Generator<OpenMetricsRenderable> {
  for (const s of series) {
    for (let i = 0; i < s.timestamps.length; i++) {
      yield {
        kind: 'series',
        labels: s.labels,
        value: s.values[i] as number,
        timestamp: s.timestamps[i] as number,
      };
    }
  }
}

/** Total size of the regular files under `path`. */
function dirBytes(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of readdirSync(path)) total += dirBytes(join(path, name));
  return total;
}
