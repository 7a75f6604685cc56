/**
 * What a query at the `max_samples` limit costs in memory, per engine (issue 14, "memory
 * bounds"). Not a timing benchmark and not part of `strata bench`: run after building,
 *
 *   npx tsc -p tsconfig.build.json --outDir /tmp/build-limits
 *   node --expose-gc --max-semi-space-size=64 /tmp/build-limits/bench/query_memory.js [--samples=4000000]
 *
 * Each scenario runs in a fresh child node (same flags) so one scenario's garbage and peak
 * do not blur the next. The storage is what the querier hands the engines on the ingester
 * path: one Float64Array pair per series (the decoded wire answer, `toStorageSeries`). Per
 * scenario it reports, per sample the engine counts against max_samples (`peakSamples`):
 * - storage: heap + array buffers the series occupy before the query;
 * - retained: what the query leaves alive with its result (after a full GC);
 * - json: the encoded response body (`encodeQueryData`), held as one string;
 * - peak RSS: the child's peak RSS growth over the storage, a real high-water mark
 *   including garbage not collected yet (an upper bound of what the query needs).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeQueryData } from '../src/api/index.js';
import { Labels, type Matcher } from '../src/model/index.js';
import { Engine } from '../src/promql/engine/index.js';
import type { PromQLEngine, Querier, Queryable, StorageSeries } from '../src/promql/index.js';
import { VectorEngine } from '../src/promql/vector/index.js';
import { toStorageSeries } from '../src/querier/index.js';

const STEP = 15_000;
const T0 = 1_700_000_000_000;
const SERIES = 1000;

interface Scenario {
  readonly name: string;
  readonly engine: 'prometheus' | 'thanos';
  /** Range query over the whole data at the scrape step, or an instant query at its end. */
  readonly kind: 'range' | 'instant';
  readonly query: (rangeMs: number) => string;
}

const SCENARIOS: readonly Scenario[] = [
  // K output points: the result is the data again, counted point by point.
  { name: 'range m', engine: 'prometheus', kind: 'range', query: () => 'm' },
  { name: 'range m', engine: 'thanos', kind: 'range', query: () => 'm' },
  // K samples in range-vector windows, the result is the data again.
  { name: 'instant m[R]', engine: 'prometheus', kind: 'instant', query: (r) => `m[${r}ms]` },
  { name: 'instant m[R]', engine: 'thanos', kind: 'instant', query: (r) => `m[${r}ms]` },
  // K samples in windows, one point per series out.
  {
    name: 'instant sum_over_time(m[R])',
    engine: 'prometheus',
    kind: 'instant',
    query: (r) => `sum_over_time(m[${r}ms])`,
  },
  {
    name: 'instant sum_over_time(m[R])',
    engine: 'thanos',
    kind: 'instant',
    query: (r) => `sum_over_time(m[${r}ms])`,
  },
  // Loads all K samples but counts only a few per step (uncounted memory).
  {
    name: 'range sum(rate(m[5m]))',
    engine: 'prometheus',
    kind: 'range',
    query: () => 'sum(rate(m[5m]))',
  },
  {
    name: 'range sum(rate(m[5m]))',
    engine: 'thanos',
    kind: 'range',
    query: () => 'sum(rate(m[5m]))',
  },
];

/** The querier's storage shape: per series, samples as two Float64Arrays. */
function buildStorage(perSeries: number): StorageSeries[] {
  const out: StorageSeries[] = [];
  for (let s = 0; s < SERIES; s++) {
    const ts = new Float64Array(perSeries);
    const vs = new Float64Array(perSeries);
    for (let i = 0; i < perSeries; i++) {
      ts[i] = T0 + i * STEP;
      vs[i] = s * 1000 + i;
    }
    const labels = Labels.fromStrings('__name__', 'm', 'instance', `host-${s}`, 'job', 'node');
    out.push(toStorageSeries({ labels, timestamps: ts, values: vs }));
  }
  return out;
}

