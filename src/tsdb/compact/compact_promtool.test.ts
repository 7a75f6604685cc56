// Acceptance against Prometheus's own tool (Debian's promtool 2.42): a block compacted from
// overlapping blocks passes `promtool tsdb analyze`, and `promtool tsdb dump` prints exactly
// the de-duplicated union of the sources' samples.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { writeBlock, type BlockMeta, type BlockSeriesInput } from '../block/index.js';
import { formatGoG, formatLabelsPromtool } from '../tools/index.js';
import { compactBlocks } from './index.js';

const PROMTOOL = '/usr/bin/promtool';
const START_MS = 1_700_000_000_000;
const STALE_NAN_BITS = 0x7ff0000000000002n;

const bitsView = new DataView(new ArrayBuffer(8));
const floatFromBits = (bits: bigint): number => {
  bitsView.setBigUint64(0, bits);
  return bitsView.getFloat64(0);
};

/** Deterministic generator (failures must replay). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** series label string → timestamp → value: the union every block draws from. */
type Truth = Map<string, { labels: Labels; samples: Map<number, number> }>;

function generateTruth(): Truth {
  const rand = lcg(42);
  const truth: Truth = new Map();
  for (let s = 0; s < 30; s++) {
    const labels = Labels.fromObject({
      __name__: s % 3 === 0 ? 'requests_total' : 'temperature',
      instance: `host-${s}:9100`,
      job: s % 2 === 0 ? 'node' : 'api',
    });
    const samples = new Map<number, number>();
    let t = START_MS + Math.floor(rand() * 1000);
    let counter = 0;
    while (t < START_MS + 3 * 3_600_000) {
      const r = rand();
      counter += Math.floor(rand() * 50);
      const v =
        r < 0.03
          ? floatFromBits(STALE_NAN_BITS)
          : r < 0.05
            ? Infinity
            : r < 0.07
              ? 1e-300 * rand()
              : r < 0.1
                ? 1e300 * rand()
                : s % 3 === 0
                  ? counter
                  : (rand() - 0.5) * 100;
      samples.set(t, v);
      t += 15_000 + Math.floor(rand() * 2000) - 1000;
    }
    truth.set(labels.toString(), { labels, samples });
  }
  return truth;
}

/** The samples of `truth` within [from, to) kept by `keep`, as block input. */
function slice(truth: Truth, from: number, to: number, keep: () => boolean): BlockSeriesInput[] {
  const out: BlockSeriesInput[] = [];
  for (const { labels, samples } of truth.values()) {
    const ts: number[] = [];
    const vs: number[] = [];
    for (const [t, v] of samples) {
      if (t >= from && t < to && keep()) {
        ts.push(t);
        vs.push(v);
      }
    }
    if (ts.length > 0) {
      out.push({ labels, timestamps: Float64Array.from(ts), values: Float64Array.from(vs) });
    }
  }
  return out;
}

describe('a compacted block, read by promtool 2.42', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-compact-'));
  const fs = new NodeFileSystem();
  const truth = generateTruth();
  const expected = new Map<string, Map<number, number>>();
  let meta: BlockMeta;

  beforeAll(async () => {
    const rand = lcg(7);
    const env = (stream: string) => ({
      fs,
      clock: new ManualClock(START_MS + 4 * 3_600_000),
      random: createSeededRandom('compact-promtool').stream(stream),
    });
    // Two "ingesters" replicate overlapping ranges, each missing some samples; a third block
    // covers a later, adjacent range.
    const inputs = [
      slice(truth, START_MS, START_MS + 2 * 3_600_000, () => rand() < 0.9),
      slice(truth, START_MS + 3_600_000, START_MS + 2 * 3_600_000, () => rand() < 0.9),
      slice(truth, START_MS + 2 * 3_600_000, START_MS + 3 * 3_600_000, () => true),
    ];
    const dirs: string[] = [];
    for (const [i, input] of inputs.entries()) {
      for (const s of input) {
        const key = s.labels.toString();
        const m = expected.get(key) ?? new Map<number, number>();
        s.timestamps.forEach((t, j) => m.set(t, s.values[j] as number));
        expected.set(key, m);
      }
      const m = await writeBlock(join(work, 'sources'), input, {}, env(`src${i}`));
      dirs.push(join(work, 'sources', m.ulid));
    }
    const result = await compactBlocks(dirs, join(work, 'db'), {}, env('out'));
    meta = result.meta as BlockMeta;
    mkdirSync(join(work, 'db', 'wal'), { recursive: true });
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('leaves only the new block (and the wal dir we made) in the output directory', () => {
    expect(readdirSync(join(work, 'db')).sort()).toEqual([meta.ulid, 'wal'].sort());
    expect(meta.compaction.level).toBe(2);
    expect(meta.compaction.parents).toHaveLength(3);
  });

  it('passes promtool tsdb analyze', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'analyze', join(work, 'db'), meta.ulid], {
      encoding: 'utf8',
    });
    expect(out).toContain(`Block ID: ${meta.ulid}`);
    expect(out).toContain(`Series: ${expected.size}`);
  });

  it('promtool tsdb dump prints exactly the de-duplicated union', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'dump', join(work, 'db')], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines: string[] = [];
    const keys = [...expected.keys()];
    const byLabels = new Map(keys.map((k) => [k, (truth.get(k) as { labels: Labels }).labels]));
    keys.sort((a, b) => Labels.compare(byLabels.get(a) as Labels, byLabels.get(b) as Labels));
    for (const k of keys) {
      const l = formatLabelsPromtool(byLabels.get(k) as Labels);
      const samples = [...(expected.get(k) as Map<number, number>)].sort(([a], [b]) => a - b);
      for (const [t, v] of samples) lines.push(`${l} ${formatGoG(v)} ${t}`);
    }
    expect(out.trimEnd().split('\n')).toEqual(lines);
    expect(meta.stats.numSamples).toBe(lines.length);
  });
});
