import { formatDuration } from '../../fields/index.js';
import { Failures } from '../violations.js';
import type { CheckResult, Violation } from '../workload.js';
import { queryText, type QuerySpec } from './config.js';
import {
  ackOf,
  pushStatus,
  rejectionOf,
  resolvedAt,
  sampleStatus,
  type LedgerSample,
  type PushRecord,
  type WriteLedger,
} from './ledger.js';
import {
  diffVectors,
  evaluateQuery,
  queryWindow,
  type ModelSeries,
  type QueryWindow,
} from './model_query.js';
import type { ReferenceModel, RuleVerdict } from './model.js';
import { observedIn, type ObservedIndex, type ObservedPoints } from './observed_points.js';
import { pushEvents, readEvent, sampleEvents, sampleRef } from './push_events.js';
import type { FinalRead, ReadLog, ReadRound } from './read_log.js';

/** What every check needs to name times relative to the run. */
export interface CheckContext {
  ledger: WriteLedger;
  model: ReferenceModel;
  reads: ReadLog;
  tenants: readonly string[];
  epochMs: number;
  /** Each read's observed points, indexed once per run; without it each check indexes them. */
  observedIndex?: ObservedIndex;
}

function observedOf(ctx: CheckContext, read: FinalRead): ObservedPoints {
  return observedIn(ctx.observedIndex, read);
}

function rel(epochMs: number, t: number | undefined): string {
  return t === undefined ? 'never' : `+${formatDuration(Math.max(0, t - epochMs))}`;
}

/** What a check knows of one violation besides its message. */
type Evidence = Omit<Violation, 'message'>;

/** The evidence of a violation a read showed: the sample's pushes, then the read. */
function readEvidence(read: FinalRead, label: string, s: LedgerSample | undefined): Evidence {
  const events = [
    ...(s === undefined ? [] : sampleEvents(s)),
    readEvent(label, read.tenant, read.startedAt, read.answeredAt),
  ];
  return {
    observedAt: read.answeredAt,
    events,
    ...(s === undefined ? {} : { samples: [sampleRef(s)] }),
  };
}

function describeSample(ctx: CheckContext, s: LedgerSample): string {
  const push = s.push;
  const ack = push === undefined ? undefined : ackOf(push);
  const pushPart =
    push === undefined
      ? 'never sent'
      : `push #${push.id} from ${push.writer}, ${ack === undefined ? pushStatus(push) : `acked at ${rel(ctx.epochMs, ack.respondedAt)}`}`;
  return `${s.tenant} ${s.series} t=${rel(ctx.epochMs, s.timestamp)} value=${s.value} (${pushPart})`;
}

function sameValue(a: number, b: number): boolean {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)) || a === b;
}

/** The read rounds (phases, then the final read) and how failures name them. */
function roundsOf(ctx: CheckContext): { round: ReadRound; prefix: string }[] {
  const rounds = ctx.reads.rounds();
  return rounds.map((round) => ({ round, prefix: rounds.length > 1 ? `${round.label}: ` : '' }));
}

function missingReadFailures(ctx: CheckContext): string[] {
  const out: string[] = [];
  for (const { round, prefix } of roundsOf(ctx))
    for (const t of ctx.tenants)
      if (!round.reads.has(t))
        out.push(
          `${prefix}no ${round.label} of tenant ${t} was answered (${round.errors.get(t) ?? 'never attempted'})`,
        );
  return out;
}

/**
 * Every sample acknowledged (2xx) before a read started (each read phase and the final
 * read) is in that read exactly once with its value, and no sample of a read appears twice.
 */
export function checkAckedReadableExactlyOnce(ctx: CheckContext): CheckResult {
  const failures = new Failures(missingReadFailures(ctx));
  let judged = 0;
  const rounds = roundsOf(ctx);
  for (const { round, prefix } of rounds)
    for (const tenant of ctx.tenants) {
      const read = round.reads.get(tenant);
      if (read === undefined) continue;
      const observed = observedOf(ctx, read);
      for (const [series, points] of observed)
        for (const [ts, values] of points)
          if (values.length > 1)
            failures.add(
              `${prefix}${tenant} ${series} t=${rel(ctx.epochMs, ts)} read ${values.length} times (${values.join(', ')})`,
              readEvidence(read, round.label, ctx.ledger.lookup(tenant, series, ts)),
            );
      // Series by series (the order of `ledger.samples`), so each series is looked up once.
      for (const [series, points] of ctx.ledger.seriesOf(tenant)) {
        const seen = observed.get(series);
        for (const s of points.values()) {
          if (sampleStatus(s) !== 'acked' || ctx.model.expectation(s, read.startedAt) !== 'present')
            continue;
          judged++;
          const values = seen?.get(s.timestamp);
          if (values === undefined)
            failures.add(
              `${prefix}lost: ${describeSample(ctx, s)}`,
              readEvidence(read, round.label, s),
            );
          else if (!values.some((v) => sameValue(v, s.value)))
            failures.add(
              `${prefix}wrong value ${values.join(', ')}: ${describeSample(ctx, s)}`,
              readEvidence(read, round.label, s),
            );
        }
      }
    }
  const where =
    rounds.length > 1
      ? `${rounds.length} reads (${rounds.map((r) => r.round.label).join(', ')})`
      : 'the final reads';
  return failures.verdict(
    'acked_readable_exactly_once',
    'violation(s) of "every acknowledged sample is readable exactly once"',
    `${judged} judgements over ${where}: every sample acknowledged before a read is in it exactly once (${ctx.tenants.length} tenant(s))`,
  );
}

