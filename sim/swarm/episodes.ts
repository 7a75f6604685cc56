import type { RandomStream } from '../../src/runtime/index.js';
import { drawInt, pickOne, type Bounds } from './draw.js';

/**
 * A swarm run's node faults as a sequence of episodes, one at a time: each disturbs one node
 * (or one link) for a while and ends (restart, heal) before the next starts, after a pause
 * long enough for the node to replay its WAL and heartbeat again. Keeping them apart is what
 * makes a failure meaningful: replication factor 3 with quorum writes and reads promises to
 * survive one replica failing per sample, not two at once.
 */
export type EpisodeKind =
  /** The ingester's process crashes (its page cache survives) and restarts. */
  | 'crash'
  /** The ingester loses power: everything it wrote since its last fsync is gone or torn. */
  | 'power_loss'
  /** Pushes from the distributor to the ingester are lost (it misses those samples). */
  | 'partition_to_ingester'
  /** The ingester's answers to the distributor are lost (it stores, the distributor sees failures). */
  | 'partition_from_ingester'
  /** The distributor's answers to a writer are lost: pushes time out, stored, and are retried. */
  | 'partition_to_writer'
  /** A writer's pushes to the distributor are lost: it retries with backoff. */
  | 'partition_from_writer';

export const EPISODE_KINDS: readonly EpisodeKind[] = [
  'crash',
  'power_loss',
  'partition_to_ingester',
  'partition_from_ingester',
  'partition_to_writer',
  'partition_from_writer',
];

export interface Episode {
  kind: EpisodeKind;
  /** The ingester or writer it disturbs. */
  node: string;
  startMs: number;
  endMs: number;
}

export interface EpisodeBounds {
  /** Episodes start at or after this offset and end by `untilMs`. */
  fromMs: number;
  untilMs: number;
  /** Pause between the end of one episode and the start of the next. */
  gapMs: Bounds;
  /** How long a crashed or powered-off node stays down. */
  downMs: Bounds;
  /** How long a partition lasts. */
  partitionMs: Bounds;
  kinds: readonly EpisodeKind[];
  distributor: string;
  ingesters: readonly string[];
  writers: readonly string[];
  /**
   * False when something else already costs samples a replica (random message loss): a
   * power loss on top would be a second replica failure for the same sample.
   */
  powerLossAllowed: boolean;
}

/**
 * Draws episodes until the window is full. A power loss takes from its ingester every sample
 * written since its last fsync, i.e. since it started: it is a replica failure for all of
 * them. So a power loss of ingester X is drawn only while no other ingester has missed or
 * lost anything yet (X may lose power again; crashes of others may follow, their page cache
 * survives). Otherwise a drawn power loss becomes a crash.
 */
export function generateEpisodes(b: EpisodeBounds, r: RandomStream): Episode[] {
  const out: Episode[] = [];
  if (b.kinds.length === 0) return out;
  const disturbed = new Set<string>();
  let t = b.fromMs + drawInt(r, b.gapMs);
  for (;;) {
    let kind = pickOne(r, b.kinds);
    const onWriter = kind === 'partition_to_writer' || kind === 'partition_from_writer';
    const targets = onWriter ? b.writers : b.ingesters;
    if (targets.length === 0) break;
    let node = pickOne(r, targets);
    if (kind === 'power_loss') {
      const others = [...disturbed].filter((n) => n !== node);
      if (!b.powerLossAllowed) kind = 'crash';
      else if (others.length > 0) {
        // Only the one ingester disturbed so far may lose power; else crash instead.
        if (disturbed.size === 1) node = [...disturbed][0]!;
        else kind = 'crash';
      }
    }
    const lasts =
      kind === 'crash' || kind === 'power_loss' ? drawInt(r, b.downMs) : drawInt(r, b.partitionMs);
    if (t + lasts > b.untilMs) break;
    out.push({ kind, node, startMs: t, endMs: t + lasts });
    if (!onWriter) disturbed.add(node);
    t += lasts + drawInt(r, b.gapMs);
  }
  return out;
}

/** The episodes as `schedule:` entries of a scenario file. */
export function episodeSchedule(episodes: readonly Episode[], distributor: string): unknown[] {
  const entries: unknown[] = [];
  const at = (t: number): string => `${t}ms`;
  for (const e of episodes) {
    switch (e.kind) {
      case 'crash':
      case 'power_loss':
        entries.push({ at: at(e.startMs), [e.kind]: e.node });
        entries.push({ at: at(e.endMs), restart: e.node });
        break;
      case 'partition_to_ingester':
      case 'partition_to_writer':
        entries.push({ at: at(e.startMs), partition_one_way: { from: distributor, to: e.node } });
        entries.push({ at: at(e.endMs), heal: true });
        break;
      case 'partition_from_ingester':
      case 'partition_from_writer':
        entries.push({ at: at(e.startMs), partition_one_way: { from: e.node, to: distributor } });
        entries.push({ at: at(e.endMs), heal: true });
        break;
    }
  }
  return entries;
}

/**
 * Checks a sequence of episodes against the promise (used by tests over many profiles):
 * returns the first violation, or undefined.
 */
export function episodePromiseViolation(
  episodes: readonly Episode[],
  b: Pick<EpisodeBounds, 'fromMs' | 'untilMs' | 'powerLossAllowed' | 'writers'>,
): string | undefined {
  const disturbed = new Set<string>();
  let lastEnd = -Infinity;
  for (const [i, e] of episodes.entries()) {
    if (e.startMs < b.fromMs || e.endMs > b.untilMs)
      return `episode ${i} (${e.kind} ${e.node}) outside [${b.fromMs}, ${b.untilMs}]ms`;
    if (e.startMs <= lastEnd) return `episode ${i} (${e.kind} ${e.node}) overlaps the previous one`;
    if (e.kind === 'power_loss') {
      if (!b.powerLossAllowed) return `episode ${i}: power loss while message loss is on`;
      const others = [...disturbed].filter((n) => n !== e.node);
      if (others.length > 0)
        return `episode ${i}: power loss of ${e.node} after ${others.join(', ')} missed samples`;
    }
    if (!b.writers.includes(e.node)) disturbed.add(e.node);
    lastEnd = e.endMs;
  }
  return undefined;
}
