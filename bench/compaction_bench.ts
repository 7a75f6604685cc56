// The compaction benchmark (issue 11): three replicas of one tenant's 2h block of N series
// (compaction_data.ts) in a filesystem bucket, merged by one run of the compactor's
// CompactionLoop into one de-duplicated block (compaction_run.ts). Generating and shipping the
// replicas is not timed. The run is measured in a child node process when the benchmark is
// built (dist/bench/compaction_child.js), so its peak RSS is the compaction's alone; from
// TypeScript sources (vitest) it runs in-process and only the sampled memory is reported.
// Afterwards the bucket must hold exactly one live block with one replica's samples and
// series, the replicas as its sources, and deletion marks on all three; any deviation is a
// failed check (exit code 1).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { blockMetaPath, deletionMarkPath } from '../src/bucket/index.js';
import {
  NodeFileSystem,
  RealClock,
  createRealRandom,
  FilesystemBucket,
} from '../src/runtime/real/index.js';
import { parseBlockMeta, type BlockMeta } from '../src/tsdb/index.js';
import {
  COMPACTION_REPLICAS,
  COMPACTION_TENANT,
  blockBytes,
  blockLayout,
  diffBlockSamples,
  missedPushes,
  missedSamples,
  shipReplica,
} from './compaction_data.js';
import { measureCompaction, type MeasureInput, type MeasuredRun } from './compaction_run.js';
import { exposedGc } from './memory_bench.js';

export interface CompactionOptions {
  /** Series per block. */
  series: number;
  /** Samples per series (480: 2h at 15s). */
  samples: number;
  /** Also read the output back and compare every sample with the generator's (slow). */
  verifySamples?: boolean;
  /** Measure in this process even when the child entry point is built. */
  inProcess?: boolean;
  progress?: (line: string) => void;
}

export interface BlockSummary {
  ulid: string;
  numSamples: number;
  numSeries: number;
  numChunks: number;
  /** Every object of the block in the bucket. */
  bytes: number;
}

export interface CompactionCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface CompactionBenchResult {
  series: number;
  samplesPerSeries: number;
  /** Cores node may use on this machine. */
  cores: number;
  generateSeconds: number;
  replicas: (BlockSummary & { missedSamples: number })[];
  /** Sum of the replicas' samples: what the compaction reads. */
  inputSamples: number;
  output: (BlockSummary & { level: number }) | undefined;
  measured: MeasuredRun;
  checks: CompactionCheck[];
}

function summary(meta: BlockMeta, bytes: number): BlockSummary {
  const { numSamples, numSeries, numChunks } = meta.stats;
  return { ulid: meta.ulid, numSamples, numSeries, numChunks, bytes };
}

