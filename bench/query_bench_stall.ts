// Whether a heavy query stalls ingestion in Strata's single binary (issue 14, item 3): a steady
// remote-write load (N clients, each pushing 1,000-series requests of fresh samples back to
// back) is measured for a while without any query, then for as long while a heavy range query
// (≥ 10M samples by its own stats) runs back to back; push latency p50/p99/max per phase. The
// quiet phase is split around the loaded one (half before, half after), so that what drifts
// over the run (the head and its heap grow with every push) weighs on both phases alike. The
// ingester's ring heartbeats are watched through `cortex_member_consul_heartbeats_total` on
// /metrics, polled every 100 ms: the largest gap between two heartbeats seen and how many gaps
// exceeded the heartbeat period by more than 1 s. Measurements only: nothing here fails the
// run (evaluation on the event loop makes them look bad until it moves off it).
import { Agent, request } from 'node:http';
import { compress } from 'snappyjs';
import { quantile } from './remote_write_load.js';
import { DATA_SPAN_MS, nodeSeries, seriesLabels } from './query_bench_data.js';
import { medianOf, postQuery } from './query_bench_queries.js';
import { StallPushBody } from './stall_push_body.js';

export interface StallOptions {
  /** Strata's base URL (`http://host:port`) and remote-write URL. */
  base: string;
  pushUrl: string;
  /** Series in the dataset and its first sample's time. */
  series: number;
  startMs: number;
  clients: number;
  /** Seconds of each phase. */
  seconds: number;
  /** The heavy query must load at least this many samples. */
  heavySamples: number;
  progress: (line: string) => void;
}

export interface StallPhase {
  requests: number;
  errors: number;
  firstError: string;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  heartbeats: number;
  maxHeartbeatGapMs: number;
  missedHeartbeats: number;
}

export interface StallResult {
  series: number;
  clients: number;
  seriesPerRequest: number;
  seconds: number;
  pollMs: number;
  heartbeatPeriodMs: number;
  heartbeatMetric: string;
  heavy: {
    expr: string;
    stepSeconds: number;
    totalQueryableSamples: number;
    runs: number;
    medianMs: number;
    maxMs: number;
    statuses: string;
    firstError: string;
  };
  quiet: StallPhase;
  loaded: StallPhase;
}

const SERIES_PER_REQUEST = 1_000;
const SLOTS_PER_CLIENT = 5;
const POLL_MS = 100;
const HEARTBEAT_METRIC = 'cortex_member_consul_heartbeats_total{name="ingester"}';
/** Selects every `node_` series: 60% of the dataset. */
const HEAVY_EXPR = 'sum by (job) (rate({__name__=~"node_.+"}[2m]))';
const HEAVY_WINDOW_S = 120;

/** A range step for HEAVY_EXPR over the data's last 3 minutes loading ≥ `target` samples. */
export function heavyStep(series: number, target: number): number {
  const perStep = Math.max(1, nodeSeries(series)) * HEAVY_WINDOW_S;
  const spanS = DATA_SPAN_MS / 1000 - HEAVY_WINDOW_S;
  const steps = Math.max(2, Math.ceil(target / perStep));
  return Math.max(1, Math.floor(spanS / (steps - 1)));
}

function heavyParams(o: StallOptions, step: number): Record<string, string> {
  // Start once the 2m window is full, so every step loads a whole window per series.
  return {
    query: HEAVY_EXPR,
    start: String((o.startMs + HEAVY_WINDOW_S * 1000) / 1000),
    end: String((o.startMs + DATA_SPAN_MS) / 1000),
    step: String(step),
  };
}

/** The heavy query's samples by its stats (stats=all), or -1 with the failure. */
async function heavySamplesOf(o: StallOptions, step: number): Promise<number> {
  const r = await postQuery(o.base + '/prometheus', 'range', {
    ...heavyParams(o, step),
    stats: 'all',
  });
  if (r.status !== 200) {
    o.progress(`query stall: heavy query failed (${r.status}): ${r.body.slice(0, 300)}`);
    return -1;
  }
  const json = JSON.parse(r.body) as {
    data?: { stats?: { samples?: { totalQueryableSamples?: number } } };
  };
  return json.data?.stats?.samples?.totalQueryableSamples ?? -1;
}

