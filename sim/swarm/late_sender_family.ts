import type { RandomStream } from '../../src/runtime/index.js';
import { chance, drawInt, drawNumber, drawNetworkLatency, rateSummary } from './draw.js';
import { generateEpisodes, type EpisodeBounds, type EpisodeKind } from './episodes.js';
import {
  numbered,
  workloadOf,
  type DerivedMix,
  type ScenarioDoc,
  type SwarmFamily,
} from './family.js';

const MINUTE = 60_000;

/**
 * `late-sender` under a drawn mix: the late writer's outage starts and lasts differently
 * (always more than the 1h window, so team-a must refuse some of its samples), three
 * ingesters, crash and partition episodes one at a time, network latency and duplication.
 */
export const lateSenderFamily: SwarmFamily = {
  name: 'late-sender',
  base: 'late-sender',
  promise:
    'the §11 ingestion rule decides every late sample: the late writer is out for 64–72 minutes ' +
    '(team-a must refuse what is more than 1h behind, team-b with its 2h out-of-order window ' +
    'must accept all); 3 ingesters RF 3 (so every ingester holds every series and its newest ' +
    "sample time is the tenant's); at most one ingester crashed or cut off at a time, none loses power (a " +
    'power loss empties its head and with it the newest sample time the rule depends on), no ' +
    'random message loss; every fault ends 2 minutes before the late writer comes back, so ' +
    'all replicas see the same pushes when they judge its catch-up (a replica that missed ' +
    "some would judge samples at the window's edge on its own, leaving them on one replica, " +
    'which quorum reads may or may not return).',
  derive(doc: ScenarioDoc, r: RandomStream): DerivedMix {
    const summary: string[] = [];
    // Exactly three ingesters: with more, each holds only some series, its own newest sample
    // time decides, and the model can no longer say which late samples must be refused.
    const ingesters = numbered('ingester', 3);
    doc.topology = {
      nodes: [
        { name: 'distributor-1', run: 'distributor' },
        ...ingesters.map((name) => ({ name, run: 'ingester' })),
        { name: 'querier-1', run: 'querier' },
        { name: 'writer-steady', run: 'writer' },
        { name: 'writer-late', run: 'writer' },
        { name: 'reader', run: 'reader' },
      ],
    };
    const duplication = chance(r, 0.5) ? drawNumber(r, [0.005, 0.03], 0.0005) : 0;
    const network: Record<string, unknown> = {
      latency: drawNetworkLatency(r),
    };
    if (duplication > 0) network.duplication = duplication;
    doc.network = network;
    summary.push(rateSummary('duplication', duplication));

    const workload = workloadOf(doc);
    const fromMin = drawInt(r, [3, 8]);
    const lastsMin = drawInt(r, [64, 72]);
    workload.outages = {
      'writer-late': [{ from: `${fromMin}m`, until: `${fromMin + lastsMin}m` }],
    };
    summary.push(`writer-late out +${fromMin}m..+${fromMin + lastsMin}m`);
    const scrape = workload.scrape as Record<string, unknown>;
    scrape.series = drawInt(r, [2, 5]);
    summary.push(`${scrape.series as number} series per tenant`);

    const kinds = (
      [
        ['crash', 0.8],
        ['partition_to_ingester', 0.4],
        ['partition_from_ingester', 0.3],
        ['partition_to_writer', 0.4],
        ['partition_from_writer', 0.3],
      ] as const
    )
      .filter(([, p]) => chance(r, p))
      .map(([k]): EpisodeKind => k);
    // Faults end 2 minutes before the late writer returns (the scrapes stop at 85m).
    const bounds: EpisodeBounds = {
      fromMs: 2 * MINUTE,
      untilMs: (fromMin + lastsMin - 2) * MINUTE,
      gapMs: [30_000, 10 * MINUTE],
      downMs: [2_000, 40_000],
      partitionMs: [2_000, 20_000],
      kinds,
      distributor: 'distributor-1',
      ingesters,
      writers: ['writer-steady', 'writer-late'],
      powerLossAllowed: false,
    };
    doc.faults = {};
    const episodes = generateEpisodes(bounds, r);
    summary.push(
      kinds.length === 0 ? 'no episodes' : `episodes: ${kinds.join(',')} (${episodes.length})`,
    );
    return { summary, episodes, bounds };
  },
};