function queryable(series: readonly StorageSeries[]): Queryable {
  const querier: Querier = {
    select: (matchers: readonly Matcher[]) =>
      Promise.resolve(series.filter((s) => matchers.every((m) => m.matches(s.labels.get(m.name))))),
    labelNames: () => Promise.resolve([]),
    labelValues: () => Promise.resolve([]),
    close: () => Promise.resolve(),
  };
  return { querier: () => Promise.resolve(querier) };
}

function heap(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

interface Measured {
  scenario: string;
  engine: string;
  samples: number;
  peakSamples: number;
  storageBytes: number;
  retainedBytes: number;
  jsonBytes: number;
  peakRssBytes: number;
  error?: string;
}

async function child(index: number, samples: number): Promise<Measured> {
  const sc = SCENARIOS[index] as Scenario;
  const perSeries = Math.ceil(samples / SERIES);
  const before = heap();
  const storage = buildStorage(perSeries);
  const withStorage = heap();
  const rssBase = process.memoryUsage().rss;
  process.resourceUsage(); // maxRSS so far is the storage build's; we report growth over rss now
  const engine: PromQLEngine =
    sc.engine === 'prometheus'
      ? new Engine({ maxSamples: 1e12, timeout: 0 }, {})
      : new VectorEngine({ maxSamples: 1e12, timeout: 0 }, {});
  const end = T0 + (perSeries - 1) * STEP;
  const rangeMs = (perSeries + 1) * STEP;
  const measured: Measured = {
    scenario: sc.name,
    engine: sc.engine,
    samples: perSeries * SERIES,
    peakSamples: 0,
    storageBytes: withStorage - before,
    retainedBytes: 0,
    jsonBytes: 0,
    peakRssBytes: 0,
  };
  try {
    const q = queryable(storage);
    const result =
      sc.kind === 'range'
        ? await engine.rangeQuery(q, sc.query(rangeMs), T0, end, STEP)
        : await engine.instantQuery(q, sc.query(rangeMs), end);
    measured.peakSamples = result.stats.peakSamples;
    measured.retainedBytes = heap() - withStorage;
    const body = encodeQueryData(result.value, undefined);
    measured.jsonBytes = body.length;
  } catch (err) {
    measured.error = err instanceof Error ? err.message : String(err);
  }
  measured.peakRssBytes = process.resourceUsage().maxRSS * 1024 - rssBase;
  return measured;
}

function perSample(bytes: number, n: number): string {
  return n > 0 ? (bytes / n).toFixed(1) : '-';
}

function main(): void {
  const arg = (name: string): string | undefined =>
    process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
  const samples = Number(arg('samples') ?? 4_000_000);
  const only = arg('child');
  if (only !== undefined) {
    void child(Number(only), samples).then((m) => process.stdout.write(JSON.stringify(m)));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const rows: Measured[] = [];
  for (let i = 0; i < SCENARIOS.length; i++) {
    const r = spawnSync(
      process.execPath,
      [...process.execArgv, self, `--child=${i}`, `--samples=${samples}`],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (r.status !== 0) {
      process.stderr.write(r.stderr);
      throw new Error(`scenario ${i} failed with status ${r.status}`);
    }
    rows.push(JSON.parse(r.stdout) as Measured);
  }
  process.stdout.write(
    `node ${process.version} ${process.execArgv.join(' ')}; ${samples} samples in ${SERIES} series, bytes per sample the engine counted (peakSamples)\n\n`,
  );
  process.stdout.write(
    '| query | engine | loaded samples | peakSamples | storage B/loaded sample | retained B/counted | JSON B/counted | peak RSS growth B/counted | peak RSS growth B/loaded |\n|---|---|---|---|---|---|---|---|---|\n',
  );
  for (const m of rows) {
    process.stdout.write(
      `| ${m.scenario} | ${m.engine} | ${m.samples} | ${m.peakSamples} | ${perSample(m.storageBytes, m.samples)} | ${perSample(m.retainedBytes, m.peakSamples)} | ${perSample(m.jsonBytes, m.peakSamples)} | ${perSample(m.peakRssBytes, m.peakSamples)} | ${perSample(m.peakRssBytes, m.samples)} |${m.error !== undefined ? ` error: ${m.error}` : ''}\n`,
    );
  }
}

main();