function post(agent: Agent, url: URL, body: Uint8Array): Promise<string | undefined> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'Content-Type': 'application/x-protobuf',
          'Content-Encoding': 'snappy',
          'X-Prometheus-Remote-Write-Version': '0.1.0',
          'Content-Length': body.length,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          resolve(code >= 200 && code < 300 ? undefined : `${code} ${text.trim()}`);
        });
        res.on('error', (err) => resolve(`response failed: ${err.message}`));
      },
    );
    req.on('error', (err) => resolve(`request failed: ${err.message}`));
    req.end(body);
  });
}

export interface Push {
  at: number;
  ms: number;
  error: string | undefined;
}

/** Pushes fresh samples with `clients` clients until `stop()` is true. */
async function pushLoad(o: StallOptions, stop: () => boolean, out: Push[]): Promise<void> {
  const url = new URL(o.pushUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: o.clients });
  const client = async (c: number): Promise<void> => {
    const slots = Array.from({ length: SLOTS_PER_CLIENT }, (_, i) => {
      const first = (c * SLOTS_PER_CLIENT + i) * SERIES_PER_REQUEST;
      const series = Array.from({ length: SERIES_PER_REQUEST }, (_, k) =>
        seriesLabels(first + k, 'bench_stall_push'),
      );
      return { body: new StallPushBody(series), last: 0 };
    });
    for (let n = 0; !stop(); n++) {
      const slot = slots[n % slots.length] as (typeof slots)[number];
      // Fresh, strictly increasing timestamps per series; values never 0 (see StallPushBody).
      const ts = Math.max(Date.now(), slot.last + 1);
      slot.last = ts;
      const body = compress(slot.body.body(ts, n + 1));
      const t0 = performance.now();
      const error = await post(agent, url, body);
      out.push({ at: performance.now(), ms: performance.now() - t0, error });
    }
  };
  try {
    await Promise.all(Array.from({ length: o.clients }, (_, c) => client(c)));
  } finally {
    agent.destroy();
  }
}

/** Polls the heartbeat counter until `stop()`; records when it was seen to increase. */
async function pollHeartbeats(base: string, stop: () => boolean, seen: number[]): Promise<void> {
  const re = /^cortex_member_consul_heartbeats_total\{name="ingester"\} ([0-9.e+]+)$/m;
  let last = -1;
  while (!stop()) {
    const t0 = performance.now();
    try {
      const res = await fetch(`${base}/metrics`);
      const m = re.exec(await res.text());
      const value = m === null ? -1 : Number(m[1]);
      if (value > last) {
        if (last >= 0) seen.push(performance.now());
        last = value;
      }
    } catch {
      // A refused poll is a gap like any other: the next answer closes it.
    }
    await new Promise((r) => setTimeout(r, Math.max(0, POLL_MS - (performance.now() - t0))));
  }
}

/** A phase's stretches of time, [from, to) each (performance.now() ms). */
export type Spans = readonly (readonly [number, number])[];

export function phaseOf(
  pushes: readonly Push[],
  beats: readonly number[],
  spans: Spans,
  periodMs: number,
): StallPhase {
  const inside = (t: number): boolean => spans.some(([from, to]) => t >= from && t < to);
  const mine = pushes.filter((p) => inside(p.at));
  const ms = mine.map((p) => p.ms);
  const errors = mine.filter((p) => p.error !== undefined);
  let maxGap = 0;
  let missed = 0;
  let count = 0;
  for (const [from, to] of spans) {
    // Gaps ending inside the stretch, and the one still open at its end.
    let prev = beats.filter((t) => t < from).pop() ?? from;
    for (const t of beats.filter((b) => b >= from && b < to).concat([to])) {
      const gap = t - prev;
      maxGap = Math.max(maxGap, gap);
      if (gap > periodMs + 1000) missed++;
      if (t !== to) count++;
      prev = t;
    }
  }
  return {
    requests: mine.length,
    errors: errors.length,
    firstError: errors[0]?.error ?? '',
    p50Ms: quantile(ms, 0.5),
    p99Ms: quantile(ms, 0.99),
    maxMs: ms.length === 0 ? NaN : Math.max(...ms),
    heartbeats: count,
    maxHeartbeatGapMs: maxGap,
    missedHeartbeats: missed,
  };
}

