import type { RandomStream } from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { StrataWorkloadConfig } from './config.js';
import { phaseAt, quietEndAt, type LimitSet, type LimitsScenarioConfig } from './config_limits.js';
import { seriesKey, type GeneratedSample } from './generator.js';
import type { WriteLedger } from './ledger.js';
import { encodeBatch } from './http_client.js';
import { sendUntilFinal, type PushRetryDeps } from './push_retry.js';

export const LIMITS_METRIC_PREFIX = 'strata_lim_m';
export const PROBE_METRIC = 'strata_lim_probe';
/** Ordinary series the writer starts with. */
const INITIAL_SERIES = 4;
const MAX_SAMPLES_PER_SERIES = 20;

export type ProbeKind = 'names' | 'name_len' | 'value_len';
const PROBE_KINDS: readonly ProbeKind[] = ['names', 'name_len', 'value_len'];

/**
 * Ordinary series `i`: half of them under metric 0 and a quarter under each of metrics 1 and
 * 2, so the per-metric limit bites metric 0 first and the per-user limit the rest later.
 */
export function ordinaryLabels(i: number): [string, string][] {
  const metric = i % 4 < 2 ? 0 : (i % 4) - 1;
  return [
    ['__name__', `${LIMITS_METRIC_PREFIX}${metric}`],
    ['job', 'strata-sim-limits'],
    ['series', String(i)],
  ];
}

/**
 * A probe series: `delta` (-1, 0, +1) away from the phase's label-count, label-name-length or
 * label-value-length limit, so one of three is refused by that limit and two pass. Sorted
 * by name, as Prometheus sends labels.
 */
