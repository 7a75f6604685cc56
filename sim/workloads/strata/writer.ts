import { setMaxListeners } from 'node:events';
import type { RandomStream } from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { OutageWindow, StrataWorkloadConfig } from './config.js';
import { SeriesGenerator } from './generator.js';
import { encodeBatch } from './http_client.js';
import type { LedgerSample, WriteLedger } from './ledger.js';
import { sendUntilFinal, type PushRetryDeps } from './push_retry.js';

/** The end of the outage covering `t` (absolute ms), if one does. */
export function outageEndAt(
  outages: readonly OutageWindow[],
  epochMs: number,
  t: number,
): number | undefined {
  for (const w of outages)
    if (t >= epochMs + w.fromMs && t < epochMs + w.untilMs) return epochMs + w.untilMs;
  return undefined;
}

export interface WriterDeps {
  ledger: WriteLedger;
  distributors: readonly string[];
  epochMs: number;
  /** Harness time for the ledger (true virtual time, unaffected by the node's clock skew). */
  now: () => number;
  /** The writer's generator streams, one per tenant, forked from the workload stream. */
  streamFor: (tenant: string) => RandomStream;
  outages: readonly OutageWindow[];
}

/**
 * A remote-write client standing in for a Prometheus server that scrapes `series` targets
 * per tenant and remote-writes each tenant's samples to a distributor's `/api/v1/push` over
 * simulated HTTP (protobuf + snappy, `pushBatch`). As Prometheus does: batches of at most
 * `batch_size` samples, oldest first, one batch in flight per tenant (so each series arrives
 * in order); 5xx, 429, timeouts and unreachable distributors are retried with exponential
 * backoff forever; other 4xx drop the batch. During an outage window it sends nothing and
 * buffers, then catches up oldest first.
 *
 * Nothing survives a crash of the writer: its queue is process memory (the ledger then shows
 * those samples as never sent).
 */
export function strataWriter(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  deps: WriterDeps,
): SimProcess {
  const log = env.logger.child({ role: 'writer' });
  const controller = new AbortController();
  setMaxListeners(1000, controller.signal);
  const { scrape, remoteWrite } = config;
  const firstScrape = deps.epochMs + scrape.startMs;
  const stopAt = deps.epochMs + scrape.stopMs;
  const lanes = config.tenants.map((t) => {
    const stream = deps.streamFor(t.name);
    return {
      tenant: t.name,
      generator: new SeriesGenerator(
        {
          writer: env.nodeName,
          tenant: t.name,
          series: scrape.series,
          metrics: scrape.metrics,
          firstScrapeMs: firstScrape,
          intervalMs: scrape.intervalMs,
          churnEveryMs: scrape.churnEveryMs,
          churnFraction: scrape.churnFraction,
        },
        stream.fork('values'),
      ),
      queue: [] as LedgerSample[],
      wake: undefined as (() => void) | undefined,
    };
  });
  const jitter = deps.streamFor('').fork('jitter');
  let scrapingDone = false;
  let pushCount = 0;
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
      return false; // stopping
    }
  };

  const waitForOutageEnd = async (): Promise<boolean> => {
    for (;;) {
      const end = outageEndAt(deps.outages, deps.epochMs, deps.now());
      if (end === undefined) return !controller.signal.aborted;
      if (!(await sleep(end - deps.now()))) return false;
    }
  };

  const scheduleScrape = (k: number): void => {
    const slot = firstScrape + k * scrape.intervalMs;
    if (slot >= stopAt) {
      scrapingDone = true;
      for (const lane of lanes) lane.wake?.();
      return;
    }
    const at = slot + (scrape.jitterMs > 0 ? jitter.int(scrape.jitterMs + 1) : 0);
    env.clock.setTimer(Math.max(0, at - deps.now()), () => {
      const ts = env.clock.now();
      for (const lane of lanes) {
        const recs = deps.ledger.scraped(
          env.nodeName,
          lane.tenant,
          lane.generator.scrape(ts),
          deps.now(),
        );
        lane.queue.push(...recs);
        lane.wake?.();
      }
      scheduleScrape(k + 1);
    });
  };

  const send = async (lane: (typeof lanes)[number]): Promise<void> => {
    while (!controller.signal.aborted) {
      if (lane.queue.length === 0) {
        if (scrapingDone) return;
        await new Promise<void>((resolve) => {
          lane.wake = () => {
            lane.wake = undefined;
            resolve();
          };
        });
        continue;
      }
      if (!(await waitForOutageEnd())) return;
      const batch = lane.queue.splice(0, remoteWrite.batchSize);
      const push = deps.ledger.newPush(env.nodeName, lane.tenant, batch);
      const sent = await sendUntilFinal(retry, push, {
        tenant: lane.tenant,
        body: encodeBatch(batch),
        // Each attempt goes to the next distributor, as through a round-robin load balancer,
        // so a retry finds a live one while another is down.
        distributor: () => deps.distributors[pushCount++ % deps.distributors.length] as string,
        beforeAttempt: waitForOutageEnd,
      });
      if (!sent) return;
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      scheduleScrape(Math.max(0, Math.ceil((deps.now() - firstScrape) / scrape.intervalMs)));
      for (const lane of lanes) void send(lane);
      log.info('writer started', { tenants: lanes.length, series: scrape.series });
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      for (const lane of lanes) lane.wake?.();
      return Promise.resolve();
    },
  };
}
