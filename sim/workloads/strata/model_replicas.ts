/** A lifecycle event of an ingester node, as the fault schedule applies it. */
export type ReplicaEventKind = 'crash' | 'power_loss' | 'stop' | 'start' | 'restart';

export interface ReplicaEvent {
  /** Absolute virtual time. */
  at: number;
  node: string;
  kind: ReplicaEventKind;
}

export interface ReplicaHistoryConfig {
  /** Every ingester node; each starts at `startAt`. */
  nodes: readonly string[];
  startAt: number;
  /** Lifecycle events of the ingesters (any order; events of other nodes are ignored). */
  events: readonly ReplicaEvent[];
  /**
   * Whether a graceful stop flushes the head (`flush_on_shutdown_with_wal_enabled`): a
   * forced head compaction whose floor (max time + 1) the restarted head keeps.
   */
  flushOnStop: boolean;
  /**
   * How long after a (re)start a replica may still fail pushes while it opens its
   * databases and rejoins the ring: pushes sent earlier do not count towards its max time.
   */
  readyGraceMs: number;
}

interface UpPeriod {
  from: number;
  /** Exclusive; Infinity while up at the end of the history. */
  until: number;
}

interface ReplicaTimeline {
  ups: UpPeriod[];
  /**
   * Times after which the replica's head max time may be lower than before: a power loss
   * (the WAL's unsynced tail is gone) or a flushing stop (the restarted head is empty).
   */
  resets: number[];
  /** Flushing stops: [stop time, next start (Infinity if never)]. */
  flushes: { at: number; restartAt: number }[];
}

/**
 * What the reference model needs to know about each ingester's life: when it could append
 * pushes, and when its head may have lost its max time. Built from the fault schedule, so
 * it is known before the run and never observes simulated code.
 *
 * A process crash keeps the page cache, so the WAL replays every committed sample the
 * newest block does not already hold, and the head's max time comes back. Regular head
 * compaction cuts only ranges that end more than half a block range before the max time,
 * so the replay floor (the newest block's max time) never reaches the max time either. A
 * power loss may drop the WAL's unsynced tail (the max time falls back); a forced flush
 * leaves a head that is empty after a restart.
 */
export class ReplicaHistory {
  private readonly timelines = new Map<string, ReplicaTimeline>();

  constructor(readonly config: ReplicaHistoryConfig) {
    const events = [...config.events].sort((a, b) => a.at - b.at);
    for (const node of config.nodes) {
      const ups: UpPeriod[] = [];
      const resets: number[] = [];
      const flushes: { at: number; restartAt: number }[] = [];
      let upSince: number | undefined = config.startAt;
      let pendingFlush: { at: number; restartAt: number } | undefined;
      const down = (at: number, resets_: boolean): void => {
        if (upSince !== undefined) ups.push({ from: upSince, until: at });
        upSince = undefined;
        if (resets_) resets.push(at);
      };
      const up = (at: number): void => {
        if (upSince !== undefined) return;
        upSince = at;
        if (pendingFlush !== undefined) pendingFlush.restartAt = at;
        pendingFlush = undefined;
      };
      for (const e of events) {
        if (e.node !== node) continue;
        switch (e.kind) {
          case 'crash':
            down(e.at, false);
            break;
          case 'power_loss':
            // A power loss of a node that is down still loses the page cache.
            if (upSince === undefined) resets.push(e.at);
            else down(e.at, true);
            break;
          case 'stop':
            if (upSince === undefined) break;
            down(e.at, config.flushOnStop);
            if (config.flushOnStop) {
              pendingFlush = { at: e.at, restartAt: Infinity };
              flushes.push(pendingFlush);
            }
            break;
          case 'restart':
            // Restarting a running process kills it first (a crash).
            down(e.at, false);
            up(e.at);
            break;
          case 'start':
            up(e.at);
            break;
        }
      }
      if (upSince !== undefined) ups.push({ from: upSince, until: Infinity });
      this.timelines.set(node, { ups, resets, flushes });
    }
  }

  get nodes(): readonly string[] {
    return this.config.nodes;
  }

  /**
   * Whether `node` was up without interruption from `readyGraceMs` before `from` until
   * `until`: it then received and applied every push sent in between (no message loss).
   */
  steadyOver(node: string, from: number, until: number): boolean {
    const t = this.timeline(node);
    return t.ups.some((p) => p.from <= from - this.config.readyGraceMs && p.until > until);
  }

  /** The first moment in [from, until] at which `node` is up, if any. */
  firstUpIn(node: string, from: number, until: number): number | undefined {
    for (const p of this.timeline(node).ups) {
      if (p.until <= from) continue;
      const at = Math.max(p.from, from);
      return at <= until ? at : undefined;
    }
    return undefined;
  }

  /** Whether the head of `node` may have lost its max time in (after, until]. */
  resetIn(node: string, after: number, until: number): boolean {
    return this.timeline(node).resets.some((r) => r > after && r <= until);
  }

  /** The last reset of `node` at or before `t`, or -Infinity. */
  lastResetAtOrBefore(node: string, t: number): number {
    let last = Number.NEGATIVE_INFINITY;
    for (const r of this.timeline(node).resets) if (r <= t) last = r;
    return last;
  }

  /** Forced flushes (of any replica) whose replica was back up by `t`. */
  flushesBackBy(t: number): { node: string; at: number; restartAt: number }[] {
    const out: { node: string; at: number; restartAt: number }[] = [];
    for (const [node, tl] of this.timelines)
      for (const f of tl.flushes) if (f.restartAt <= t) out.push({ node, ...f });
    return out;
  }

  private timeline(node: string): ReplicaTimeline {
    const t = this.timelines.get(node);
    if (t === undefined) throw new Error(`the model knows no ingester ${node}`);
    return t;
  }
}

/** One replica that is always up: the history of a run without ingester faults. */
export function steadyReplicas(startAt = Number.NEGATIVE_INFINITY): ReplicaHistory {
  return new ReplicaHistory({
    nodes: ['replica'],
    startAt,
    events: [],
    flushOnStop: false,
    readyGraceMs: 0,
  });
}
