// Realistic remote-write 1.0 load, built before any timing: 1,000 series per request, each a
// metric name plus nine labels with the cardinalities of a Kubernetes fleet (a few clusters,
// tens of namespaces and jobs, one pod and instance per target, ~10 pods per node), one
// sample per series per request, timestamps advancing by a 15s scrape interval with a fixed
// per-target scrape offset. Request bodies are encoded with the distributor's own encoder and
// snappy-compressed (snappyjs, as Prometheus's sender and our tests do), so the systems under
// test only ever see finished bytes.
import { compress } from 'snappyjs';
import {
  buildWriteRequest,
  encodeWriteRequest,
  type PlainSeries,
  type WriteRequestData,
} from '../src/distributor/index.js';

export const SERIES_PER_REQUEST = 1_000;
export const LABELS_PER_SERIES = 10;
export const SCRAPE_INTERVAL_MS = 15_000;
/** Series one scrape target exposes (100 metric names × 2 `code` values). */
export const SERIES_PER_TARGET = 200;

const SUBSYSTEMS = [
  'http_server',
  'grpc_server',
  'process',
  'go_memstats',
  'node_network',
  'node_disk',
  'container_fs',
  'kube_pod',
  'db_client',
  'cache',
];
const MEASURES = [
  'requests_total',
  'errors_total',
  'request_duration_seconds_sum',
  'request_duration_seconds_count',
  'bytes_total',
  'open_connections',
  'queue_length',
  'last_success_timestamp_seconds',
  'operations_total',
  'inflight',
];
const METRIC_NAMES = SUBSYSTEMS.flatMap((s) => MEASURES.map((m) => `${s}_${m}`));
const IS_COUNTER = METRIC_NAMES.map((n) => /_(total|sum|count)$/.test(n));
const CLUSTERS = ['prod-eu-west-1', 'prod-us-east-1', 'prod-ap-south-1', 'staging-eu-west-1'];
const CONTAINERS = ['app', 'sidecar', 'proxy', 'worker', 'init-config', 'exporter', 'agent'];
const JOBS = [
  'api-gateway',
  'checkout',
  'payments',
  'search',
  'catalog',
  'auth',
  'notifications',
  'inventory',
  'recommendations',
  'shipping',
  'billing',
  'frontend',
];
const CODES = ['200', '500'];

/** The label set of one scrape target; all its series share these strings. */
interface TargetLabels {
  cluster: string;
  container: string;
  env: string;
  instance: string;
  job: string;
  namespace: string;
  node: string;
  pod: string;
  /** Where in the scrape interval this target is scraped (ms). */
  offsetMs: number;
}

