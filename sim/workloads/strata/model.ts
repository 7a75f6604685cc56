import {
  ackOf,
  firstSentAt,
  pushStatus,
  rejectionOf,
  type LedgerSample,
  type PushRecord,
  type WriteLedger,
} from './ledger.js';
import { steadyReplicas, type ReplicaHistory } from './model_replicas.js';

/** What the ingestion rule (reference §11, plus a tenant's out-of-order window) says of a sample. */
export type RuleVerdict = 'must_accept' | 'must_reject' | 'either';

/** Whether a sample must be readable after the run, must not be, or may be. */
export type Expectation = 'present' | 'absent' | 'maybe';

export interface ModelTenant {
  name: string;
  outOfOrderWindowMs: number;
}

export interface ReferenceModelConfig {
  tenants: readonly ModelTenant[];
  /** `tsdb.block_ranges_period[0]`: the head's chunk range, which head compaction cuts. */
  blockRangeMs: number;
  /**
   * How long after an acknowledgement every replica that was up has surely applied the
   * push. An ack means a quorum applied it; the model only counts it towards a replica's
   * max time this much later, so a slow third replica cannot make a sample the model calls
   * too old acceptable somewhere.
   */
  settleMs: number;
  /** The ingesters' lives (default: one replica, always up). */
  replicas?: ReplicaHistory;
  /**
   * The ingester replication factor. When there are more ingesters than that, a replica
   * holds only some series, its max time is unknown, and the model refuses nothing.
   */
  replicationFactor?: number;
}

/** The model's bounds for one push (absolute ms). */
export interface PushBounds {
  /** Lower bound on the max time of every replica that could append the push. */
  lo: number;
  /** Upper bound on the max time of any replica when it appended the push. */
  hi: number;
  /** Samples older than this must be refused by every replica. */
  refuseBelow: number;
  /** Samples at or after this must be accepted by every replica that appends the push. */
  acceptFrom: number;
}

interface TimedMax {
  at: number;
  maxTs: number;
}

/**
 * The reference model: from the ledger alone it says which samples the cluster must have
 * refused, must have stored, or may have stored, and answers queries from that.
 *
 * The ingestion rule (src/tsdb/head/head_append.ts): a head with max time `maxT` and
 * minimum valid time `mv` takes a sample in order when t ≥ max(mv, maxT − range/2) and t is
 * after its series' newest sample, else (with an out-of-order window W > 0) out of order
 * when t ≥ maxT − W, which ignores `mv`. Refusals say "sample timestamp out of bounds"
 * without a window and "sample timestamp too old" with one. An empty head (after a
 * restart, nothing replayed) takes the push's first sample for `maxT`.
 *
 * What head compaction changes (see docs/simulation.md, "The model across head
 * compaction"): `mv` only. A regular cut ends at a range boundary more than range/2 before
 * the max time, so `mv` stays below maxT − range/2 and the rule is unchanged, also after a
 * crash (the WAL replays from `mv` and restores the max time). A forced flush (graceful
 * stop with flush on shutdown) sets `mv` to its max time + 1, which the restarted head
 * keeps: samples of lagging series at or before it are then refused without a window. A
 * power loss may drop the WAL's tail, and a flushed head restarts empty: the max time falls
 * back and the replica accepts more, never less.
 *
 * The head's state is not observable, so the model bounds it per push:
 * - lo: per replica, the newest timestamp of the tenant's pushes acknowledged at least
 *   `settleMs` before, among pushes the replica was up for from first send to settle and
 *   with no power loss or flush of it since; the minimum over the replicas that could
 *   append the push (up at some moment between its first send and its last answer);
 * - hi: the newest timestamp sent before the push's last answer (its own included).
 * A sample older than lo − max(range/2, W) must be refused; one at or after the upper
 * bound of the floor (hi − range/2, or with W: min(that, hi − W); raised to a forced
 * flush's max time + 1 where one may precede the push) must be accepted; in between the
 * interleaving decides (`either`).
 *
 * Assumptions: writers send each series in order (one push in flight per writer and
 * tenant); no message between distributor and ingesters is lost while judged late
 * samples arrive (lo relies on every up replica getting every push).
 */