/** Every sample read was written by a writer, with that value, and was not refused or unsent. */
export function checkNoPhantoms(ctx: CheckContext): CheckResult {
  const failures = new Failures(missingReadFailures(ctx));
  let read = 0;
  let unacked = 0;
  for (const { round, prefix } of roundsOf(ctx))
    for (const tenant of ctx.tenants) {
      const answer = round.reads.get(tenant);
      if (answer === undefined) continue;
      const written = ctx.ledger.seriesOf(tenant);
      for (const [series, points] of observedOf(ctx, answer)) {
        const writtenPoints = written.get(series);
        for (const [ts, values] of points) {
          read++;
          const s = writtenPoints?.get(ts);
          if (s === undefined) {
            failures.add(
              `${prefix}${tenant} ${series} t=${rel(ctx.epochMs, ts)} was never written to ${tenant}`,
              {
                ...readEvidence(answer, round.label, undefined),
                samples: [{ tenant, series, timestamp: ts }],
              },
            );
            continue;
          }
          if (!values.every((v) => sameValue(v, s.value)))
            failures.add(
              `${prefix}read value(s) ${values.join(', ')} for ${describeSample(ctx, s)}`,
              readEvidence(answer, round.label, s),
            );
          const status = sampleStatus(s);
          const exp = ctx.model.expectation(s, answer.startedAt);
          if (exp === 'absent')
            failures.add(
              `${prefix}${status === 'unsent' ? 'never-sent' : 'refused'} sample is readable: ${describeSample(ctx, s)}`,
              readEvidence(answer, round.label, s),
            );
          if (status !== 'acked') unacked++;
        }
      }
    }
  return failures.verdict(
    'no_phantoms',
    'phantom sample(s)',
    `all ${read} samples read were written with those values (${unacked} of them not acknowledged: outcome unknown or partially accepted)`,
  );
}

/**
 * The ingestion rule: pushes refused with 4xx are refused because of samples the rule
 * refuses, with the tenant's documented message; no acknowledged push carried a sample the
 * rule refuses; refused samples are not readable and the accepted samples of a refused push
 * are (partial acceptance). `expectRejected` names tenants the scenario must make refuse
 * samples (so a scenario that never reaches the rule cannot pass by accident).
 */
