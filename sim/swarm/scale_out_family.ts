import type { RandomStream } from '../../src/runtime/index.js';
import {
  chance,
  drawInt,
  drawNumber,
  ms,
  pickOne,
  drawNetworkLatency,
  rateSummary,
} from './draw.js';
import { generateEpisodes, type EpisodeBounds, type EpisodeKind } from './episodes.js';
import {
  numbered,
  workloadOf,
  type DerivedMix,
  type ScenarioDoc,
  type SwarmFamily,
} from './family.js';

/** Faults start at or after this offset and are all over by `FAULTS_UNTIL_MS`. */
const FAULTS_FROM_MS = 8_000;
/** The base's scrapes run 3s–2m15s, its read phases are at +55s and +1m40s, final reads at 2m45s. */
export const FAULTS_UNTIL_MS = 110_000;
/** A joiner counts as a ring member (ACTIVE, seen by every distributor) this long after it starts. */
export const JOIN_READY_MS = 10_000;
/** A leaver is out of every ring view (LEAVING, unregistered, watched) this long after its stop. */
export const LEAVE_SETTLE_MS = 5_000;
export const MAX_LOSS = 0.03;

interface Window {
  from: number;
  until: number;
}

/**
 * `scale-out` under a drawn mix: 1–3 distributors, queriers and writers, 3–5 ingesters (RF 3)
 * with up to two joining and up to two leaving gracefully, distributor crashes, querier↔
 * ingester partitions, message-loss windows, ingester episodes (crash, power loss,
 * distributor↔ingester and distributor↔writer partitions) and a crash of every ingester.
 *
 * The order keeps each sample to one lost replica: a departure costs every sample its leaver
 * held one replica (Cortex's blocks storage hands nothing over), so departures come first
 * and every fault that can make a replica miss a push (message loss, ingester episodes) only
 * after the last one settled; two leavers never share a sample (the second joined after the
 * first was gone).
 */
