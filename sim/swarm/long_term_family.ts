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
import type { Episode, EpisodeBounds, EpisodeKind } from './episodes.js';
import {
  numbered,
  workloadOf,
  type DerivedMix,
  type ScenarioDoc,
  type SwarmFamily,
} from './family.js';
import {
  LT_FAULTS_FROM_MS,
  LT_FAULTS_UNTIL_MS,
  LT_MARKS_FROM_MS,
  LT_MARKS_UNTIL_MS,
  LT_NON_VICTIM_AFTER_MARKS_MS,
  firstMarkFloorMs,
  minRetentionMs,
  type LtWindow,
  type RetentionInputs,
} from './long_term_promise.js';
import {
  CUTOFF_MAX_MS,
  drawIngesterEpisodes,
  ingesterSchedule,
  type IngesterEpisode,
} from './long_term_episodes.js';

const S = 1_000;
const MINUTE = 60_000;

/** The long-term settings a profile draws (ms), written into `workload.long_term`. */
interface LtSettings extends Omit<RetentionInputs, 'longestWindow'> {
  deletionDelay: number;
  ignoreMarkDelay: number;
  retention: number;
}

/**
 * `long-term` under a drawn fault mix: object-store weather (latency, error rate, eventual
 * listing, error bursts and throttling windows), store-gateway crashes and graceful stops
 * one at a time, ingester episodes one at a time (crash, power loss, graceful stop with
 * flush, cut off from the bucket, cut off and losing power before it could ship), the
 * operator's deletion of one replica's blocks or not, and the block range, shipping,
 * retention and sync intervals. The retention is derived from the other settings so that a
 * block always reaches the store-gateways before its ingester deletes it locally.
 */