export function checkIngestionRule(
  ctx: CheckContext,
  opts: { expectRejected: readonly string[] },
): CheckResult {
  const failures = new Failures();
  const refusedByTenant = new Map<string, number>();
  const undecidedByTenant = new Map<string, number>();
  let repeated = 0;
  for (const push of ctx.ledger.pushes) {
    const status = pushStatus(push);
    const verdicts = ctx.model.verdicts(push);
    const tooOld = push.samples.filter((_, i) => verdicts[i] === 'must_reject');
    const undecided = verdicts.filter((v) => v === 'either').length;
    if (undecided > 0)
      undecidedByTenant.set(push.tenant, (undecidedByTenant.get(push.tenant) ?? 0) + undecided);
    const where = `push #${push.id} of ${push.tenant} from ${push.writer} (sent ${rel(ctx.epochMs, push.attempts[0]?.sentAt)})`;
    if (status === 'acked' && tooOld.length > 0) {
      const { lo } = ctx.model.pushBounds(push);
      failures.add(
        `${where} was acknowledged with ${tooOld.length} sample(s) older than the tenant's newest (${rel(ctx.epochMs, lo)}) minus ${formatDuration(ctx.model.windowOf(push.tenant))}, e.g. ${describeSample(ctx, tooOld[0]!)}`,
        pushEvidence(push, ackOf(push)?.respondedAt, tooOld),
      );
    }
    if (status !== 'rejected') continue;
    const rejection = rejectionOf(push)!;
    const message = rejection.outcome.message;
    if (OUT_OF_ORDER_MESSAGE.test(message) && storedByAnotherDelivery(ctx, push, verdicts)) {
      repeated++;
      continue;
    }
    if (!ctx.model.ruleMessageOf(push.tenant).test(message)) {
      failures.add(
        `${where} was refused (${rejection.outcome.code}) with a message the rule does not give (expected ${String(ctx.model.ruleMessageOf(push.tenant))}): ${message}`,
        pushEvidence(push, rejection.respondedAt, []),
      );
      continue;
    }
    if (verdicts.every((v) => v === 'must_accept')) {
      const { hi } = ctx.model.pushBounds(push);
      failures.add(
        `${where} was refused although every sample is within ${formatDuration(ctx.model.windowOf(push.tenant))} of the tenant's newest (at most ${rel(ctx.epochMs, hi)}): ${message}`,
        pushEvidence(push, rejection.respondedAt, push.samples),
      );
      continue;
    }
    refusedByTenant.set(push.tenant, (refusedByTenant.get(push.tenant) ?? 0) + tooOld.length);
  }
  // What the reads show of refused pushes.
  for (const tenant of ctx.tenants) {
    const read = ctx.reads.finalReads.get(tenant);
    if (read === undefined) continue;
    const observed = observedOf(ctx, read);
    for (const [series, points] of ctx.ledger.seriesOf(tenant)) {
      const seen = observed.get(series);
      for (const s of points.values()) {
        if (s.push === undefined || pushStatus(s.push) === 'acked') continue;
        const present = seen?.has(s.timestamp) === true;
        const exp = ctx.model.expectation(s, read.startedAt);
        if (exp === 'absent' && present)
          failures.add(
            `a sample the rule refuses is readable: ${describeSample(ctx, s)}`,
            readEvidence(read, 'final read', s),
          );
        if (exp === 'present' && !present)
          failures.add(
            `partial acceptance lost a sample the rule accepts (its push was refused for others): ${describeSample(ctx, s)}`,
            readEvidence(read, 'final read', s),
          );
      }
    }
  }
  for (const tenant of opts.expectRejected)
    if ((refusedByTenant.get(tenant) ?? 0) === 0)
      failures.add(
        `tenant ${tenant} never had a sample refused by the rule; the scenario does not exercise it`,
      );
  const counts = ctx.tenants
    .map(
      (t) =>
        `${t}: ${refusedByTenant.get(t) ?? 0} refused (window ${formatDuration(ctx.model.windowOf(t))}, ${undecidedByTenant.get(t) ?? 0} undecided by the interleaving)`,
    )
    .join(', ');
  const again =
    repeated === 0
      ? ''
      : `; ${repeated} push(es) answered "out of order" on a repeated delivery, their samples stored by an earlier one`;
  return failures.verdict(
    'ingestion_rule',
    'violation(s) of the ingestion rule',
    `rejections match the model; ${counts}${again}`,
  );
}

/** The ingesters' refusal of a sample older than its series' newest (in-order heads). */
const OUT_OF_ORDER_MESSAGE = /sample out of order/;

/**
 * Whether a push refused with "out of order" was in fact stored by another delivery of the
 * same request: a duplicated or retried push re-applies samples older than the newest of
 * their series, which Prometheus's head (and so Cortex) refuses as out of order although
 * the first delivery stored them, and that answer may reach the writer first. It was, when
 * every sample the rule does not refuse is in the final read with its value; a refusal
 * that kept anything out is still judged by the rule.
 */
function storedByAnotherDelivery(
  ctx: CheckContext,
  push: PushRecord,
  verdicts: readonly RuleVerdict[],
): boolean {
  const read = ctx.reads.finalReads.get(push.tenant);
  if (read === undefined) return false;
  const observed = observedOf(ctx, read);
  return push.samples.every(
    (s, i) =>
      verdicts[i] === 'must_reject' ||
      observed.get(s.series)?.get(s.timestamp)?.includes(s.value) === true,
  );
}

