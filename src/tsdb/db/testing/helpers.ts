/**
 * Test support only (imported by `*.test.ts`, never by production code): opening a TSDB on
 * a test disk, appending sample sets in time order, and reading a whole database back.
 */
import { Labels, Matcher } from '../../../model/index.js';
import { createSeededRandom, newMetricsRegistry, type FileSystem } from '../../../runtime/index.js';
import { CapturingLogger, ManualClock } from '../../../runtime/testing/index.js';
import { ValueType, XorIterator } from '../../chunkenc/index.js';
import { TSDB, type TSDBConfig } from '../index.js';
import { fromBits, toBits } from '../../chunkenc/testing/index.js';

export { fromBits, toBits };

export const HOUR = 3_600_000;
export const RANGE = 2 * HOUR;

export interface Sample {
  readonly series: number;
  readonly t: number;
  readonly v: number;
}

export function labelsOf(series: number): Labels {
  return Labels.fromStrings('__name__', `m${series % 3}`, 'i', String(series));
}

export async function openDB(
  fs: FileSystem,
  config: TSDBConfig = {},
  clock = new ManualClock(1_700_000_000_000),
): Promise<TSDB> {
  return TSDB.open('/data/tenant', config, {
    fs,
    clock,
    random: createSeededRandom('tsdb-db-test').stream('ulid'),
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  });
}

/** Appends samples (sorted by time by the caller) in commits of `batch`. */
export async function appendAll(db: TSDB, samples: readonly Sample[], batch = 64): Promise<void> {
  for (let i = 0; i < samples.length; i += batch) {
    const app = db.appender();
    for (const s of samples.slice(i, i + batch)) app.append(labelsOf(s.series), s.t, s.v);
    await app.commit();
  }
}

/** Every sample of the database as `labels t bits`, in query order. */
export async function dump(
  db: TSDB,
  mint = Number.MIN_SAFE_INTEGER,
  maxt = Number.MAX_SAFE_INTEGER,
): Promise<string[]> {
  const out: string[] = [];
  for (const s of await db.select([Matcher.regex('__name__', '.+')], mint, maxt)) {
    const it = s.iterator();
    while (it.next() !== ValueType.None)
      out.push(`${s.labels.toString()} ${it.atT()} ${toBits(it.atF())}`);
    const err = it.err();
    if (err !== null) throw err;
  }
  return out;
}

/**
 * `dump` read through the chunk-streaming path (`selectChunks`): each series' chunks decoded
 * within [mint, maxt], every timestamp once (the first chunk's sample, by min time, wins).
 */
export async function chunkDump(
  db: TSDB,
  mint = Number.MIN_SAFE_INTEGER,
  maxt = Number.MAX_SAFE_INTEGER,
): Promise<string[]> {
  const out: string[] = [];
  for (const s of await db.selectChunks([Matcher.regex('__name__', '.+')], mint, maxt)) {
    const byTime = new Map<number, number>();
    for (const c of [...s.chunks].sort((a, b) => a.minTime - b.minTime)) {
      const it = new XorIterator(c.data);
      while (it.next() !== ValueType.None) {
        const t = it.atT();
        if (t >= mint && t <= maxt && !byTime.has(t)) byTime.set(t, it.atF());
      }
      const err = it.err();
      if (err !== null) throw err;
    }
    for (const [t, v] of [...byTime].sort((a, b) => a[0] - b[0]))
      out.push(`${s.labels.toString()} ${t} ${toBits(v)}`);
  }
  return out;
}

/** What `dump` must print for these samples (all of them, no range limit). */
export function expectedDump(samples: readonly Sample[]): string[] {
  const sorted = [...samples].sort(
    (a, b) => Labels.compare(labelsOf(a.series), labelsOf(b.series)) || a.t - b.t,
  );
  return sorted.map((s) => `${labelsOf(s.series).toString()} ${s.t} ${toBits(s.v)}`);
}

/** `count` series each with a sample every `step` ms over [start, end]. */
export function regularSamples(count: number, start: number, end: number, step: number): Sample[] {
  const out: Sample[] = [];
  for (let t = start; t <= end; t += step)
    for (let s = 0; s < count; s++) out.push({ series: s, t, v: (t - start) / step + s * 0.5 });
  return out;
}
