// The compaction benchmark's input: the three replicas (RF 3) of one tenant's 2h block as
// three ingesters ship them, written series by series with the product's StreamingBlockWriter
// (so a 100k-series block never sits in memory) and uploaded with the shipper's uploadBlock,
// external labels `__org_id__` and `__ingester_id__` included.
//
// Series carry the Kubernetes-fleet label sets of the remote-write benchmark (a metric name and
// nine labels, 200 series per scrape target) with 15s scrapes at a per-target offset and an
// occasional millisecond of jitter: integer counters, float `_sum` counters, small wandering gauges
// and timestamps-as-values. Replicas hold the same samples, except that ingesters 2 and 3
// each missed three pushes (1,000 series × one scrape, as a failed remote-write request to
// one replica loses): the series concerned have a sample less there, so their chunks are cut
// at different points. Replica 1 is complete, so the merge must give back exactly its samples.
import { uploadBlock } from '../src/bucket/index.js';
import { compareGoStrings, Labels, Matcher } from '../src/model/index.js';
import type { Bucket, Clock, FileSystem, RandomStream } from '../src/runtime/index.js';
import {
  BlockReader,
  StreamingBlockWriter,
  TENANT_EXTERNAL_LABEL,
  ValueType,
  type BlockMeta,
  type SeriesSampleIterator,
} from '../src/tsdb/index.js';
import { SERIES_PER_REQUEST, SERIES_PER_TARGET, seriesLabels } from './remote_write_gen.js';
import { BENCH_INTERVAL_MS, BENCH_START_MS } from './series_shapes.js';

export const COMPACTION_TENANT = 'bench-compaction';
export const COMPACTION_REPLICAS = 3;
export const TWO_HOURS_MS = 2 * 60 * 60 * 1000;
export const INGESTER_ID_LABEL = '__ingester_id__';

/** A push (one scrape of `count` consecutive series) that never reached one replica. */
export interface MissedPush {
  /** 0-based replica (ingester) index; never 0. */
  replica: number;
  /** The scrape (sample index) lost. */
  round: number;
  /** First series (generation order) of the push. */
  first: number;
  count: number;
}

/** Series per missed push: a remote-write request's, fewer in tiny blocks. */
function pushSize(numSeries: number): number {
  return Math.min(SERIES_PER_REQUEST, Math.max(1, Math.ceil(numSeries / 20)));
}

/** The pushes replicas 2 and 3 missed (three each, at fixed fractions of the block). */
export function missedPushes(numSeries: number, samplesPerSeries: number): MissedPush[] {
  const size = pushSize(numSeries);
  const pushes = Math.ceil(numSeries / size);
  const at = (frac: number): number =>
    Math.min(samplesPerSeries - 1, Math.floor(frac * samplesPerSeries));
  const push = (replica: number, frac: number, p: number): MissedPush => {
    const first = (p % pushes) * size;
    return { replica, round: at(frac), first, count: Math.min(size, numSeries - first) };
  };
  return [
    push(1, 0.2, 0),
    push(1, 0.21, 0),
    push(1, 0.5, Math.floor(pushes / 2)),
    push(2, 0.08, pushes - 1),
    push(2, 0.83, 1),
    push(2, 0.9, Math.floor(pushes / 3)),
  ];
}

/** Samples a replica misses in total. */
export function missedSamples(gaps: readonly MissedPush[], replica: number): number {
  return gaps.filter((g) => g.replica === replica).reduce((n, g) => n + g.count, 0);
}

function mix32(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
}

type Kind = 'counter' | 'float-counter' | 'gauge' | 'timestamp';

function kindOf(name: string): Kind {
  if (name.endsWith('_sum')) return 'float-counter';
  if (/_(total|count)$/.test(name)) return 'counter';
  if (name.endsWith('_timestamp_seconds')) return 'timestamp';
  return 'gauge';
}

/**
 * Series `s`'s samples, computed as they are read (a series never exists as arrays), without
 * the scrapes in `skip` (sorted). Values depend only on (s, scrape), so every replica agrees.
 */
