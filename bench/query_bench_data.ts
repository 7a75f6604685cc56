// The query benchmark's data (issue 14): N series, each a metric name plus nine labels, one
// sample per second for five minutes, shaped like a fleet of node-exporter and application
// targets so the standard queries mean something. Every target exposes 100 series: five
// metric names × ten `cpu` values × two `mode` values; 60% of the targets are `job="node"`
// (their metrics all start with `node_`), the others are applications. Counters grow by a
// per-series step each second, gauges wander around a per-series level (distinct levels, so
// topk has no ties to order arbitrarily). A quarter of the targets scrape on the whole second,
// so some samples sit exactly on a range boundary; the others at a per-target millisecond
// offset.
//
// Requests are remote-write 1.0 (protobuf + snappy), 1,000 series × 60 samples each, encoded
// once and sent with the same bytes to every system; a series' requests go out in time order.
import { compress } from 'snappyjs';
import {
  buildWriteRequest,
  encodeWriteRequest,
  type PlainSeries,
  type WriteRequestData,
} from '../src/distributor/index.js';

export const SERIES_PER_TARGET = 100;
export const SERIES_PER_REQUEST = 1_000;
/** Samples per series per request: one minute at 1/s. */
export const SAMPLES_PER_REQUEST = 60;
/** Five minutes at one sample per second. */
export const SAMPLES_PER_SERIES = 300;
export const SAMPLE_INTERVAL_MS = 1_000;
export const DATA_SPAN_MS = SAMPLES_PER_SERIES * SAMPLE_INTERVAL_MS;

// `device` differs between a target's metrics, so their series stay distinct once a
// function drops the metric name (`rate({__name__=~"node_.+"}[1m])`).
const NODE_METRICS = [
  { name: 'node_cpu_seconds_total', counter: true, device: 'cpu' },
  { name: 'node_network_receive_bytes_total', counter: true, device: 'eth0' },
  { name: 'node_disk_io_time_seconds_total', counter: true, device: 'sda' },
  { name: 'node_memory_active_bytes', counter: false, device: 'dimm0' },
  { name: 'node_load1', counter: false, device: 'sys' },
];
const APP_METRICS = [
  { name: 'http_requests_total', counter: true, device: 'http-in' },
  { name: 'http_request_duration_seconds_sum', counter: true, device: 'http-lat' },
  { name: 'process_cpu_seconds_total', counter: true, device: 'proc' },
  { name: 'process_resident_memory_bytes', counter: false, device: 'heap' },
  { name: 'go_goroutines', counter: false, device: 'runtime' },
];
const APP_JOBS = ['api', 'checkout', 'search', 'auth'];
const CLUSTERS = ['eu-1', 'eu-2', 'us-1', 'ap-1'];
const SERVICES = ['web', 'db', 'cache', 'queue', 'batch', 'edge'];
const NODE_MODES = ['user', 'system'];
const APP_MODES = ['read', 'write'];

export function hash32(n: number): number {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Whether target `t` is a node exporter (60% of targets). */
export function isNodeTarget(t: number): boolean {
  return t % 5 < 3;
}

/** Where in each second target `t` is scraped: 0 for a quarter of the targets. */
export function scrapeOffsetMs(t: number): number {
  return t % 4 === 0 ? 0 : hash32(t) % 1_000;
}

function metricOf(s: number): (typeof NODE_METRICS)[number] {
  const t = Math.floor(s / SERIES_PER_TARGET);
  const k = s % SERIES_PER_TARGET;
  const metrics = isNodeTarget(t) ? NODE_METRICS : APP_METRICS;
  return metrics[k % metrics.length] as (typeof NODE_METRICS)[number];
}

/** Series `s` as sorted `[name, value]` pairs: `__name__` and nine labels. */
export function seriesLabels(s: number, metricName?: string): [string, string][] {
  const t = Math.floor(s / SERIES_PER_TARGET);
  const k = s % SERIES_PER_TARGET;
  const node = isNodeTarget(t);
  const cluster = CLUSTERS[t % CLUSTERS.length] as string;
  const h = hash32(t);
  const metric = metricOf(s);
  return [
    ['__name__', metricName ?? metric.name],
    ['cluster', cluster],
    ['cpu', String(Math.floor(k / 5) % 10)],
    ['device', metric.device],
    ['env', cluster === 'ap-1' ? 'staging' : 'production'],
    ['instance', `10.${(t >>> 16) & 255}.${(t >>> 8) & 255}.${t & 255}:${node ? 9100 : 8080}`],
    ['job', node ? 'node' : (APP_JOBS[h % APP_JOBS.length] as string)],
    ['mode', (node ? NODE_MODES : APP_MODES)[Math.floor(k / 50)] as string],
    ['service', SERVICES[(h >>> 8) % SERVICES.length] as string],
    ['zone', `${cluster}${'abc'[(h >>> 4) % 3] as string}`],
  ];
}

/** Value of series `s` at sample `i` (0-based second of the data). */
export function sampleValue(s: number, i: number): number {
  const h = hash32(s + 0x51ed);
  if (metricOf(s).counter) return (i + 1) * (1 + (h % 97)) + (h % 1000);
  // A distinct level per series plus a slow wave: values in [level - 50, level + 50].
  const level = (h % 1_000_000) / 10;
  return Math.round((level + 50 * Math.sin(i / 17 + (s % 7))) * 1000) / 1000;
}

/** Series of `numSeries` whose metric name starts with `node_` (60% of whole targets). */
export function nodeSeries(numSeries: number): number {
  let n = 0;
  for (let s = 0; s < numSeries; s++) if (isNodeTarget(Math.floor(s / SERIES_PER_TARGET))) n++;
  return n;
}

/**
 * One request slot: series `[first, first + count)` with SAMPLES_PER_REQUEST samples each;
 * the decoded request is built once and only its sample arrays change between minutes.
 */
export class QuerySlot {
  private readonly req: WriteRequestData;

  constructor(
    readonly first: number,
    readonly count: number,
  ) {
    const series: PlainSeries[] = [];
    const samples = Array.from({ length: SAMPLES_PER_REQUEST }, () => ({ value: 0, timestamp: 0 }));
    for (let i = 0; i < count; i++) series.push({ labels: seriesLabels(first + i), samples });
    this.req = buildWriteRequest({ series });
  }

  /** The snappy-compressed body of minute `m` (samples 60m … 60m + 59 from `startMs`). */
  body(startMs: number, minute: number): Uint8Array {
    const { timestamps, values } = this.req;
    let n = 0;
    for (let i = 0; i < this.count; i++) {
      const s = this.first + i;
      const offset = scrapeOffsetMs(Math.floor(s / SERIES_PER_TARGET));
      for (let j = 0; j < SAMPLES_PER_REQUEST; j++) {
        const sample = minute * SAMPLES_PER_REQUEST + j;
        timestamps[n] = startMs + sample * SAMPLE_INTERVAL_MS + offset;
        values[n] = sampleValue(s, sample);
        n++;
      }
    }
    return compress(encodeWriteRequest(this.req));
  }
}

export function querySlots(numSeries: number): QuerySlot[] {
  const slots: QuerySlot[] = [];
  for (let first = 0; first < numSeries; first += SERIES_PER_REQUEST) {
    slots.push(new QuerySlot(first, Math.min(SERIES_PER_REQUEST, numSeries - first)));
  }
  return slots;
}

/** Minutes of data, i.e. rounds of requests (each round: every slot once). */
export const MINUTES = SAMPLES_PER_SERIES / SAMPLES_PER_REQUEST;