export const longTermFamily: SwarmFamily = {
  name: 'long-term',
  base: 'long-term',
  // 16 minutes virtual, 4–8 s of CPU a seed: `--scenario-family long-term` runs it.
  inDefaultSwarm: false,
  promise:
    'replication factor 3 with quorum writes and reads survives one replica failure per sample, ' +
    'and one copy of a block in the bucket is enough once the store-gateways loaded it: 3 ' +
    'ingesters, at most one crashed, stopped, powered off or cut off from the bucket at a time; ' +
    'a power loss only hits the one ingester disturbed so far, never with message loss; when the ' +
    "operator has one replica's blocks deleted, every ingester fault before the last mark (+30s) " +
    'hits that replica, and only it may lose power; 2 store-gateways RF 2, at most one down, the ' +
    'next going down only 2 sync intervals + 60s after the last came back; object-store error ' +
    'bursts (at most 50%), throttling and bucket cut-offs never overlap and last at most 90s; the ' +
    'retention exceeds half a block range + compaction and ship intervals + listing delay + the ' +
    "cleaner's interval + the querier's index refresh + a sync interval + consistency delay + the " +
    'longest fault window, so no block is deleted locally before the store-gateways serve it; ' +
    'the store-gateways ignore a mark well before the cleaner deletes the block; every fault ends ' +
    'by +12m30s. Every acknowledged sample must then be read exactly once at each read, every cut ' +
    'block must reach the bucket, and no block may leave it before its deletion delay.',
  derive(doc: ScenarioDoc, r: RandomStream): DerivedMix {
    const summary: string[] = [];
    const ingesters = numbered('ingester', 3);
    const gateways = numbered('store-gateway', 2);

    const network: Record<string, unknown> = {
      latency: drawNetworkLatency(r),
    };
    // Never random message loss: a power loss is the one replica failure a sample may suffer.
    const duplication = chance(r, 0.6) ? drawNumber(r, [0.005, 0.03], 0.0005) : 0;
    if (duplication > 0) network.duplication = duplication;
    doc.network = network;
    const tornWrites = chance(r, 0.7);
    doc.disk = {
      latency: { distribution: 'uniform', min: '0ms', max: ms(drawInt(r, [1, 3])) },
      fsync_latency: { distribution: 'uniform', min: '1ms', max: ms(drawInt(r, [2, 15])) },
      torn_writes: tornWrites,
    };
    const store = {
      latency: {
        distribution: 'uniform',
        min: ms(drawInt(r, [1, 10])),
        max: ms(drawInt(r, [15, 60])),
      },
      error_rate: drawNumber(r, [0, 0.02], 0.001),
      list_delay: ms(drawInt(r, [0, 10]) * S),
    };
    doc.object_store = store;
    summary.push(
      rateSummary('duplication', duplication),
      tornWrites ? 'torn writes' : 'no torn writes',
      `object store errors ${+(store.error_rate * 100).toFixed(1)}%, list delay ${store.list_delay}`,
    );

    const kinds = (
      [
        ['crash', 0.8],
        ['power_loss', 0.5],
        ['stop', 0.5],
        ['cutoff', 0.6],
      ] as const
    )
      .filter(([, p]) => chance(r, p))
      .map(([k]) => k);
    if (kinds.length === 0) kinds.push('crash');
    const windows = drawStoreWindows(r);
    // A cut-off from the bucket delays shipping like an object-store window does.
    const longestWindow = Math.max(
      kinds.includes('cutoff') ? CUTOFF_MAX_MS : 0,
      ...windows.map((w) => w.endMs - w.startMs),
    );
    const lt = drawSettings(r, parseMs(store.list_delay), longestWindow);
    summary.push(
      `block range ${lt.blockRange / S}s, retention ${lt.retention / S}s`,
      `ship ${lt.ship / S}s, sync ${lt.sync / S}s, cleanup ${lt.cleanup / S}s`,
    );

    const workload = workloadOf(doc);
    workload.block_range = ms(lt.blockRange);
    const longTerm = workload.long_term as Record<string, unknown>;
    Object.assign(longTerm, {
      ship_interval: ms(lt.ship),
      retention_period: ms(lt.retention),
      head_compaction_interval: ms(lt.headCompaction),
      sync_interval: ms(lt.sync),
      consistency_delay: ms(lt.consistencyDelay),
      ignore_deletion_mark_delay: ms(lt.ignoreMarkDelay),
      cleanup_interval: ms(lt.cleanup),
      deletion_delay: ms(lt.deletionDelay),
      flush_on_shutdown: true,
    });
    let victim: string | undefined;
    let marksOverMs = 0;
    if (chance(r, 0.6)) {
      victim = pickOne(r, ingesters);
      // The victim's first block is cut 1.5 block ranges in; 3 minutes more for shipping
      // through cut-offs and object-store windows, so the first mark finds blocks to mark.
      const first = Math.max(LT_MARKS_FROM_MS, firstMarkFloorMs(lt.blockRange));
      const at = [drawInt(r, [first / S, 9 * 60]) * S];
      if (chance(r, 0.5)) at.push(Math.min(LT_MARKS_UNTIL_MS, at[0]! + drawInt(r, [40, 90]) * S));
      longTerm.mark_for_deletion = { ingester: victim, at: at.map(ms) };
      marksOverMs = at[at.length - 1]! + LT_NON_VICTIM_AFTER_MARKS_MS;
      summary.push(
        `operator deletes ${victim}'s blocks at ${at.map((t) => `+${t / S}s`).join(',')}`,
      );
    } else {
      delete longTerm.mark_for_deletion;
      summary.push('no operator deletion');
    }
    const scrape = workload.scrape as Record<string, unknown>;
    scrape.series = drawInt(r, [2, 8]);
    summary.push(`${scrape.series as number} series per tenant`);
    const episodes = drawIngesterEpisodes(r, { kinds, ingesters, victim, marksOverMs, windows });
    // A power loss of the victim before the last mark may empty its head again and again
    // (its WAL is not synced per push), so it may have shipped nothing to mark: deletions are
    // then still judged, but not required.
    const expectDeletions =
      victim !== undefined &&
      !episodes.some(
        (e) =>
          e.node === victim &&
          (e.kind === 'power_loss' || e.kind === 'cutoff_power_loss') &&
          e.startMs < marksOverMs,
      );
    doc.checks = (doc.checks as unknown[]).map((c) =>
      typeof c === 'object' && c !== null && 'deletion_delay_honoured' in c
        ? { deletion_delay_honoured: { expect_deletions: expectDeletions } }
        : c,
    );
    const gatewayEpisodes = drawGatewayEpisodes(r, gateways, lt.sync);
    summary.push(
      `store windows: ${windows.map((w) => w.kind).join(',') || 'none'}`,
      `ingester episodes: ${kinds.join(',')} (${episodes.length})`,
      `store-gateway episodes: ${gatewayEpisodes.length}`,
    );

    const episodeKinds: EpisodeKind[] = ['crash'];
    if (kinds.includes('power_loss')) episodeKinds.push('power_loss');
    const bounds: EpisodeBounds = {
      fromMs: LT_FAULTS_FROM_MS,
      untilMs: LT_FAULTS_UNTIL_MS,
      gapMs: [20 * S, 60 * S],
      downMs: [5 * S, 40 * S],
      partitionMs: [20 * S, CUTOFF_MAX_MS],
      kinds: episodeKinds,
      distributor: 'distributor-1',
      ingesters,
      writers: ['writer-1'],
      powerLossAllowed: true,
    };
    // Crashes and power losses go through the shared episode schedule; the rest is ours.
    const plain = episodes.filter(
      (e): e is Episode & IngesterEpisode => e.kind === 'crash' || e.kind === 'power_loss',
    );
    const schedule = [
      ...windows.flatMap(windowSchedule),
      ...episodes.flatMap(ingesterSchedule),
      ...gatewayEpisodes.flatMap((e) => [
        { at: ms(e.startMs), [e.kind]: e.node },
        { at: ms(e.endMs), [e.kind === 'stop' ? 'start' : 'restart']: e.node },
      ]),
    ];
    doc.faults = {};
    return { summary, episodes: plain, bounds, schedule };
  },
};