export class GeneratedSamples implements SeriesSampleIterator {
  private i = -1;
  private t = 0;
  private v = 0;
  private state: number;
  private skipAt = 0;
  private readonly offsetMs: number;
  private readonly step: number;

  constructor(
    private readonly s: number,
    private readonly kind: Kind,
    private readonly samples: number,
    private readonly skip: readonly number[],
  ) {
    const target = Math.floor(s / SERIES_PER_TARGET);
    // Jitter stays below 3 ms, so the offset keeps every sample inside the 2h range.
    this.offsetMs = 3 + (mix32(target, 1) % (BENCH_INTERVAL_MS - 6));
    this.step = 1 + (mix32(s, 2) % 97);
    this.state = mix32(s, 3) % 1000;
  }

  next(): ValueType {
    for (;;) {
      this.i++;
      if (this.i >= this.samples) return ValueType.None;
      this.advance();
      if (this.skip[this.skipAt] === this.i) {
        this.skipAt++;
        continue;
      }
      return ValueType.Float;
    }
  }

  private advance(): void {
    const { i, s } = this;
    const r = mix32(s, i + 16);
    // One scrape in eight a millisecond late, as Prometheus's timestamp alignment leaves it.
    this.t = BENCH_START_MS + this.offsetMs + i * BENCH_INTERVAL_MS + ((r & 7) === 0 ? 1 : 0);
    switch (this.kind) {
      case 'counter':
        // Idle a quarter of the scrapes, otherwise about the series' rate.
        if ((r & 3) !== 0) this.state += this.step + ((r >>> 8) % 3);
        this.v = this.state;
        break;
      case 'float-counter':
        if ((r & 3) !== 0) this.state += (((r >>> 8) % 1000) * this.step) / 1e5;
        this.v = this.state;
        break;
      case 'gauge':
        if (r % 5 === 0) this.state = Math.max(0, this.state + ((r >>> 8) % 11) - 5);
        this.v = this.state;
        break;
      case 'timestamp':
        if (i === 0 || r % 4 === 0) this.v = Math.floor(this.t / 1000);
        break;
    }
  }

  seek(t: number): ValueType {
    if (this.i >= 0 && this.i < this.samples && this.t >= t) return ValueType.Float;
    for (;;) {
      const vt = this.next();
      if (vt === ValueType.None || this.t >= t) return vt;
    }
  }

  atT(): number {
    return this.t;
  }

  atF(): number {
    return this.v;
  }

  err(): Error | null {
    return null;
  }
}

/** The block's series: labels in index order with their generation index. */
export interface BlockLayout {
  labels: Labels[];
  /** Generation index of each series in label order. */
  order: Uint32Array;
  kinds: Kind[];
  /** Every label name and value, sorted, unique. */
  symbols: string[];
}

export function blockLayout(numSeries: number): BlockLayout {
  const labels: Labels[] = [];
  const kinds: Kind[] = [];
  const symbols = new Set<string>();
  for (let s = 0; s < numSeries; s++) {
    const pairs = seriesLabels(s);
    for (const [n, v] of pairs) {
      symbols.add(n);
      symbols.add(v);
    }
    labels.push(Labels.fromStrings(...pairs.flat()));
    kinds.push(kindOf(pairs[0]?.[1] ?? ''));
  }
  const order = Uint32Array.from(labels.keys()).sort((a, b) =>
    Labels.compare(labels[a] as Labels, labels[b] as Labels),
  );
  return { labels, order, kinds, symbols: [...symbols].sort(compareGoStrings) };
}

export interface InputDeps {
  fs: FileSystem;
  clock: Clock;
  random: RandomStream;
}

export interface ReplicaBlock {
  meta: BlockMeta;
  /** Every object of the block in the bucket (chunks, index, meta.json). */
  bytes: number;
}

/**
 * Writes replica `replica` of the block under `localDir`, ships it to `bucket` and removes the
 * local copy.
 */