export class ReferenceModel {
  private readonly tenants = new Map<string, ModelTenant>();
  private readonly sent = new Map<string, TimedMax[]>();
  /** Tenant → replica → acked pushes counted towards its max time, with running maxima. */
  private readonly replicaMax = new Map<string, Map<string, TimedMax[]>>();
  private readonly replicas: ReplicaHistory;
  private readonly lowerBounded: boolean;
  private readonly bounds = new Map<PushRecord, PushBounds>();

  constructor(
    private readonly ledger: WriteLedger,
    private readonly config: ReferenceModelConfig,
  ) {
    for (const t of config.tenants) this.tenants.set(t.name, t);
    this.replicas = config.replicas ?? steadyReplicas();
    this.lowerBounded =
      config.replicationFactor === undefined ||
      this.replicas.nodes.length <= config.replicationFactor;
    const sent = new Map<string, TimedMax[]>();
    for (const push of ledger.pushes) {
      const first = firstSentAt(push);
      if (first === undefined) continue;
      const maxTs = maxTimestamp(push.samples);
      listFor(sent, push.tenant).push({ at: first, maxTs });
      const ack = ackOf(push)?.respondedAt;
      if (ack === undefined) continue;
      const settled = ack + config.settleMs;
      let perReplica = this.replicaMax.get(push.tenant);
      if (perReplica === undefined) {
        perReplica = new Map();
        this.replicaMax.set(push.tenant, perReplica);
      }
      for (const node of this.replicas.nodes)
        if (this.replicas.steadyOver(node, first, settled))
          listFor(perReplica, node).push({ at: settled, maxTs });
    }
    for (const [tenant, list] of sent)
      this.sent.set(
        tenant,
        prefixMax(list, () => false),
      );
    for (const perReplica of this.replicaMax.values())
      for (const [node, list] of perReplica)
        perReplica.set(
          node,
          prefixMax(list, (from, to) => this.replicas.resetIn(node, from, to)),
        );
  }

  /** The rule's window for a tenant: how far behind its newest sample a sample may be. */
  windowOf(tenant: string): number {
    return Math.max(Math.trunc(this.config.blockRangeMs / 2), this.oooWindowOf(tenant));
  }

  /** The message a refusal by the rule carries for this tenant. */
  ruleMessageOf(tenant: string): RegExp {
    return this.oooWindowOf(tenant) > 0
      ? /sample timestamp too old/
      : /sample timestamp out of bounds/;
  }

  /** The bounds on the tenant's heads when `push` was appended. */
  pushBounds(push: PushRecord): PushBounds {
    let b = this.bounds.get(push);
    if (b !== undefined) return b;
    const first = firstSentAt(push) ?? Number.POSITIVE_INFINITY;
    const last = push.attempts.at(-1);
    const lastAnswer = last === undefined ? first : (last.respondedAt ?? Number.POSITIVE_INFINITY);
    const lo = this.lowerBound(push.tenant, first, lastAnswer);
    const hi = Math.max(
      maxBefore(this.sent.get(push.tenant), lastAnswer),
      maxTimestamp(push.samples),
    );
    const half = Math.trunc(this.config.blockRangeMs / 2);
    const ooo = this.oooWindowOf(push.tenant);
    const floor = Math.max(this.flushFloor(push.tenant, lastAnswer), hi - half);
    b = {
      lo,
      hi,
      refuseBelow: lo - this.windowOf(push.tenant),
      acceptFrom: ooo > 0 ? Math.min(floor, hi - ooo) : floor,
    };
    this.bounds.set(push, b);
    return b;
  }

  /** What the ingestion rule says of a sample that was sent. */
  verdict(sample: LedgerSample): RuleVerdict {
    if (sample.push === undefined) return 'either';
    return verdictWithin(this.pushBounds(sample.push), sample.timestamp);
  }

  /** `verdict` of each sample of `push`, in order (the push's bounds looked up once). */
  verdicts(push: PushRecord): RuleVerdict[] {
    const b = this.pushBounds(push);
    return push.samples.map((s) => verdictWithin(b, s.timestamp));
  }