export const scaleOutFamily: SwarmFamily = {
  name: 'scale-out',
  base: 'scale-out',
  promise:
    'RF 3 with quorum writes (2 of 3) and whole-ring reads that skip at most one ingester keep ' +
    'every acknowledged sample readable exactly once while at most one of its replicas is gone: ' +
    'ingesters leave gracefully (no handoff) only before any replica misses a push (message ' +
    'loss, ingester crashes and partitions come 5s+ after the last leave), two leavers never ' +
    'hold the same sample (the second joined after the first was gone), at least 3 ingesters ' +
    'stay in the ring (joiners count 10s after they start); a power loss only with no leave and ' +
    'no message loss, on the one ingester disturbed so far; one fault at a time among ingester ' +
    'episodes, querier↔ingester cuts (one querier from one ingester) and the crash of every ' +
    'ingester (process crashes keep the WAL); one distributor down at a time, never the only ' +
    'one; message loss ≤ 3%; every fault over by +1m50s (scrapes stop at +2m15s). Every ' +
    'acknowledged sample must then be read exactly once in each read, nothing else read, and ' +
    'the PromQL answers must equal the model.',
  derive(doc: ScenarioDoc, r: RandomStream): DerivedMix {
    const summary: string[] = [];
    const distributors = numbered('distributor', drawInt(r, [1, 3]));
    const queriers = numbered('querier', drawInt(r, [1, 3]));
    const writers = numbered('writer', drawInt(r, [1, 3]));
    const initial = numbered('ingester', drawInt(r, [3, 5]));
    summary.push(
      `${distributors.length} distributor(s), ${queriers.length} querier(s), ${writers.length} writer(s)`,
      `${initial.length} ingesters RF 3`,
    );

    // Joiners in start order, named after the initial ingesters.
    const joinTimes = Array.from({ length: drawInt(r, [0, 2]) }, () =>
      drawInt(r, [10_000, 60_000]),
    ).sort((a, b) => a - b);
    const joiners = joinTimes.map((at, i) => ({ name: `ingester-${initial.length + i + 1}`, at }));
    const ringAfterLeaves = (at: number, left: number): number =>
      initial.length - left + joiners.filter((j) => j.at + JOIN_READY_MS <= at).length;

    const leaves: { name: string; at: number }[] = [];
    if (chance(r, 0.65)) {
      let at = drawInt(r, [15_000, 60_000]);
      // Too few ingesters would stay: wait for the joiners needed.
      for (const j of joiners)
        if (ringAfterLeaves(at, 1) < 3) at = Math.max(at, j.at + JOIN_READY_MS);
      if (ringAfterLeaves(at, 1) >= 3 && at <= 75_000)
        leaves.push({ name: pickOne(r, initial), at });
    }
    const first = leaves[0];
    if (first !== undefined && chance(r, 0.6)) {
      // Only a joiner that started after the first leaver was gone shares no sample with it.
      const later = joiners.filter((j) => j.at >= first.at + LEAVE_SETTLE_MS);
      if (later.length > 0) {
        const j = pickOne(r, later);
        const at = j.at + JOIN_READY_MS + drawInt(r, [0, 15_000]);
        if (at <= 80_000 && ringAfterLeaves(at, 2) >= 3) leaves.push({ name: j.name, at });
      }
    }
    const leavers = new Set(leaves.map((l) => l.name));
    const phaseB =
      leaves.length > 0 ? Math.max(...leaves.map((l) => l.at)) + LEAVE_SETTLE_MS : FAULTS_FROM_MS;
    summary.push(
      joiners.length > 0
        ? `joins ${joiners.map((j) => `${j.name}@${j.at}ms`).join(', ')}`
        : 'no joins',
      leaves.length > 0
        ? `leaves ${leaves.map((l) => `${l.name}@${l.at}ms`).join(', ')}`
        : 'no leaves',
    );

    doc.topology = {
      nodes: [
        ...distributors.map((name) => ({ name, run: 'distributor' })),
        ...initial.map((name) => ({ name, run: 'ingester' })),
        ...joiners.map((j) => ({ name: j.name, run: 'ingester', start_at: ms(j.at) })),
        ...queriers.map((name) => ({ name, run: 'querier' })),
        ...writers.map((name) => ({ name, run: 'writer' })),
        { name: 'reader', run: 'reader' },
      ],
    };

    // Message-loss windows, after the last departure.
    const loss: (Window & { rate: number })[] = [];
    if (chance(r, 0.45)) {
      let t = phaseB + drawInt(r, [0, 15_000]);
      for (let k = drawInt(r, [1, 2]); k > 0; k--) {
        const until = t + drawInt(r, [5_000, 30_000]);
        if (until > FAULTS_UNTIL_MS) break;
        loss.push({ from: t, until, rate: drawNumber(r, [0.005, MAX_LOSS], 0.0005) });
        t = until + drawInt(r, [3_000, 15_000]);
      }
    }
    summary.push(
      loss.length > 0
        ? `message loss ${loss.map((w) => `${+(w.rate * 100).toFixed(2)}% ${w.from}..${w.until}ms`).join(', ')}`
        : 'no message loss',
    );

    // Ingester episodes, one at a time, after the last departure, on ingesters in the ring.
    const targets = [
      ...initial.filter((n) => !leavers.has(n)),
      ...joiners
        .filter((j) => !leavers.has(j.name) && j.at + JOIN_READY_MS <= phaseB)
        .map((j) => j.name),
    ];
    const powerLossAllowed = leaves.length === 0 && loss.length === 0;
    const kinds = (
      [
        ['crash', 0.8],
        ['power_loss', powerLossAllowed ? 0.7 : 0],
        ['partition_to_ingester', 0.4],
        ['partition_from_ingester', 0.3],
        ['partition_to_writer', 0.3],
        ['partition_from_writer', 0.3],
      ] as const
    )
      .filter(([, p]) => chance(r, p))
      .map(([k]): EpisodeKind => k);
    const bounds: EpisodeBounds = {
      fromMs: phaseB,
      untilMs: FAULTS_UNTIL_MS,
      gapMs: [3_000, 15_000],
      downMs: [1_000, 15_000],
      partitionMs: [1_000, 8_000],
      kinds,
      distributor: distributors[0]!,
      ingesters: targets,
      writers,
      powerLossAllowed,
    };
    const episodes = generateEpisodes(bounds, r);
    summary.push(
      kinds.length === 0 ? 'no episodes' : `episodes: ${kinds.join(',')} (${episodes.length})`,
    );

    const schedule: unknown[] = [];
    const at = (t: number): string => ms(t);
    for (const l of leaves) schedule.push({ at: at(l.at), stop: l.name });

    // The crash of every ingester in the ring, after the last episode.
    const busy: Window[] = episodes.map((e) => ({ from: e.startMs, until: e.endMs }));
    if (chance(r, 0.35)) {
      const start = Math.max(phaseB, ...busy.map((w) => w.until)) + drawInt(r, [3_000, 10_000]);
      const restart = start + 1_000 + drawInt(r, [1_000, 8_000]);
      if (restart <= FAULTS_UNTIL_MS) {
        const ring = [
          ...initial.filter((n) => !leavers.has(n)),
          ...joiners
            .filter((j) => !leavers.has(j.name) && j.at + JOIN_READY_MS <= start)
            .map((j) => j.name),
        ];
        for (const n of ring) schedule.push({ at: at(start + drawInt(r, [0, 1_000])), crash: n });
        for (const n of ring) schedule.push({ at: at(restart), restart: n });
        busy.push({ from: start, until: restart });
        summary.push(`every ingester crashes ${start}..${restart}ms`);
      }
    }

    // Querier-ingester cuts in the time no ingester episode or crash uses.
    const cuts = chance(r, 0.75)
      ? querierCuts(r, freeWindows(busy), queriers, [...initial, ...joiners.map((j) => j.name)])
      : [];
    for (const c of cuts) {
      schedule.push({ at: at(c.from), ...c.action });
      schedule.push({ at: at(c.until), heal: true });
    }
    summary.push(`${cuts.length} querier-ingester cut(s)`);

    // Loss windows; a `heal` inside one (it resets the network) turns the loss back on.
    const heals = [
      ...episodes.filter((e) => e.kind !== 'crash' && e.kind !== 'power_loss').map((e) => e.endMs),
      ...cuts.map((c) => c.until),
    ];
    for (const w of loss) {
      schedule.push({ at: at(w.from), message_loss: w.rate });
      for (const h of heals)
        if (h >= w.from && h < w.until) schedule.push({ at: at(h), message_loss: w.rate });
      schedule.push({ at: at(w.until), message_loss: 'off' });
    }

    // Distributor crashes, one at a time, only with another distributor up.
    if (distributors.length > 1 && chance(r, 0.7)) {
      let t = FAULTS_FROM_MS + drawInt(r, [0, 20_000]);
      let n = 0;
      for (;;) {
        const end = t + drawInt(r, [1_000, 10_000]);
        if (end > FAULTS_UNTIL_MS) break;
        const d = pickOne(r, distributors);
        schedule.push({ at: at(t), crash: d }, { at: at(end), restart: d });
        n++;
        t = end + drawInt(r, [3_000, 30_000]);
      }
      summary.push(`${n} distributor crash(es)`);
    }

    const duplication = chance(r, 0.6) ? drawNumber(r, [0.005, 0.04], 0.0005) : 0;
    const network: Record<string, unknown> = {
      latency: drawNetworkLatency(r),
    };
    if (duplication > 0) network.duplication = duplication;
    doc.network = network;
    summary.push(rateSummary('duplication', duplication));
    (doc.disk as Record<string, unknown>).torn_writes = chance(r, 0.7);

    const scrape = workloadOf(doc).scrape as Record<string, unknown>;
    scrape.series = drawInt(r, [4, 12]);
    summary.push(`${scrape.series as number} series per tenant`);
    return { summary, episodes, bounds, schedule };
  },
};