/** The ingester's heartbeat period from /config (`lifecycler: … heartbeat_period: 5s`). */
async function heartbeatPeriodMs(base: string): Promise<number> {
  try {
    const text = await (await fetch(`${base}/config`)).text();
    const at = text.indexOf('lifecycler:');
    const m = /heartbeat_period: *([0-9.]+)(ms|s|m)\b/.exec(text.slice(Math.max(0, at)));
    if (at >= 0 && m !== null) {
      return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
    }
  } catch {
    // Fall through to the default.
  }
  return 5_000; // -ingester.heartbeat-period's default
}

export async function runStall(o: StallOptions): Promise<StallResult> {
  const periodMs = await heartbeatPeriodMs(o.base);
  let step = heavyStep(o.series, o.heavySamples);
  let samples = await heavySamplesOf(o, step);
  while (samples >= 0 && samples < o.heavySamples && step > 1) {
    step = Math.max(1, Math.floor(step / 2));
    samples = await heavySamplesOf(o, step);
  }
  o.progress(`query stall: heavy query at step ${step}s loads ${samples} samples`);

  const pushes: Push[] = [];
  const beats: number[] = [];
  let stopAll = false;
  const stopped = (): boolean => stopAll;
  const load = pushLoad(o, stopped, pushes);
  const poll = pollHeartbeats(o.base, stopped, beats);
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
  // Two seconds to create the pushed series and settle, not measured.
  await sleep(2_000);
  const half = (o.seconds * 1000) / 2;
  o.progress(`query stall: ${half / 1000}s of pushes without a query`);
  const quietFrom = performance.now();
  await sleep(half);
  const loadedFrom = performance.now();
  o.progress(`query stall: ${o.seconds}s of pushes while the heavy query runs back to back`);
  const heavyMs: number[] = [];
  const statuses = new Map<number, number>();
  let firstError = '';
  while (performance.now() - loadedFrom < o.seconds * 1000) {
    const r = await postQuery(o.base + '/prometheus', 'range', heavyParams(o, step));
    heavyMs.push(r.ms);
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    if (r.status !== 200 && firstError === '') firstError = `${r.status} ${r.body}`;
  }
  const loadedTo = performance.now();
  o.progress(`query stall: ${half / 1000}s of pushes without a query again`);
  await sleep(half);
  const quietTo = performance.now();
  stopAll = true;
  await Promise.all([load, poll]);
  return {
    series: o.series,
    clients: o.clients,
    seriesPerRequest: SERIES_PER_REQUEST,
    seconds: o.seconds,
    pollMs: POLL_MS,
    heartbeatPeriodMs: periodMs,
    heartbeatMetric: HEARTBEAT_METRIC,
    heavy: {
      expr: HEAVY_EXPR,
      stepSeconds: step,
      totalQueryableSamples: samples,
      runs: heavyMs.length,
      medianMs: medianOf(heavyMs),
      maxMs: Math.max(...heavyMs),
      statuses: [...statuses].map(([s, n]) => `${s}×${n}`).join(', '),
      firstError,
    },
    quiet: phaseOf(
      pushes,
      beats,
      [
        [quietFrom, loadedFrom],
        [loadedTo, quietTo],
      ],
      periodMs,
    ),
    loaded: phaseOf(pushes, beats, [[loadedFrom, loadedTo]], periodMs),
  };
}
