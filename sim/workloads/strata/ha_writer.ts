import type { RandomStream } from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { StrataWorkloadConfig } from './config.js';
import {
  HA_CLUSTER_LABEL,
  HA_METRIC_PREFIX,
  HA_REPLICA_LABEL,
  type HaConfig,
  type HaReplica,
} from './config_ha.js';
import { seriesKey, type GeneratedSample } from './generator.js';
import type { LedgerSample, WriteLedger } from './ledger.js';
import { encodeBatch } from './http_client.js';
import { sendUntilFinal, type PushRetryDeps } from './push_retry.js';

export interface HaWriterDeps {
  ledger: WriteLedger;
  distributors: readonly string[];
  epochMs: number;
  /** Harness time for the ledger (true virtual time). */
  now: () => number;
  /** The replica's value stream per tenant, forked from the workload stream. */
  streamFor: (tenant: string) => RandomStream;
  replica: HaReplica;
}

/**
 * The labels of one HA series as a replica sends it, sorted by name as Prometheus sends
 * them; without `replica`, the series as the cluster stores it (the replica label removed).
 */
export function haSeriesLabels(
  cluster: string,
  replica: string | undefined,
  slot: number,
): [string, string][] {
  const labels: [string, string][] = [['__name__', `${HA_METRIC_PREFIX}${slot % 2}`]];
  if (replica !== undefined) labels.push([HA_REPLICA_LABEL, replica]);
  labels.push([HA_CLUSTER_LABEL, cluster], ['job', 'strata-sim-ha'], ['slot', String(slot)]);
  return labels;
}

/**
 * One Prometheus replica of an HA pair: it scrapes the cluster's `ha_tracker.series` targets
 * per tenant (the same series as its peers, with its own `__replica__` external label) and
 * remote-writes them. Replica k of n scrapes k/n of an interval after replica 0, so two
 * replicas never share a timestamp and every sample read back names its replica. As
 * Prometheus: one batch in flight per tenant, oldest first; 2xx (200 kept, 202 dropped by
 * the HA tracker) and other 4xx end a batch, 5xx/429/timeouts are retried with backoff.
 * Its queue is process memory: a crash loses what was not yet sent.
 */
export function haWriter(
  env: SimNodeEnv,
  config: StrataWorkloadConfig,
  ha: HaConfig,
  deps: HaWriterDeps,
): SimProcess {
  const log = env.logger.child({ role: 'ha-writer', cluster: deps.replica.cluster });
  const controller = new AbortController();
  const { scrape, remoteWrite } = config;
  const { cluster, replica, index, of } = deps.replica;
  const offset = Math.floor((index * scrape.intervalMs) / of);
  const firstScrape = deps.epochMs + scrape.startMs + offset;
  const stopAt = deps.epochMs + scrape.stopMs;
  const lanes = config.tenants.map((t) => ({
    tenant: t.name,
    values: deps.streamFor(t.name),
    counters: new Array<number>(ha.series).fill(0),
    queue: [] as LedgerSample[],
    wake: undefined as (() => void) | undefined,
  }));
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

  const scrapeLane = (lane: (typeof lanes)[number], ts: number): GeneratedSample[] =>
    lane.counters.map((c, slot) => {
      const value = c + 1 + lane.values.int(10);
      lane.counters[slot] = value;
      const labels = haSeriesLabels(cluster, replica, slot);
      return { series: seriesKey(labels), labels, timestamp: ts, value };
    });

  const scheduleScrape = (k: number): void => {
    const at = firstScrape + k * scrape.intervalMs;
    if (at >= stopAt) {
      scrapingDone = true;
      for (const lane of lanes) lane.wake?.();
      return;
    }
    env.clock.setTimer(Math.max(0, at - deps.now()), () => {
      const ts = env.clock.now();
      for (const lane of lanes) {
        lane.queue.push(
          ...deps.ledger.scraped(env.nodeName, lane.tenant, scrapeLane(lane, ts), deps.now()),
        );
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
      const batch = lane.queue.splice(0, remoteWrite.batchSize);
      const push = deps.ledger.newPush(env.nodeName, lane.tenant, batch);
      const distributor = deps.distributors[pushCount++ % deps.distributors.length] as string;
      const sent = await sendUntilFinal(retry, push, {
        tenant: lane.tenant,
        body: encodeBatch(batch),
        distributor: () => distributor,
      });
      if (!sent) return;
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      scheduleScrape(Math.max(0, Math.ceil((deps.now() - firstScrape) / scrape.intervalMs)));
      for (const lane of lanes) void send(lane);
      log.info('HA replica started', { replica, tenants: lanes.length });
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      for (const lane of lanes) lane.wake?.();
      return Promise.resolve();
    },
  };
}