/** The recorded PromQL answers equal the model's answers over the ledger. */
export function checkModelQueries(ctx: CheckContext, queries: readonly QuerySpec[]): CheckResult {
  const failures = new Failures();
  if (queries.length > 0 && ctx.reads.queryAnswers.length === 0)
    failures.add('no model query was answered');
  for (const answer of ctx.reads.queryAnswers) {
    const spec = queries[answer.query];
    if (spec === undefined) continue;
    const label = `${spec.tenant}: ${queryText(spec)} at ${rel(ctx.epochMs, answer.atMs)}`;
    const evidence = {
      observedAt: answer.answeredAt,
      events: [
        {
          at: answer.startedAt,
          until: answer.answeredAt,
          node: '-',
          kind: 'query',
          detail: label,
        },
      ],
    };
    if (answer.error !== undefined || answer.result === undefined) {
      failures.add(`${label} failed: ${answer.error ?? 'no result'}`, evidence);
      continue;
    }
    const diff = diffVectors(
      answer.result,
      evaluateQuery(
        spec,
        answer.atMs,
        modelData(ctx, spec.tenant, answer.startedAt, {
          metric: spec.metric,
          ...queryWindow(spec, answer.atMs),
        }),
      ),
    );
    if (diff.length > 0) failures.add(`${label}: ${diff.slice(0, 3).join(', ')}`, evidence);
  }
  return failures.verdict(
    'model_queries',
    'query answer(s) differ from the model',
    `${ctx.reads.queryAnswers.length} query answer(s) equal the model's`,
  );
}

/**
 * The data the model answers a query from: samples that must be present, plus samples whose
 * storage the ledger cannot decide (unknown outcome, either side of the rule) when the final
 * read shows them. Without a final read the undecided samples are left out. With `scope`,
 * only what one query reads: its metric's samples within its window (`queryWindow`).
 */
export function modelData(
  ctx: CheckContext,
  tenant: string,
  readAt: number,
  scope?: { metric: string } & QueryWindow,
): ModelSeries[] {
  const read = ctx.reads.finalReads.get(tenant);
  const observed: ObservedPoints =
    read === undefined ? new Map<string, Map<number, number[]>>() : observedOf(ctx, read);
  const judgedAt = Math.max(readAt, read?.startedAt ?? readAt);
  const out: ModelSeries[] = [];
  for (const [series, points] of ctx.ledger.seriesOf(tenant)) {
    // Every sample of a series carries the same labels (the key is made from them).
    const first = points.values().next();
    if (first.done === true) continue;
    const labels = first.value.labels;
    if (scope !== undefined && metricOf(labels) !== scope.metric) continue;
    const seen = observed.get(series);
    const kept = new Map<number, number>();
    for (const [ts, s] of points) {
      if (scope !== undefined && (ts <= scope.afterMs || ts > scope.untilMs)) continue;
      const exp = ctx.model.expectation(s, judgedAt);
      if (exp === 'present' || (exp === 'maybe' && seen?.has(ts) === true)) kept.set(ts, s.value);
    }
    if (kept.size > 0) out.push({ labels, points: kept });
  }
  return out;
}

function metricOf(labels: readonly (readonly [string, string])[]): string | undefined {
  for (const [n, v] of labels) if (n === '__name__') return v;
  return undefined;
}

/**
 * After the faults healed, every sample is resolved (acknowledged or refused) within
 * `withinMs` of when its writer could send it (after the scrape and after the writer's own
 * outage), and the final reads were answered.
 */
export function checkLiveness(
  ctx: CheckContext,
  opts: {
    quietAtMs: number;
    withinMs: number;
    /** Samples whose deadline falls after this are not judged. */
    judgeUntilMs: number;
    sendableAt: (s: LedgerSample) => number;
  },
): CheckResult {
  const failures = new Failures(missingReadFailures(ctx));
  let judged = 0;
  for (const s of ctx.ledger.samples()) {
    const deadline = Math.max(opts.sendableAt(s), opts.quietAtMs) + opts.withinMs;
    if (deadline > opts.judgeUntilMs) continue;
    judged++;
    const at = s.push === undefined ? undefined : resolvedAt(s.push);
    if (at === undefined || at > deadline)
      failures.add(
        `${describeSample(ctx, s)} not resolved by ${rel(ctx.epochMs, deadline)} (resolved ${rel(ctx.epochMs, at)})`,
        // Observed when the deadline passed; the sample's pushes before it show why.
        {
          observedAt: deadline,
          events: sampleEvents(s).filter((e) => e.at <= deadline),
          samples: [sampleRef(s)],
        },
      );
  }
  return failures.verdict(
    'liveness',
    `sample(s) not resolved within ${formatDuration(opts.withinMs)} after faults healed at ${rel(ctx.epochMs, opts.quietAtMs)}`,
    `${judged} sample(s) judged, all resolved within ${formatDuration(opts.withinMs)} after faults healed at ${rel(ctx.epochMs, opts.quietAtMs)}; final reads answered`,
  );
}

/** The evidence of a violation a push's answer showed (at `observedAt`). */
function pushEvidence(
  push: PushRecord,
  observedAt: number | undefined,
  samples: readonly LedgerSample[],
): Evidence {
  return {
    ...(observedAt === undefined ? {} : { observedAt }),
    events: pushEvents(push).filter((e) => observedAt === undefined || e.at <= observedAt),
    samples: samples.slice(0, 20).map(sampleRef),
  };
}
