import {
  ackOf,
  firstSentAt,
  pushStatus,
  rejectionOf,
  type LedgerSample,
  type PushRecord,
  type WriteLedger,
} from './ledger.js';

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
  /** `tsdb.block_ranges_period[0]`: the head refuses samples older than max time − range/2. */
  blockRangeMs: number;
  /**
   * How long after an acknowledgement every replica has surely applied the push. An ack
   * means a quorum applied it; the model only counts it towards the head's max time for
   * pushes sent at least this much later, so a slow third replica cannot make a sample the
   * model calls too old acceptable somewhere.
   */
  settleMs: number;
}

interface TimedMax {
  at: number;
  maxTs: number;
}

/**
 * The reference model: from the ledger alone it says which samples the cluster must have
 * refused, must have stored, or may have stored, and answers queries from that.
 *
 * The ingestion rule (reference §11): a tenant's head refuses a sample older than
 * max(head min valid time, head max time − blockRange/2), with "sample timestamp out of
 * bounds". With an out-of-order window `W` the floor becomes head max time −
 * max(blockRange/2, W) and the refusal says "sample timestamp too old"
 * (docs/tsdb-out-of-order.md). Before any head compaction the min valid time plays no part.
 * The head's max time at the moment a push is appended is not observable, so the model
 * bounds it per push:
 * - lo: the newest timestamp of the tenant's pushes acknowledged at least `settleMs`
 *   before this push was first sent (every replica holds them by then);
 * - hi: the newest timestamp of every push of the tenant sent before this push's last
 *   answer (its own included).
 * A sample older than lo − window must be refused; one at or after hi − window must be
 * accepted; in between the interleaving decides (`either`).
 *
 * Assumptions (true for the scenarios that use it): writers send each series in order
 * (one push in flight per writer and tenant); no head compaction happens during the run
 * (the tenant's samples span less than 1.5 block ranges, which `check` verifies), and a
 * replica's head max time never moves backwards near the rule's boundary (no power loss
 * while late samples arrive).
 */
export class ReferenceModel {
  private readonly tenants = new Map<string, ModelTenant>();
  private readonly acked = new Map<string, TimedMax[]>();
  private readonly sent = new Map<string, TimedMax[]>();
  private readonly bounds = new Map<PushRecord, { lo: number; hi: number }>();

  constructor(
    private readonly ledger: WriteLedger,
    private readonly config: ReferenceModelConfig,
  ) {
    for (const t of config.tenants) this.tenants.set(t.name, t);
    const acked = new Map<string, TimedMax[]>();
    const sent = new Map<string, TimedMax[]>();
    for (const push of ledger.pushes) {
      const first = firstSentAt(push);
      if (first === undefined) continue;
      const maxTs = Math.max(...push.samples.map((s) => s.timestamp));
      listFor(sent, push.tenant).push({ at: first, maxTs });
      const ack = ackOf(push);
      if (ack?.respondedAt !== undefined)
        listFor(acked, push.tenant).push({ at: ack.respondedAt, maxTs });
    }
    for (const [tenant, list] of acked) this.acked.set(tenant, prefixMax(list));
    for (const [tenant, list] of sent) this.sent.set(tenant, prefixMax(list));
  }

  /** The rule's window for a tenant: how far behind its newest sample a sample may be. */
  windowOf(tenant: string): number {
    const ooo = this.tenants.get(tenant)?.outOfOrderWindowMs ?? 0;
    return Math.max(Math.trunc(this.config.blockRangeMs / 2), ooo);
  }

  /** The message a refusal by the rule carries for this tenant. */
  ruleMessageOf(tenant: string): RegExp {
    const ooo = this.tenants.get(tenant)?.outOfOrderWindowMs ?? 0;
    return ooo > 0 ? /sample timestamp too old/ : /sample timestamp out of bounds/;
  }

  /** The bounds on the tenant's head max time when `push` was appended. */
  pushBounds(push: PushRecord): { lo: number; hi: number } {
    let b = this.bounds.get(push);
    if (b !== undefined) return b;
    const first = firstSentAt(push) ?? Number.POSITIVE_INFINITY;
    const last = push.attempts.at(-1);
    const lastAnswer = last === undefined ? first : (last.respondedAt ?? Number.POSITIVE_INFINITY);
    b = {
      lo: maxBefore(this.acked.get(push.tenant), first - this.config.settleMs, true),
      hi: Math.max(
        maxBefore(this.sent.get(push.tenant), lastAnswer, false),
        ...push.samples.map((s) => s.timestamp),
      ),
    };
    this.bounds.set(push, b);
    return b;
  }

  /** What the ingestion rule says of a sample that was sent. */
  verdict(sample: LedgerSample): RuleVerdict {
    if (sample.push === undefined) return 'either';
    const { lo, hi } = this.pushBounds(sample.push);
    const window = this.windowOf(sample.tenant);
    if (sample.timestamp < lo - window) return 'must_reject';
    if (sample.timestamp >= hi - window) return 'must_accept';
    return 'either';
  }

  /**
   * Whether `sample` must be readable by a read that started at `readAt`: acked before the
   * read ⇒ present; refused by the rule ⇒ absent; accepted by the rule in a push refused for
   * other samples (partial acceptance) ⇒ present; never sent ⇒ absent; the rest maybe.
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

  /** The span of a tenant's sent samples, to confirm no head compaction could have happened. */
  sentSpan(tenant: string): number {
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    for (const s of this.ledger.samples(tenant)) {
      if (s.push === undefined) continue;
      if (s.timestamp < min) min = s.timestamp;
      if (s.timestamp > max) max = s.timestamp;
    }
    return max >= min ? max - min : 0;
  }

  /** Throws when a tenant's data would have triggered a head compaction the model ignores. */
  assertNoHeadCompaction(): void {
    for (const tenant of this.ledger.tenants()) {
      const span = this.sentSpan(tenant);
      if (span > 1.5 * this.config.blockRangeMs)
        throw new Error(
          `the model does not cover head compaction: tenant ${tenant}'s samples span ${span}ms, more than 1.5 block ranges`,
        );
    }
  }
}

function listFor(map: Map<string, TimedMax[]>, tenant: string): TimedMax[] {
  let list = map.get(tenant);
  if (list === undefined) {
    list = [];
    map.set(tenant, list);
  }
  return list;
}

/** Sorts by time and turns maxTs into a running maximum. */
function prefixMax(list: TimedMax[]): TimedMax[] {
  list.sort((a, b) => a.at - b.at);
  let m = Number.NEGATIVE_INFINITY;
  return list.map((e) => {
    m = Math.max(m, e.maxTs);
    return { at: e.at, maxTs: m };
  });
}

/** The running maximum of entries with `at` ≤ t (inclusive) or < t (exclusive). */
function maxBefore(list: readonly TimedMax[] | undefined, t: number, inclusive: boolean): number {
  if (list === undefined) return Number.NEGATIVE_INFINITY;
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const at = (list[mid] as TimedMax).at;
    if (inclusive ? at <= t : at < t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? Number.NEGATIVE_INFINITY : (list[lo - 1] as TimedMax).maxTs;
}
