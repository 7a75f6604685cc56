// Compatibility with Prometheus itself: a WAL of series and samples records written by us
// (plain and snappy-compressed, over several segments, and after a checkpoint and
// truncation) must replay in Debian's promtool 2.42, whose `tsdb dump` opens the data
// directory read-only, replays `wal/` into a head and prints every sample as
// `{labels} value timestamp` with the value in Go's `%g` form.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { WAL, checkpoint, deleteCheckpoints } from '../wal/index.js';
import { formatGoG } from '../tools/index.js';
import {
  MetricType,
  SampleBatch,
  encodeMetadata,
  encodeSamples,
  encodeSeries,
  encodeTombstones,
  type RefSeries,
} from './index.js';

/** Prometheus's stale marker: a NaN with payload 2. */
const STALE_HI = 0x7ff00000;
const STALE_LO = 0x00000002;

interface Sample {
  t: number;
  /** IEEE-754 bits. */
  hi: number;
  lo: number;
}

interface Series extends RefSeries {
  samples: Sample[];
}

const f64 = new Float64Array(1);
const words = new Uint32Array(f64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function bitsOf(v: number): { hi: number; lo: number } {
  f64[0] = v;
  return littleEndian
    ? { hi: words[1] as number, lo: words[0] as number }
    : { hi: words[0] as number, lo: words[1] as number };
}

function valueOf(s: Sample): number {
  words[littleEndian ? 1 : 0] = s.hi;
  words[littleEndian ? 0 : 1] = s.lo;
  return f64[0] as number;
}

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPECIAL_VALUES = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  0,
  5e-324,
  2.2250738585072014e-308,
  1e-300,
  1.7976931348623157e308,
  -1.7976931348623157e308,
  1e21,
  123456,
  1e6,
  1234567,
  0.0001,
  0.00001,
  -2.5e-5,
  0.1,
  1 / 3,
  9007199254740992,
];

/** Many series with irregular timestamps and every kind of awkward value. */
function generate(seriesCount: number, samplesPerSeries: number, seed: number): Series[] {
  const rand = prng(seed);
  const out: Series[] = [];
  for (let i = 0; i < seriesCount; i++) {
    const labels = Labels.fromObject({
      __name__: `strata_wal_test_${i % 7}`,
      instance: `host-${i}:9100`,
      job: i % 3 === 0 ? 'node' : 'app',
      ...(i % 11 === 0 ? { path: '/a "quoted" \\ value' } : {}),
    });
    const samples: Sample[] = [];
    let t = 1_700_000_000_000 + Math.floor(rand() * 60_000);
    for (let k = 0; k < samplesPerSeries; k++) {
      t += 1 + Math.floor(rand() * (rand() < 0.1 ? 600_000 : 30_000));
      const pick = rand();
      let bits: { hi: number; lo: number };
      if (pick < 0.05) bits = { hi: STALE_HI, lo: STALE_LO };
      else if (pick < 0.3)
        bits = bitsOf(SPECIAL_VALUES[Math.floor(rand() * SPECIAL_VALUES.length)] as number);
      else if (pick < 0.6) bits = bitsOf(Math.floor(rand() * 1e6));
      else bits = bitsOf((rand() - 0.5) * 10 ** Math.floor(rand() * 40 - 20));
      samples.push({ t, ...bits });
    }
    out.push({ ref: i + 1, labels, samples });
  }
  return out;
}

/** The lines `promtool tsdb dump` prints for these series (those kept, samples with t >= mint). */
function expectedDump(series: readonly Series[], mint = Number.MIN_SAFE_INTEGER): string[] {
  const sorted = [...series].sort((a, b) => Labels.compare(a.labels, b.labels));
  const lines: string[] = [];
  for (const s of sorted) {
    const name = s.labels.toString();
    for (const sample of s.samples) {
      if (sample.t < mint) continue;
      lines.push(`${name} ${formatGoG(valueOf(sample))} ${sample.t}`);
    }
  }
  return lines;
}

function promtoolDump(dataDir: string): string[] {
  const out = execFileSync('promtool', ['tsdb', 'dump', dataDir], {
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return out.split('\n').filter((line) => line.length > 0);
}

/** Compares line by line with a readable first difference, then as a whole. */
function expectSameDump(actual: string[], expected: string[]): void {
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i])
      expect({ line: i, actual: actual[i] }).toEqual({ line: i, actual: expected[i] });
  }
  expect(actual.length).toBe(expected.length);
}

/**
 * Logs the series in records of `seriesPerRecord`, then one samples record per "scrape
 * round" (sample k of every series), as an ingester would; with `rotateEvery`, moves to a
 * new segment after that many records. Returns the last segment index written.
 */
async function writeWAL(
  wal: WAL,
  series: readonly Series[],
  opts: { seriesPerRecord: number; rotateEvery?: number; rounds?: [number, number] },
): Promise<void> {
  let records = 0;
  const afterRecord = async () => {
    records++;
    if (opts.rotateEvery !== undefined && records % opts.rotateEvery === 0) await wal.nextSegment();
  };
  if (opts.rounds === undefined || opts.rounds[0] === 0) {
    for (let i = 0; i < series.length; i += opts.seriesPerRecord) {
      await wal.log(encodeSeries(series.slice(i, i + opts.seriesPerRecord)));
      await afterRecord();
    }
  }
  const rounds = Math.max(...series.map((s) => s.samples.length));
  const [fromRound, toRound] = opts.rounds ?? [0, rounds];
  const batch = new SampleBatch();
  for (let k = fromRound; k < toRound; k++) {
    batch.clear();
    for (const s of series) {
      const sample = s.samples[k];
      if (sample !== undefined) batch.pushBits(s.ref, sample.t, sample.hi, sample.lo);
    }
    if (batch.length === 0) continue;
    await wal.log(encodeSamples(batch));
    await afterRecord();
  }
  await wal.sync();
}