function hash32(n: number): number {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function targetLabels(t: number): TargetLabels {
  const h = hash32(t);
  const cluster = CLUSTERS[t % CLUSTERS.length] as string;
  const job = JOBS[h % JOBS.length] as string;
  const node = Math.floor(t / 10);
  return {
    cluster,
    container: CONTAINERS[(h >>> 8) % CONTAINERS.length] as string,
    env: cluster.startsWith('prod') ? 'production' : 'staging',
    instance: `10.${(t >>> 16) & 255}.${(t >>> 8) & 255}.${t & 255}:${8080 + (h % 4)}`,
    job,
    namespace: `team-${(h >>> 4) % 40}`,
    node: `ip-10-${(node >>> 8) & 255}-${node & 255}-${(node >>> 16) & 255}.ec2.internal`,
    pod: `${job}-${(h >>> 12).toString(36).slice(0, 5)}-${t.toString(36)}`,
    offsetMs: h % SCRAPE_INTERVAL_MS,
  };
}

/** Series `s` as sorted `[name, value]` pairs (Prometheus sends label names sorted). */
export function seriesLabels(
  s: number,
  target: TargetLabels = targetLabels(seriesTarget(s)),
): [string, string][] {
  const k = s % SERIES_PER_TARGET;
  const pairs: [string, string][] = [
    ['__name__', METRIC_NAMES[k % METRIC_NAMES.length] as string],
    ['cluster', target.cluster],
    ['code', CODES[Math.floor(k / METRIC_NAMES.length)] as string],
    ['container', target.container],
    ['env', target.env],
    ['instance', target.instance],
    ['job', target.job],
    ['namespace', target.namespace],
    ['node', target.node],
    ['pod', target.pod],
  ];
  return pairs;
}

function seriesTarget(s: number): number {
  return Math.floor(s / SERIES_PER_TARGET);
}

/** Value of series `s` at scrape `round`: counters grow by a per-series step, gauges wander. */
function sampleValue(s: number, round: number): number {
  const h = hash32(s);
  if (IS_COUNTER[(s % SERIES_PER_TARGET) % METRIC_NAMES.length] === true) {
    return (round + 1) * (1 + (h % 97));
  }
  return ((h + Math.imul(round, 2654435761)) >>> 0) % 10_000;
}

/**
 * One remote-write shard's request: series `[first, first + count)`. The decoded form is kept
 * and only its sample arrays change between rounds, so label strings are built once.
 */
export class RequestSlot {
  private readonly req: WriteRequestData;
  /** Each series' scrape offset within the interval (its target's). */
  private readonly offsets: Float64Array;

  constructor(
    readonly first: number,
    readonly count: number,
  ) {
    const series: PlainSeries[] = [];
    let target = -1;
    let labels = targetLabels(0);
    this.offsets = new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const s = first + i;
      if (seriesTarget(s) !== target) {
        target = seriesTarget(s);
        labels = targetLabels(target);
      }
      this.offsets[i] = labels.offsetMs;
      series.push({ labels: seriesLabels(s, labels), samples: [{ value: 0, timestamp: 0 }] });
    }
    this.req = buildWriteRequest({ series });
  }

  /** The snappy-compressed body of scrape `round` (timestamps from `startMs`). */
  body(startMs: number, round: number): Uint8Array {
    const { timestamps, values } = this.req;
    const scrapeAt = startMs + round * SCRAPE_INTERVAL_MS;
    for (let i = 0; i < this.count; i++) {
      timestamps[i] = scrapeAt + (this.offsets[i] as number);
      values[i] = sampleValue(this.first + i, round);
    }
    return compress(encodeWriteRequest(this.req));
  }
}

/** Requests of one round, one per slot, in slot order. */
export interface Round {
  readonly round: number;
  readonly bodies: readonly Uint8Array[];
  /** Samples in each body (one per series of its slot). */
  readonly samplesPerBody: readonly number[];
  readonly samples: number;
}

/**
 * The slots covering `numSeries` active series (the last may be short) and a builder of
 * rounds. Round 0 is the one that creates the series.
 */
export class RemoteWriteLoad {
  readonly slots: RequestSlot[] = [];

  constructor(
    readonly numSeries: number,
    /** Timestamp of round 0's scrape (ms), a multiple of the scrape interval. */
    readonly startMs: number,
  ) {
    for (let first = 0; first < numSeries; first += SERIES_PER_REQUEST) {
      this.slots.push(new RequestSlot(first, Math.min(SERIES_PER_REQUEST, numSeries - first)));
    }
  }

  buildRound(round: number): Round {
    const bodies = this.slots.map((slot) => slot.body(this.startMs, round));
    return {
      round,
      bodies,
      samplesPerBody: this.slots.map((slot) => slot.count),
      samples: this.numSeries,
    };
  }
}

/** Distinct values of each label over `numSeries` series (for the docs and the tests). */
export function labelCardinalities(numSeries: number): Map<string, number> {
  const seen = new Map<string, Set<string>>();
  for (let s = 0; s < numSeries; s++) {
    for (const [name, value] of seriesLabels(s)) {
      let set = seen.get(name);
      if (set === undefined) seen.set(name, (set = new Set()));
      set.add(value);
    }
  }
  return new Map([...seen].map(([name, set]) => [name, set.size]));
}
