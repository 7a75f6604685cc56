// Acceptance of whole blocks against Prometheus's own tool (Debian's promtool 2.42):
// (a) blocks we write pass `promtool tsdb analyze` and `promtool tsdb dump` prints exactly our
//     samples; (b) we read exactly the samples of a block promtool builds from OpenMetrics;
// (c) with promtool's rules (2.42 cutting, 4h chunk range) our chunk segment and index are
//     byte-identical to promtool's for the same samples.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import { formatGoG, formatLabelsPromtool } from '../tools/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { ValueType } from '../chunkenc/index.js';
import {
  BlockReader,
  PROMTOOL_CHUNK_RANGE,
  TMP_FOR_CREATION_SUFFIX,
  writeBlock,
  type BlockSeriesInput,
} from './index.js';

const PROMTOOL = '/usr/bin/promtool';
const START_MS = 1_700_000_000_000; // inside the 2h block [1699999200000, 1700006400000)
const SPAN_MS = 5_400_000;
/** Go's math.NaN() bits: what promtool's parser produces for "NaN". */
const GO_NAN_BITS = 0x7ff8000000000001n;
/** Prometheus's staleness marker bits. */
const STALE_NAN_BITS = 0x7ff0000000000002n;

const bitsView = new DataView(new ArrayBuffer(8));
const floatFromBits = (bits: bigint): number => {
  bitsView.setBigUint64(0, bits);
  return bitsView.getFloat64(0);
};
const bitsOf = (v: number): bigint => {
  bitsView.setFloat64(0, v);
  return bitsView.getBigUint64(0);
};

/** Deterministic generator (failures must replay). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Generated {
  series: BlockSeriesInput[];
}

/**
 * Many series: counters, gauges with special and extreme values, irregular intervals (in
 * multiples of 125 ms so OpenMetrics seconds are exact), a fast 1s series that forces the
 * 2x-samples and predicted-end cuts. `withStale` adds staleness markers, which OpenMetrics
 * text cannot carry.
 */
function generate(seed: number, withStale: boolean): Generated {
  const rand = lcg(seed);
  const series: BlockSeriesInput[] = [];
  const metrics = ['requests_total', 'temperature', 'queue_depth'];
  for (const [m, metric] of metrics.entries()) {
    for (let s = 0; s < 15; s++) {
      const interval = [1000, 15000, 30000, 60000, 7000][s % 5] as number;
      const ts: number[] = [];
      const vs: number[] = [];
      let t = START_MS + Math.floor(rand() * 8) * 125;
      let counter = 0;
      while (t < START_MS + SPAN_MS) {
        let v: number;
        if (m === 0) {
          counter += Math.floor(rand() * 100);
          v = counter;
        } else {
          const r = rand();
          v =
            r < 0.02
              ? floatFromBits(GO_NAN_BITS)
              : r < 0.03
                ? Infinity
                : r < 0.04
                  ? -Infinity
                  : r < 0.05 && withStale
                    ? floatFromBits(STALE_NAN_BITS)
                    : r < 0.1
                      ? 1e-300 * rand()
                      : r < 0.15
                        ? 1e300 * rand()
                        : r < 0.16
                          ? 5e-324
                          : r < 0.17
                            ? -0
                            : r < 0.2
                              ? Math.round(rand() * 1e7)
                              : (rand() - 0.5) * 100;
        }
        ts.push(t);
        vs.push(v);
        t += interval + (Math.floor(rand() * 9) - 4) * 125 + (rand() < 0.05 ? interval * 3 : 0);
      }
      const values = new Float64Array(vs.length);
      const view = new DataView(values.buffer);
      // Write through bits so NaN payloads cannot be canonicalised on the way.
      vs.forEach((v, i) => view.setBigUint64(i * 8, bitsOf(v), true));
      series.push({
        labels: Labels.fromObject({
          __name__: metric,
          instance: `host-${s}:9100`,
          job: s % 2 === 0 ? 'node' : 'api',
          ...(s % 3 === 0 ? { path: `/v1/é/${s}` } : {}),
        }),
        timestamps: Float64Array.from(ts),
        values,
      });
    }
  }
  return { series };
}

/** promtool tsdb dump's lines for the series, in its order (series by labels, then time). */
function expectedDump(series: readonly BlockSeriesInput[]): string[] {
  const sorted = [...series].sort((a, b) => Labels.compare(a.labels, b.labels));
  const lines: string[] = [];
  for (const s of sorted) {
    const l = formatLabelsPromtool(s.labels);
    for (let i = 0; i < s.timestamps.length; i++) {
      lines.push(`${l} ${formatGoG(s.values[i] as number)} ${s.timestamps[i]}`);
    }
  }
  return lines;
}

function omValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Object.is(v, -0) ? '-0' : String(v);
}

function toOpenMetrics(series: readonly BlockSeriesInput[]): string {
  const lines: string[] = [];
  const byMetric = new Map<string, BlockSeriesInput[]>();
  for (const s of series) {
    const name = s.labels.get('__name__');
    byMetric.set(name, [...(byMetric.get(name) ?? []), s]);
  }
  for (const [name, list] of byMetric) {
    lines.push(`# TYPE ${name} gauge`);
    for (const s of list) {
      const pairs: string[] = [];
      s.labels.forEach((k, v) => {
        if (k !== '__name__') pairs.push(`${k}=${JSON.stringify(v)}`);
      });
      for (let i = 0; i < s.timestamps.length; i++) {
        const t = s.timestamps[i] as number;
        const sec = `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}`;
        lines.push(`${name}{${pairs.join(',')}} ${omValue(s.values[i] as number)} ${sec}`);
      }
    }
  }
  lines.push('# EOF', '');
  return lines.join('\n');
}