export async function shipReplica(
  bucket: Bucket,
  layout: BlockLayout,
  replica: number,
  samplesPerSeries: number,
  gaps: readonly MissedPush[],
  localDir: string,
  deps: InputDeps,
): Promise<ReplicaBlock> {
  const skips = new Map<number, number[]>();
  for (const g of gaps) {
    if (g.replica !== replica) continue;
    for (let s = g.first; s < g.first + g.count; s++) {
      const list = skips.get(s) ?? [];
      list.push(g.round);
      skips.set(
        s,
        list.sort((a, b) => a - b),
      );
    }
  }
  const labels = {
    [TENANT_EXTERNAL_LABEL]: COMPACTION_TENANT,
    [INGESTER_ID_LABEL]: `ingester-${replica + 1}`,
  };
  const writer = await StreamingBlockWriter.create(
    localDir,
    {
      meta: { minTime: BENCH_START_MS, maxTime: BENCH_START_MS + TWO_HOURS_MS },
      thanos: { labels, source: 'receive' },
    },
    deps,
  );
  await writer.addSymbols(layout.symbols);
  for (const s of layout.order) {
    const samples = new GeneratedSamples(
      s,
      layout.kinds[s] as Kind,
      samplesPerSeries,
      skips.get(s) ?? [],
    );
    await writer.addSeries(layout.labels[s] as Labels, samples);
  }
  const written = await writer.finish();
  if (written === null) throw new Error(`replica ${replica + 1} got no samples`);
  const dir = `${localDir}/${written.ulid}`;
  const meta = await uploadBlock(
    bucket,
    COMPACTION_TENANT,
    dir,
    { labels, source: 'receive' },
    { fs: deps.fs },
  );
  await deps.fs.remove(dir, { recursive: true });
  return { meta, bytes: await blockBytes(bucket, meta.ulid) };
}

/** Size of every object of a block of the benchmark's tenant. */
export async function blockBytes(bucket: Bucket, ulid: string): Promise<number> {
  let bytes = 0;
  for (const name of await bucket.list(`${COMPACTION_TENANT}/${ulid}/`, { recursive: true })) {
    bytes += (await bucket.attributes(name)).size;
  }
  return bytes;
}

/**
 * Reads the block in `dir` and compares every series with the generator's complete series;
 * returns the first difference, or undefined when the block holds exactly the layout's series
 * with all their samples.
 */
export async function diffBlockSamples(
  dir: string,
  layout: BlockLayout,
  samplesPerSeries: number,
  fs: FileSystem,
): Promise<string | undefined> {
  const index = new Map<string, number>();
  layout.labels.forEach((l, s) => index.set(l.toString(), s));
  const reader = await BlockReader.open(dir, { fs });
  try {
    let seen = 0;
    const all = [Matcher.regex('__name__', '.*')];
    for await (const series of reader.select(
      all,
      Number.MIN_SAFE_INTEGER,
      Number.MAX_SAFE_INTEGER,
    )) {
      const name = series.labels.toString();
      const s = index.get(name);
      if (s === undefined) return `unexpected series ${name}`;
      seen++;
      const want = new GeneratedSamples(s, layout.kinds[s] as Kind, samplesPerSeries, []);
      const got = series.iterator();
      for (let i = 0; ; i++) {
        const a = want.next();
        const b = got.next();
        if (a !== b) return `${name}: sample ${i} ${b === ValueType.None ? 'missing' : 'extra'}`;
        if (a === ValueType.None) break;
        if (want.atT() !== got.atT() || want.atF() !== got.atF()) {
          return `${name}: sample ${i} is (${got.atT()}, ${got.atF()}), want (${want.atT()}, ${want.atF()})`;
        }
      }
      const err = got.err();
      if (err !== null) return `${name}: ${err.message}`;
    }
    return seen === layout.labels.length
      ? undefined
      : `${seen} series, want ${layout.labels.length}`;
  } finally {
    await reader.close();
  }
}