export function probeLabels(kind: ProbeKind, delta: number, l: LimitSet): [string, string][] {
  const labels: [string, string][] = [
    ['__name__', PROBE_METRIC],
    ['job', 'strata-sim-limits'],
    ['probe', `${kind}${delta >= 0 ? '+' : ''}${delta}`],
  ];
  switch (kind) {
    case 'names':
      for (let i = labels.length; i < l.maxLabelNamesPerSeries + delta; i++)
        labels.push([`x${String(i).padStart(3, '0')}`, 'x']);
      break;
    case 'name_len':
      labels.push([`l${'n'.repeat(l.maxLabelNameLength + delta - 1)}`, '1']);
      break;
    case 'value_len':
      labels.push(['v', 'y'.repeat(l.maxLabelValueLength + delta)]);
      break;
  }
  return labels.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface LimitsWriterDeps {
  ledger: WriteLedger;
  /** The k-th push of a tenant goes to distributor k mod n, retries included. */
  distributors: readonly string[];
  epochMs: number;
  now: () => number;
  /** The writer's stream per tenant (values, probes), forked from the workload stream. */
  streamFor: (tenant: string) => RandomStream;
}

/**
 * A remote-write client that probes the tenant limits: each scrape is one push, sent in
 * order, one in flight per tenant, to the distributors in turn. Every scrape adds `grow` new
 * ordinary series (up to `max_series`), so the series limits bite; every `burst_every`
 * scrapes, `burst_run` scrapes in a row carry several samples per series (about 90% of the
 * burst in force), so the rate limit bites; about every other scrape adds one probe series
 * just below, at or above a label limit of the phase in force, pushed on its own. 429s, 5xx and timeouts are
 * retried with backoff, other 4xx drop the push. Around each limits change (`quiet`) it
 * neither scrapes nor sends, so every push meets exactly one set of limits.
 */
export function limitsWriter(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  l: LimitsScenarioConfig,
  deps: LimitsWriterDeps,
): SimProcess {
  const log = env.logger.child({ role: 'limits-writer' });
  const controller = new AbortController();
  const { scrape, remoteWrite } = config;
  const firstScrape = deps.epochMs + scrape.startMs;
  const stopAt = deps.epochMs + scrape.stopMs;
  const lanes = config.tenants.map((t) => ({
    tenant: t.name,
    random: deps.streamFor(t.name),
    counters: new Map<string, number>(),
    sent: 0,
    pushes: [] as GeneratedSample[][],
    wake: undefined as (() => void) | undefined,
  }));
  let scrapingDone = false;
  const retry: PushRetryDeps = {
    env,
    ledger: deps.ledger,
    now: deps.now,
    remoteWrite,
    signal: controller.signal,
    log,
  };

  const sleep = async (ms: number): Promise<boolean> => {
    try {
      await env.clock.sleep(ms, controller.signal);
      return true;
    } catch {
      return false;
    }
  };

  const waitForQuietEnd = async (): Promise<boolean> => {
    for (;;) {
      const end = quietEndAt(l, deps.now() - deps.epochMs);
      if (end === undefined) return !controller.signal.aborted;
      if (!(await sleep(deps.epochMs + end - deps.now()))) return false;
    }
  };

  const sample = (
    lane: (typeof lanes)[number],
    labels: [string, string][],
    ts: number,
  ): GeneratedSample => {
    const series = seriesKey(labels);
    const value = (lane.counters.get(series) ?? 0) + 1 + lane.random.int(10);
    lane.counters.set(series, value);
    return { series, labels, timestamp: ts, value };
  };

  /**
   * Scrape k (the k-th slot since the first) at `ts`: the ordinary series in one push, and
   * the probe series, if any, in a push of its own (so its label limit answers it alone).
   */
  const scrapeLane = (lane: (typeof lanes)[number], k: number, ts: number): GeneratedSample[][] => {
    const limits = phaseAt(l, ts - deps.epochMs).limits;
    const n = Math.min(l.maxSeries, INITIAL_SERIES + l.grow * k);
    const bursting = l.burstRun > 0 && k % l.burstEvery >= l.burstEvery - l.burstRun;
    const perSeries = bursting
      ? Math.max(
          2,
          Math.min(MAX_SAMPLES_PER_SERIES, Math.floor((0.9 * limits.ingestionBurstSize) / n)),
        )
      : 1;
    const step = Math.floor(scrape.intervalMs / (perSeries + 1));
    const out: GeneratedSample[] = [];
    for (let i = 0; i < n; i++)
      for (let j = perSeries - 1; j >= 0; j--)
        out.push(sample(lane, ordinaryLabels(i), ts - j * step));
    if (lane.random.int(2) !== 0) return [out];
    const kind = PROBE_KINDS[lane.random.int(PROBE_KINDS.length)]!;
    return [out, [sample(lane, probeLabels(kind, lane.random.int(3) - 1, limits), ts)]];
  };

  const scheduleScrape = (k: number): void => {
    const at = firstScrape + k * scrape.intervalMs;
    if (at >= stopAt) {
      scrapingDone = true;
      for (const lane of lanes) lane.wake?.();
      return;
    }
    env.clock.setTimer(Math.max(0, at - deps.now()), () => {
      const ts = env.clock.now();
      if (quietEndAt(l, deps.now() - deps.epochMs) === undefined)
        for (const lane of lanes) {
          lane.pushes.push(...scrapeLane(lane, k, ts));
          lane.wake?.();
        }
      scheduleScrape(k + 1);
    });
  };

  const send = async (lane: (typeof lanes)[number]): Promise<void> => {
    while (!controller.signal.aborted) {
      const samples = lane.pushes.shift();
      if (samples === undefined) {
        if (scrapingDone) return;
        await new Promise<void>((resolve) => {
          lane.wake = () => {
            lane.wake = undefined;
            resolve();
          };
        });
        continue;
      }
      const recs = deps.ledger.scraped(env.nodeName, lane.tenant, samples, deps.now());
      const push = deps.ledger.newPush(env.nodeName, lane.tenant, recs);
      const distributor = deps.distributors[lane.sent++ % deps.distributors.length]!;
      const sent = await sendUntilFinal(retry, push, {
        tenant: lane.tenant,
        body: encodeBatch(recs),
        distributor: () => distributor,
        beforeAttempt: waitForQuietEnd,
      });
      if (!sent) return;
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      scheduleScrape(Math.max(0, Math.ceil((deps.now() - firstScrape) / scrape.intervalMs)));
      for (const lane of lanes) void send(lane);
      log.info('limits writer started', { tenants: lanes.length });
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      for (const lane of lanes) lane.wake?.();
      return Promise.resolve();
    },
  };
}