function parseMs(text: string): number {
  return Number(/^(\d+)ms$/.exec(text)![1]);
}

/** Error bursts and throttling windows, one after another (never overlapping). */
function drawStoreWindows(r: RandomStream): LtWindow[] {
  const kinds: ('errors' | 'throttle')[] = [];
  for (let i = drawInt(r, [0, 2]); i > 0; i--) kinds.push('errors');
  for (let i = drawInt(r, [0, 2]); i > 0; i--) kinds.push('throttle');
  const out: LtWindow[] = [];
  let t = LT_FAULTS_FROM_MS + drawInt(r, [0, 60]) * S;
  while (kinds.length > 0) {
    const kind = kinds.splice(r.int(kinds.length), 1)[0]!;
    const lasts = drawInt(r, kind === 'errors' ? [10, 60] : [15, 60]) * S;
    if (t + lasts > LT_FAULTS_UNTIL_MS) break;
    out.push(
      kind === 'errors'
        ? { kind, startMs: t, endMs: t + lasts, rate: drawNumber(r, [0.1, 0.5], 0.05) }
        : {
            kind,
            startMs: t,
            endMs: t + lasts,
            opsPerSecond: drawInt(r, [2, 10]),
            burst: drawInt(r, [3, 10]),
          },
    );
    t += lasts + drawInt(r, [30, 150]) * S;
  }
  return out;
}

function drawSettings(r: RandomStream, listDelay: number, longestWindow: number): LtSettings {
  const blockRange = pickOne(r, [90 * S, 2 * MINUTE, 3 * MINUTE]);
  const ship = drawInt(r, [5, 20]) * S;
  const headCompaction = drawInt(r, [5, 20]) * S;
  const sync = drawInt(r, [10, 30]) * S;
  const consistencyDelay = chance(r, 0.4) ? drawInt(r, [1, 10]) * S : 0;
  const cleanup = drawInt(r, [10, 30]) * S;
  const deletionDelay = drawInt(r, [120, 180]) * S;
  // The store-gateways learn of a mark through the cleaner's index and their next sync, and
  // must have dropped the block before the cleaner deletes it.
  const ignoreMax = Math.min(90 * S, deletionDelay - (sync + cleanup + listDelay + 20 * S));
  const ignoreMarkDelay = drawInt(r, [30, ignoreMax / S]) * S;
  const retention =
    minRetentionMs({
      blockRange,
      ship,
      headCompaction,
      sync,
      consistencyDelay,
      cleanup,
      listDelay,
      longestWindow,
    }) +
    drawInt(r, [0, 60]) * S;
  return {
    blockRange,
    ship,
    headCompaction,
    sync,
    consistencyDelay,
    cleanup,
    listDelay,
    deletionDelay,
    ignoreMarkDelay,
    retention: Math.max(retention, blockRange + 30 * S),
  };
}

/** Store-gateway crashes and graceful stops, one at a time, each back long before the next. */
function drawGatewayEpisodes(
  r: RandomStream,
  gateways: readonly string[],
  syncMs: number,
): { kind: 'crash' | 'stop'; node: string; startMs: number; endMs: number }[] {
  const out: { kind: 'crash' | 'stop'; node: string; startMs: number; endMs: number }[] = [];
  let t = LT_FAULTS_FROM_MS + drawInt(r, [30, 240]) * S;
  for (let n = drawInt(r, [0, 3]); n > 0; n--) {
    const lasts = drawInt(r, [10, 60]) * S;
    if (t + lasts > LT_FAULTS_UNTIL_MS) break;
    const kind = chance(r, 0.3) ? 'stop' : 'crash';
    out.push({ kind, node: pickOne(r, gateways), startMs: t, endMs: t + lasts });
    t += lasts + 2 * syncMs + 60 * S + drawInt(r, [0, 120]) * S;
  }
  return out;
}

function windowSchedule(w: LtWindow): unknown[] {
  return w.kind === 'errors'
    ? [
        { at: ms(w.startMs), objstore_errors: w.rate },
        { at: ms(w.endMs), objstore_errors: 0 },
      ]
    : [
        {
          at: ms(w.startMs),
          objstore_throttle: { ops_per_second: w.opsPerSecond, burst: w.burst },
        },
        { at: ms(w.endMs), objstore_throttle: 'off' },
      ];
}