/** Every sample of every series as `labels t bits`, bit-exact. */
function sampleKeys(series: readonly BlockSeriesInput[]): string[] {
  const out: string[] = [];
  for (const s of [...series].sort((a, b) => Labels.compare(a.labels, b.labels))) {
    for (let i = 0; i < s.timestamps.length; i++) {
      out.push(`${s.labels.toString()} ${s.timestamps[i]} ${bitsOf(s.values[i] as number)}`);
    }
  }
  return out;
}

async function readAll(reader: BlockReader): Promise<string[]> {
  const out: string[] = [];
  const all = [Matcher.regex('__name__', '.+')];
  for await (const s of reader.select(all, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)) {
    const it = s.iterator();
    while (it.next() === ValueType.Float) {
      out.push(`${s.labels.toString()} ${it.atT()} ${bitsOf(it.atF())}`);
    }
    expect(it.err()).toBeNull();
  }
  return out;
}

function deps(fs: NodeFileSystem) {
  return {
    fs,
    clock: new ManualClock(START_MS + 3 * 3_600_000),
    random: createSeededRandom('block-promtool').stream('ulid'),
  };
}

describe('blocks we write, read by promtool 2.42', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-block-ours-'));
  const fs = new NodeFileSystem();
  const { series } = generate(7, true);
  let ulid = '';

  beforeAll(async () => {
    const meta = await writeBlock(work, series, {}, deps(fs));
    ulid = meta.ulid;
  });
  // promtool opens the directory as a database, which needs a (possibly empty) WAL.
  const withWal = (): void => {
    mkdirSync(join(work, 'wal'), { recursive: true });
  };
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('leaves only the renamed block directory behind', () => {
    expect(readdirSync(work)).toEqual([ulid]);
    expect(readdirSync(join(work, ulid))).toEqual(['chunks', 'index', 'meta.json', 'tombstones']);
    expect(readdirSync(work).some((n) => n.endsWith(TMP_FOR_CREATION_SUFFIX))).toBe(false);
  });

  it('passes promtool tsdb analyze', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'analyze', work, ulid], { encoding: 'utf8' });
    expect(out).toContain(`Block ID: ${ulid}`);
    expect(out).toContain(`Series: ${series.length}`);
  });

  it('promtool tsdb dump prints exactly our samples', () => {
    withWal();
    const out = execFileSync(PROMTOOL, ['tsdb', 'dump', work], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    const lines = out.split('\n').filter((l) => l !== '');
    expect(lines).toEqual(expectedDump(series));
  });
});

describe('blocks promtool writes from OpenMetrics', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-block-theirs-'));
  const fs = new NodeFileSystem();
  const { series } = generate(11, false);
  let theirs = '';
  let oursDir = '';

  beforeAll(async () => {
    writeFileSync(join(work, 'input.om'), toOpenMetrics(series));
    const out = join(work, 'promtool');
    execFileSync(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', 'input.om', out], {
      cwd: work,
      stdio: 'pipe',
    });
    const blocks = readdirSync(out);
    expect(blocks).toHaveLength(1);
    theirs = join(out, blocks[0] as string);
    const meta = await writeBlock(
      join(work, 'ours'),
      series,
      { rules: 'v2.42', chunkRange: PROMTOOL_CHUNK_RANGE },
      deps(fs),
    );
    oursDir = join(work, 'ours', meta.ulid);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('our reader returns exactly the samples, bit for bit', async () => {
    const reader = await BlockReader.open(theirs, { fs });
    try {
      expect(await readAll(reader)).toEqual(sampleKeys(series));
      expect(reader.meta.stats.numSeries).toBe(series.length);
    } finally {
      await reader.close();
    }
  });

  it('our chunks/000001 is byte-identical to promtool’s with the 2.42 rules', () => {
    const ours = readFileSync(join(oursDir, 'chunks', '000001'));
    const promtool = readFileSync(join(theirs, 'chunks', '000001'));
    expect(Buffer.compare(ours, promtool)).toBe(0);
    expect(readdirSync(join(theirs, 'chunks'))).toEqual(['000001']);
  });

  it('our index is byte-identical to promtool’s', () => {
    const ours = readFileSync(join(oursDir, 'index'));
    const promtool = readFileSync(join(theirs, 'index'));
    expect(Buffer.compare(ours, promtool)).toBe(0);
  });

  it('meta.json differs only in the ULID', () => {
    const ulidOf = (dir: string): string => dir.split('/').at(-1) as string;
    const ours = readFileSync(join(oursDir, 'meta.json'), 'utf8');
    const promtool = readFileSync(join(theirs, 'meta.json'), 'utf8');
    expect(ours.replaceAll(ulidOf(oursDir), 'ULID')).toBe(
      promtool.replaceAll(ulidOf(theirs), 'ULID'),
    );
    expect(readFileSync(join(oursDir, 'tombstones'))).toEqual(
      readFileSync(join(theirs, 'tombstones')),
    );
  });
});