  /**
   * Whether `sample` must be readable by a read that started at `readAt`: acked before the
   * read ⇒ present (head compaction, shipping and local deletion must not lose it); refused
   * by the rule ⇒ absent; accepted by the rule in a push refused for other samples (partial
   * acceptance) ⇒ present; never sent ⇒ absent; the rest maybe.
   */
  expectation(sample: LedgerSample, readAt: number): Expectation {
    const push = sample.push;
    switch (pushStatus(push)) {
      case 'unsent':
        return 'absent';
      case 'acked': {
        const ack = ackOf(push!);
        return ack?.respondedAt !== undefined && ack.respondedAt <= readAt ? 'present' : 'maybe';
      }
      case 'rejected': {
        const verdict = this.verdict(sample);
        if (verdict === 'must_reject') return 'absent';
        const rejection = rejectionOf(push!);
        const byRule =
          rejection !== undefined &&
          this.ruleMessageOf(sample.tenant).test(rejection.outcome.message);
        if (verdict === 'must_accept' && byRule && (rejection.respondedAt ?? Infinity) <= readAt)
          return 'present';
        return 'maybe';
      }
      case 'unknown':
        return this.verdict(sample) === 'must_reject' ? 'absent' : 'maybe';
    }
  }

  private oooWindowOf(tenant: string): number {
    return this.tenants.get(tenant)?.outOfOrderWindowMs ?? 0;
  }

  /** The minimum over the replicas that could append a push sent in [first, lastAnswer]. */
  private lowerBound(tenant: string, first: number, lastAnswer: number): number {
    if (!this.lowerBounded) return Number.NEGATIVE_INFINITY;
    let lo = Number.POSITIVE_INFINITY;
    for (const node of this.replicas.nodes) {
      const at = this.replicas.firstUpIn(node, first, lastAnswer);
      if (at === undefined) continue;
      // The max time only grows between resets, so the first moment is the lowest; a reset
      // while the push may still arrive takes the bound away.
      if (this.replicas.resetIn(node, at, lastAnswer)) return Number.NEGATIVE_INFINITY;
      const list = this.replicaMax.get(tenant)?.get(node);
      const i = lastAtOrBefore(list, at);
      const entry = i < 0 ? undefined : list?.[i];
      const v =
        entry === undefined || this.replicas.resetIn(node, entry.at, at)
          ? Number.NEGATIVE_INFINITY
          : entry.maxTs;
      lo = Math.min(lo, v);
    }
    return lo === Number.POSITIVE_INFINITY ? Number.NEGATIVE_INFINITY : lo;
  }

  /**
   * The highest minimum valid time a forced flush may have left on a replica back up by
   * `t`: its head's max time + 1, at most the newest timestamp sent before it restarted.
   */
  private flushFloor(tenant: string, t: number): number {
    let floor = Number.NEGATIVE_INFINITY;
    for (const f of this.replicas.flushesBackBy(t))
      floor = Math.max(floor, maxBefore(this.sent.get(tenant), f.restartAt) + 1);
    return floor;
  }
}

function verdictWithin(b: PushBounds, timestamp: number): RuleVerdict {
  if (timestamp < b.refuseBelow) return 'must_reject';
  if (timestamp >= b.acceptFrom) return 'must_accept';
  return 'either';
}

/** The newest timestamp of `samples` (−∞ for none, as `Math.max()` gives). */
function maxTimestamp(samples: readonly LedgerSample[]): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const s of samples) m = Math.max(m, s.timestamp);
  return m;
}

function listFor<K>(map: Map<K, TimedMax[]>, key: K): TimedMax[] {
  let list = map.get(key);
  if (list === undefined) {
    list = [];
    map.set(key, list);
  }
  return list;
}

/**
 * Sorts by time and turns maxTs into a running maximum, restarted after every entry that
 * `resetBetween(previous.at, entry.at)` separates from the ones before.
 */
function prefixMax(
  list: TimedMax[],
  resetBetween: (from: number, to: number) => boolean,
): TimedMax[] {
  list.sort((a, b) => a.at - b.at);
  let m = Number.NEGATIVE_INFINITY;
  let prev: number | undefined;
  return list.map((e) => {
    if (prev !== undefined && resetBetween(prev, e.at)) m = Number.NEGATIVE_INFINITY;
    prev = e.at;
    m = Math.max(m, e.maxTs);
    return { at: e.at, maxTs: m };
  });
}

/** Index of the last entry with `at` ≤ t, or -1. */
function lastAtOrBefore(list: readonly TimedMax[] | undefined, t: number): number {
  if (list === undefined) return -1;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as TimedMax).at <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The running maximum of the entries with `at` < t. */
function maxBefore(list: readonly TimedMax[] | undefined, t: number): number {
  if (list === undefined) return Number.NEGATIVE_INFINITY;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as TimedMax).at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? Number.NEGATIVE_INFINITY : (list[lo - 1] as TimedMax).maxTs;
}