describe('promtool tsdb dump replays our WAL', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function tempDataDir(): { path: string; fs: NodeFileSystem } {
    const path = mkdtempSync(join(tmpdir(), 'strata-wal-promtool-'));
    dirs.push(path);
    return { path, fs: new NodeFileSystem(path) };
  }

  it('formats values as Go %g does (self-check of the expectation)', () => {
    expect(formatGoG(1e6)).toBe('1e+06');
    expect(formatGoG(123456)).toBe('123456');
    expect(formatGoG(1234567)).toBe('1.234567e+06');
    expect(formatGoG(0.0001)).toBe('0.0001');
    expect(formatGoG(0.00001)).toBe('1e-05');
    expect(formatGoG(5e-324)).toBe('5e-324');
    expect(formatGoG(-1.5)).toBe('-1.5');
    expect(formatGoG(1e21)).toBe('1e+21');
    expect(formatGoG(100)).toBe('100');
  });

  for (const compress of [false, true]) {
    it(`prints exactly the samples we logged (compression ${compress ? 'on' : 'off'})`, async () => {
      const { path, fs } = tempDataDir();
      const series = generate(300, 60, compress ? 2 : 1);
      const logger = new CapturingLogger();
      // Small segments so records spread over several files and pages.
      const wal = await WAL.open('wal', { compress, segmentSize: 2 * 32 * 1024 }, { fs, logger });
      await writeWAL(wal, series, { seriesPerRecord: 40 });
      await wal.close();
      expect(readdirSync(join(path, 'wal')).length).toBeGreaterThan(2);

      const expected = expectedDump(series);
      expect(expected.length).toBe(300 * 60);
      // The awkward values really are in there.
      for (const value of [' NaN ', ' +Inf ', ' -Inf ', ' -0 ', ' 5e-324 ', ' 1e+21 ']) {
        expect(expected.some((line) => line.includes(value))).toBe(true);
      }
      expectSameDump(promtoolDump(path), expected);
    });
  }

  it('replays a checkpoint followed by the segments after it', async () => {
    const { path, fs } = tempDataDir();
    const series = generate(120, 40, 3);
    const logger = new CapturingLogger();
    const wal = await WAL.open('wal', { compress: true }, { fs, logger });
    // Series records and the first 20 rounds spread over segments 0..k, the rest after.
    await writeWAL(wal, series, { seriesPerRecord: 25, rotateEvery: 4, rounds: [0, 20] });
    // A deletion on series 1 reaching past the cut (kept by the checkpoint), one on series 2
    // before it (dropped), and metadata (which promtool must accept, though dump ignores it).
    const s1 = series[0] as Series;
    const s2 = series[1] as Series;
    const deleted = { ref: 1, mint: s1.samples[5]!.t, maxt: s1.samples[25]!.t };
    await wal.log(
      encodeTombstones([deleted, { ref: 2, mint: 0, maxt: s2.samples[0]!.t }]),
      encodeMetadata([{ ref: 1, type: MetricType.Gauge, unit: 'seconds', help: 'a gauge' }]),
    );
    const to = await wal.nextSegment().then((n) => n - 1);
    await writeWAL(wal, series, { seriesPerRecord: 25, rounds: [20, 40] });

    // Drop every third series and everything before a cut inside the first 20 rounds.
    const dropped = (ref: number) => ref % 3 === 0;
    const cut = (series[0] as Series).samples[12]!.t;
    const stats = await checkpoint(
      'wal',
      0,
      to,
      (ref) => !dropped(ref),
      cut,
      { fs, logger },
      {
        compress: true,
      },
    );
    expect(stats.droppedSeries).toBe(40);
    expect(stats.totalTombstones - stats.droppedTombstones).toBe(1);
    // Some samples of the first rounds are dropped by time, some kept in the checkpoint.
    expect(stats.droppedSamples).toBeGreaterThan(40 * 20);
    expect(stats.totalSamples - stats.droppedSamples).toBeGreaterThan(0);
    await wal.truncate(to + 1);
    await deleteCheckpoints('wal', to, { fs });
    await wal.close();
    expect(readdirSync(join(path, 'wal'))).toContain(`checkpoint.${String(to).padStart(8, '0')}`);
    expect(readdirSync(join(path, 'wal')).filter((n) => /^\d+$/.test(n))[0]).toBe(
      String(to + 1).padStart(8, '0'),
    );

    // Kept series keep their later samples from the checkpoint and all samples after it;
    // dropped series lose their series record, so promtool ignores their later samples too.
    const kept = series
      .filter((s) => !dropped(s.ref))
      .map((s) => ({
        ...s,
        samples: s.samples.filter(
          (x, k) =>
            (x.t >= cut || k >= 20) &&
            !(s.ref === deleted.ref && x.t >= deleted.mint && x.t <= deleted.maxt),
        ),
      }));
    expectSameDump(promtoolDump(path), expectedDump(kept));
  });
});