/** What `busy` (in time order) leaves free of [FAULTS_FROM_MS, FAULTS_UNTIL_MS], 1s from each. */
function freeWindows(busy: readonly Window[]): Window[] {
  const out: Window[] = [];
  let t = FAULTS_FROM_MS;
  for (const b of busy) {
    out.push({ from: t, until: b.from - 1_000 });
    t = b.until + 1_000;
  }
  out.push({ from: t, until: FAULTS_UNTIL_MS });
  return out.filter((w) => w.until - w.from >= 2_000);
}

interface Cut extends Window {
  action: Record<string, unknown>;
}

/** One querier cut off from one ingester at a time: both ways, or requests or answers lost. */
function querierCuts(
  r: RandomStream,
  windows: readonly Window[],
  queriers: readonly string[],
  ingesters: readonly string[],
): Cut[] {
  const out: Cut[] = [];
  for (const w of windows) {
    let t = w.from + drawInt(r, [0, 10_000]);
    for (;;) {
      const until = t + drawInt(r, [1_000, 10_000]);
      if (until > w.until) break;
      const q = pickOne(r, queriers);
      const i = pickOne(r, ingesters);
      const way = r.int(3);
      const action =
        way === 0
          ? { partition: [[q], [i]] }
          : way === 1
            ? { partition_one_way: { from: q, to: i } }
            : { partition_one_way: { from: i, to: q } };
      out.push({ from: t, until, action });
      t = until + drawInt(r, [2_000, 15_000]);
    }
  }
  return out;
}
