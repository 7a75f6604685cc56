import type { RandomStream } from '../../src/runtime/index.js';
import { chance, drawInt, drawNumber, ms, drawNetworkLatency, rateSummary } from './draw.js';
import { generateEpisodes, type EpisodeBounds, type EpisodeKind } from './episodes.js';
import {
  numbered,
  workloadOf,
  type DerivedMix,
  type ScenarioDoc,
  type SwarmFamily,
} from './family.js';

/**
 * `ingester-crash` under a drawn fault mix: 3–5 ingesters with replication factor 3, one or
 * two writers, node episodes (crashes, power losses, one-way partitions between the
 * distributor and an ingester or a writer) one at a time, and network weather (latency,
 * duplication, message loss, latency spikes), torn writes on power loss or not.
 */
export const ingesterCrashFamily: SwarmFamily = {
  name: 'ingester-crash',
  base: 'ingester-crash',
  promise:
    'replication factor 3 with quorum writes and reads survives one replica failure per sample: ' +
    'at most one ingester is down or cut off at a time (each episode ends, and the node has 3s+ ' +
    'to recover, before the next); a power loss (which loses everything since the last fsync) ' +
    'only hits the one ingester disturbed so far, and never while messages are randomly lost; ' +
    'writers, latency and duplication are unrestricted; every fault ends 35s before the scrapes ' +
    'stop. Every acknowledged sample must then be read exactly once, nothing else read, and the ' +
    'PromQL answers must equal the model.',
  derive(doc: ScenarioDoc, r: RandomStream): DerivedMix {
    const summary: string[] = [];
    const ingesters = numbered('ingester', drawInt(r, [3, 5]));
    const writers = numbered('writer', drawInt(r, [1, 2]));
    summary.push(`${ingesters.length} ingesters RF 3`, `${writers.length} writer(s)`);
    doc.topology = {
      nodes: [
        { name: 'distributor-1', run: 'distributor' },
        ...ingesters.map((name) => ({ name, run: 'ingester' })),
        { name: 'querier-1', run: 'querier' },
        ...writers.map((name) => ({ name, run: 'writer' })),
        { name: 'reader', run: 'reader' },
      ],
    };

    const kinds = (
      [
        ['crash', 0.8],
        ['power_loss', 0.5],
        ['partition_to_ingester', 0.5],
        ['partition_from_ingester', 0.4],
        ['partition_to_writer', 0.5],
        ['partition_from_writer', 0.4],
      ] as const
    )
      .filter(([, p]) => chance(r, p))
      .map(([k]): EpisodeKind => k);
    if (kinds.length === 0) kinds.push('crash');
    const loss =
      !kinds.includes('power_loss') && chance(r, 0.4) ? drawNumber(r, [0.001, 0.01], 0.0005) : 0;
    const duplication = chance(r, 0.6) ? drawNumber(r, [0.005, 0.05], 0.0005) : 0;
    const network: Record<string, unknown> = {
      latency: drawNetworkLatency(r),
    };
    if (duplication > 0) network.duplication = duplication;
    if (loss > 0) network.loss = loss;
    doc.network = network;
    const tornWrites = chance(r, 0.7);
    doc.disk = {
      latency: { distribution: 'uniform', min: '0ms', max: ms(drawInt(r, [1, 3])) },
      fsync_latency: { distribution: 'uniform', min: '1ms', max: ms(drawInt(r, [2, 20])) },
      torn_writes: tornWrites,
    };
    summary.push(
      `latency median ${(network.latency as { median: string }).median}`,
      rateSummary('duplication', duplication),
      rateSummary('loss', loss),
      tornWrites ? 'torn writes' : 'no torn writes',
    );

    const workload = workloadOf(doc);
    const scrape = workload.scrape as Record<string, unknown>;
    scrape.series = drawInt(r, [4, 12]);
    summary.push(`${scrape.series as number} series per tenant`);
    // The base's scrapes run 3s–2m15s and the reads start at 2m30s.
    const bounds: EpisodeBounds = {
      fromMs: 8_000,
      untilMs: 100_000,
      gapMs: [3_000, 20_000],
      downMs: [1_000, 20_000],
      partitionMs: [1_000, 8_000],
      kinds,
      distributor: 'distributor-1',
      ingesters,
      writers,
      powerLossAllowed: loss === 0,
    };
    const faults: Record<string, unknown> = {};
    if (chance(r, 0.4)) {
      faults.from = ms(bounds.fromMs);
      faults.until = ms(bounds.untilMs);
      faults.latency_spike = {
        per_minute: drawNumber(r, [0.5, 3], 0.1),
        multiplier: drawInt(r, [2, 10]),
        lasts: ms(drawInt(r, [500, 5_000])),
      };
      summary.push(
        `latency spikes x${(faults.latency_spike as { multiplier: number }).multiplier}`,
      );
    }
    doc.faults = faults;
    const episodes = generateEpisodes(bounds, r);
    summary.push(`episodes: ${kinds.join(',')} (${episodes.length})`);
    return { summary, episodes, bounds };
  },
};