/** The built child entry point next to this module, when this module runs from dist/. */
function childEntry(): string | undefined {
  if (!import.meta.url.endsWith('.js')) return undefined;
  const path = fileURLToPath(new URL('./compaction_child.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

async function measure(input: MeasureInput, inProcess: boolean): Promise<MeasuredRun> {
  const entry = inProcess ? undefined : childEntry();
  if (entry === undefined) {
    // The generator's garbage must not count as the compaction's heap.
    const gc = exposedGc();
    if (gc !== undefined) for (let i = 0; i < 3; i++) gc();
    return measureCompaction(input, 'in-process');
  }
  // Node flags pass on (e.g. --cpu-prof to profile the compaction, --max-old-space-size).
  const r = spawnSync(process.execPath, [...process.execArgv, entry, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  if (r.status !== 0) {
    throw new Error(`compaction child exited with ${r.status ?? r.signal ?? 'nothing'}`);
  }
  const last = r.stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as MeasuredRun;
}

export async function runCompactionBench(opts: CompactionOptions): Promise<CompactionBenchResult> {
  const progress = opts.progress ?? (() => undefined);
  const work = mkdtempSync(join(tmpdir(), 'strata-bench-compaction-'));
  const fs = new NodeFileSystem();
  const clock = new RealClock();
  const bucket = new FilesystemBucket(join(work, 'bucket'), clock);
  try {
    const t0 = performance.now();
    const gaps = missedPushes(opts.series, opts.samples);
    const replicas: CompactionBenchResult['replicas'] = [];
    {
      const layout = blockLayout(opts.series);
      const deps = { fs, clock, random: createRealRandom().stream('bench-compaction') };
      for (let r = 0; r < COMPACTION_REPLICAS; r++) {
        const { meta, bytes } = await shipReplica(
          bucket,
          layout,
          r,
          opts.samples,
          gaps,
          join(work, 'ingesters'),
          deps,
        );
        replicas.push({ ...summary(meta, bytes), missedSamples: missedSamples(gaps, r) });
        progress(
          `compaction: shipped replica ${r + 1}/${COMPACTION_REPLICAS} (${meta.ulid}, ${meta.stats.numSamples} samples, ${bytes} bytes)`,
        );
      }
    }
    const generateSeconds = (performance.now() - t0) / 1000;
    const input: MeasureInput = {
      bucketDir: join(work, 'bucket'),
      dataDir: join(work, 'compactor'),
      sampleEveryMs: 5,
    };
    progress(
      `compaction: compacting (${opts.inProcess === true ? 'in-process' : 'child process when built'})`,
    );
    const measured = await measure(input, opts.inProcess === true);
    const { output, checks } = await inspect(bucket, opts, replicas, measured);
    if (opts.verifySamples === true && output !== undefined) {
      progress('compaction: reading the output back');
      const dir = join(input.bucketDir, COMPACTION_TENANT, output.ulid);
      const diff = await diffBlockSamples(dir, blockLayout(opts.series), opts.samples, fs);
      checks.push({
        name: 'output samples = the generated series',
        ok: diff === undefined,
        detail: diff ?? 'every series, every sample',
      });
    }
    return {
      series: opts.series,
      samplesPerSeries: opts.samples,
      cores: availableParallelism(),
      generateSeconds,
      replicas,
      inputSamples: replicas.reduce((n, r) => n + r.numSamples, 0),
      output,
      measured,
      checks,
    };
  } finally {
    await bucket.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/** What the run left in the bucket, checked against the replicas. */
async function inspect(
  bucket: FilesystemBucket,
  opts: CompactionOptions,
  replicas: readonly BlockSummary[],
  measured: MeasuredRun,
): Promise<{ output: CompactionBenchResult['output']; checks: CompactionCheck[] }> {
  const checks: CompactionCheck[] = [];
  const check = (name: string, ok: boolean, detail: string): void => {
    checks.push({ name, ok, detail });
  };
  check(
    'the run compacted the tenant',
    measured.run.succeeded.includes(COMPACTION_TENANT),
    JSON.stringify(measured.run),
  );
  const inputs = new Set(replicas.map((r) => r.ulid));
  const fresh: BlockMeta[] = [];
  for (const entry of await bucket.list(`${COMPACTION_TENANT}/`)) {
    const id = entry.slice(COMPACTION_TENANT.length + 1).replace(/\/$/, '');
    if (inputs.has(id) || !(await bucket.exists(blockMetaPath(COMPACTION_TENANT, id)))) continue;
    const raw = await bucket.get(blockMetaPath(COMPACTION_TENANT, id));
    fresh.push(parseBlockMeta(new TextDecoder().decode(raw)));
  }
  check('one new block', fresh.length === 1, `${fresh.length} new blocks`);
  let marked = 0;
  for (const id of inputs) {
    if (await bucket.exists(deletionMarkPath(COMPACTION_TENANT, id))) marked++;
  }
  check('replicas marked for deletion', marked === inputs.size, `${marked} of ${inputs.size}`);
  const meta = fresh[0];
  if (meta === undefined) return { output: undefined, checks };
  const output = {
    ...summary(meta, await blockBytes(bucket, meta.ulid)),
    level: meta.compaction.level,
  };
  const full = replicas[0] as BlockSummary;
  const expected = opts.series * opts.samples;
  check(
    'output samples = one replica',
    output.numSamples === full.numSamples && full.numSamples === expected,
    `output ${output.numSamples}, complete replica ${full.numSamples}, series × samples ${expected}`,
  );
  check(
    'output series = one replica',
    output.numSeries === full.numSeries && full.numSeries === opts.series,
    `output ${output.numSeries}, replica ${full.numSeries}`,
  );
  const sources = [...meta.compaction.sources].sort();
  check(
    'sources are the replicas, level 2',
    JSON.stringify(sources) === JSON.stringify([...inputs].sort()) && output.level === 2,
    `level ${output.level}, sources ${sources.join(',')}`,
  );
  return { output, checks };
}
