import { formatDuration } from '../../fields/index.js';
import type { CheckResult } from '../workload.js';
import { queryText, type QuerySpec } from './config.js';
import {
  ackOf,
  pushStatus,
  rejectionOf,
  resolvedAt,
  sampleStatus,
  type LedgerSample,
  type WriteLedger,
} from './ledger.js';
import { diffVectors, evaluateQuery, type ModelSeries } from './model_query.js';
import type { ReferenceModel } from './model.js';
import type { FinalRead, ReadLog, ReadRound } from './read_log.js';

const MAX_LISTED = 10;

/** What every check needs to name times relative to the run. */
export interface CheckContext {
  ledger: WriteLedger;
  model: ReferenceModel;
  reads: ReadLog;
  tenants: readonly string[];
  epochMs: number;
}

function listSome(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED).join('; ');
  return items.length > MAX_LISTED ? `${shown}; … (${items.length} in all)` : shown;
}

function rel(epochMs: number, t: number | undefined): string {
  return t === undefined ? 'never' : `+${formatDuration(Math.max(0, t - epochMs))}`;
}

function verdict(name: string, failures: string[], what: string, ok: string): CheckResult {
  return failures.length === 0
    ? { name, verdict: 'pass', detail: ok }
    : { name, verdict: 'fail', detail: `${failures.length} ${what}: ${listSome(failures)}` };
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

/** Observed points of one final read: series → timestamp → values seen (several = duplicates). */
export function observedPoints(read: FinalRead): Map<string, Map<number, number[]>> {
  const out = new Map<string, Map<number, number[]>>();
  for (const s of read.series) {
    let points = out.get(s.key);
    if (points === undefined) {
      points = new Map();
      out.set(s.key, points);
    }
    s.timestamps.forEach((ts, i) => {
      const list = points.get(ts);
      const v = s.values[i] as number;
      if (list === undefined) points.set(ts, [v]);
      else list.push(v);
    });
  }
  return out;
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
  const failures = missingReadFailures(ctx);
  let judged = 0;
  const rounds = roundsOf(ctx);
  for (const { round, prefix } of rounds)
    for (const tenant of ctx.tenants) {
      const read = round.reads.get(tenant);
      if (read === undefined) continue;
      const observed = observedPoints(read);
      for (const [series, points] of observed)
        for (const [ts, values] of points)
          if (values.length > 1)
            failures.push(
              `${prefix}${tenant} ${series} t=${rel(ctx.epochMs, ts)} read ${values.length} times (${values.join(', ')})`,
            );
      for (const s of ctx.ledger.samples(tenant)) {
        if (sampleStatus(s) !== 'acked' || ctx.model.expectation(s, read.startedAt) !== 'present')
          continue;
        judged++;
        const values = observed.get(s.series)?.get(s.timestamp);
        if (values === undefined) failures.push(`${prefix}lost: ${describeSample(ctx, s)}`);
        else if (!values.some((v) => sameValue(v, s.value)))
          failures.push(`${prefix}wrong value ${values.join(', ')}: ${describeSample(ctx, s)}`);
      }
    }
  const where =
    rounds.length > 1
      ? `${rounds.length} reads (${rounds.map((r) => r.round.label).join(', ')})`
      : 'the final reads';
  return verdict(
    'acked_readable_exactly_once',
    failures,
    'violation(s) of "every acknowledged sample is readable exactly once"',
    `${judged} judgements over ${where}: every sample acknowledged before a read is in it exactly once (${ctx.tenants.length} tenant(s))`,
  );
}

/** Every sample read was written by a writer, with that value, and was not refused or unsent. */
export function checkNoPhantoms(ctx: CheckContext): CheckResult {
  const failures = missingReadFailures(ctx);
  let read = 0;
  let unacked = 0;
  for (const { round, prefix } of roundsOf(ctx))
    for (const tenant of ctx.tenants) {
      const answer = round.reads.get(tenant);
      if (answer === undefined) continue;
      for (const [series, points] of observedPoints(answer)) {
        for (const [ts, values] of points) {
          read++;
          const s = ctx.ledger.lookup(tenant, series, ts);
          if (s === undefined) {
            failures.push(
              `${prefix}${tenant} ${series} t=${rel(ctx.epochMs, ts)} was never written to ${tenant}`,
            );
            continue;
          }
          if (!values.every((v) => sameValue(v, s.value)))
            failures.push(
              `${prefix}read value(s) ${values.join(', ')} for ${describeSample(ctx, s)}`,
            );
          const exp = ctx.model.expectation(s, answer.startedAt);
          if (exp === 'absent')
            failures.push(
              `${prefix}${sampleStatus(s) === 'unsent' ? 'never-sent' : 'refused'} sample is readable: ${describeSample(ctx, s)}`,
            );
          if (sampleStatus(s) !== 'acked') unacked++;
        }
      }
    }
  return verdict(
    'no_phantoms',
    failures,
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
  const failures: string[] = [];
  const refusedByTenant = new Map<string, number>();
  const undecidedByTenant = new Map<string, number>();
  for (const push of ctx.ledger.pushes) {
    const status = pushStatus(push);
    const verdicts = push.samples.map((s) => ctx.model.verdict(s));
    const tooOld = push.samples.filter((_, i) => verdicts[i] === 'must_reject');
    const undecided = verdicts.filter((v) => v === 'either').length;
    if (undecided > 0)
      undecidedByTenant.set(push.tenant, (undecidedByTenant.get(push.tenant) ?? 0) + undecided);
    const where = `push #${push.id} of ${push.tenant} from ${push.writer} (sent ${rel(ctx.epochMs, push.attempts[0]?.sentAt)})`;
    if (status === 'acked' && tooOld.length > 0) {
      const { lo } = ctx.model.pushBounds(push);
      failures.push(
        `${where} was acknowledged with ${tooOld.length} sample(s) older than the tenant's newest (${rel(ctx.epochMs, lo)}) minus ${formatDuration(ctx.model.windowOf(push.tenant))}, e.g. ${describeSample(ctx, tooOld[0]!)}`,
      );
    }
    if (status !== 'rejected') continue;
    const rejection = rejectionOf(push)!;
    const message = rejection.outcome.message;
    if (!ctx.model.ruleMessageOf(push.tenant).test(message)) {
      failures.push(
        `${where} was refused (${rejection.outcome.code}) with a message the rule does not give (expected ${String(ctx.model.ruleMessageOf(push.tenant))}): ${message}`,
      );
      continue;
    }
    if (verdicts.every((v) => v === 'must_accept')) {
      const { hi } = ctx.model.pushBounds(push);
      failures.push(
        `${where} was refused although every sample is within ${formatDuration(ctx.model.windowOf(push.tenant))} of the tenant's newest (at most ${rel(ctx.epochMs, hi)}): ${message}`,
      );
      continue;
    }
    refusedByTenant.set(push.tenant, (refusedByTenant.get(push.tenant) ?? 0) + tooOld.length);
  }
  // What the reads show of refused pushes.
  for (const tenant of ctx.tenants) {
    const read = ctx.reads.finalReads.get(tenant);
    if (read === undefined) continue;
    const observed = observedPoints(read);
    for (const s of ctx.ledger.samples(tenant)) {
      if (s.push === undefined || pushStatus(s.push) === 'acked') continue;
      const present = observed.get(s.series)?.has(s.timestamp) === true;
      const exp = ctx.model.expectation(s, read.startedAt);
      if (exp === 'absent' && present)
        failures.push(`a sample the rule refuses is readable: ${describeSample(ctx, s)}`);
      if (exp === 'present' && !present)
        failures.push(
          `partial acceptance lost a sample the rule accepts (its push was refused for others): ${describeSample(ctx, s)}`,
        );
    }
  }
  for (const tenant of opts.expectRejected)
    if ((refusedByTenant.get(tenant) ?? 0) === 0)
      failures.push(
        `tenant ${tenant} never had a sample refused by the rule; the scenario does not exercise it`,
      );
  const counts = ctx.tenants
    .map(
      (t) =>
        `${t}: ${refusedByTenant.get(t) ?? 0} refused (window ${formatDuration(ctx.model.windowOf(t))}, ${undecidedByTenant.get(t) ?? 0} undecided by the interleaving)`,
    )
    .join(', ');
  return verdict(
    'ingestion_rule',
    failures,
    'violation(s) of the ingestion rule',
    `rejections match the model; ${counts}`,
  );
}

/** The recorded PromQL answers equal the model's answers over the ledger. */
export function checkModelQueries(ctx: CheckContext, queries: readonly QuerySpec[]): CheckResult {
  const failures: string[] = [];
  if (queries.length > 0 && ctx.reads.queryAnswers.length === 0)
    failures.push('no model query was answered');
  for (const answer of ctx.reads.queryAnswers) {
    const spec = queries[answer.query];
    if (spec === undefined) continue;
    const label = `${spec.tenant}: ${queryText(spec)} at ${rel(ctx.epochMs, answer.atMs)}`;
    if (answer.error !== undefined || answer.result === undefined) {
      failures.push(`${label} failed: ${answer.error ?? 'no result'}`);
      continue;
    }
    const diff = diffVectors(
      answer.result,
      evaluateQuery(spec, answer.atMs, modelData(ctx, spec.tenant, answer.startedAt)),
    );
    if (diff.length > 0) failures.push(`${label}: ${diff.slice(0, 3).join(', ')}`);
  }
  return verdict(
    'model_queries',
    failures,
    'query answer(s) differ from the model',
    `${ctx.reads.queryAnswers.length} query answer(s) equal the model's`,
  );
}

/**
 * The data the model answers a query from: samples that must be present, plus samples whose
 * storage the ledger cannot decide (unknown outcome, either side of the rule) when the final
 * read shows them. Without a final read the undecided samples are left out.
 */
export function modelData(ctx: CheckContext, tenant: string, readAt: number): ModelSeries[] {
  const read = ctx.reads.finalReads.get(tenant);
  const observed =
    read === undefined ? new Map<string, Map<number, number[]>>() : observedPoints(read);
  const out: ModelSeries[] = [];
  for (const [series, points] of ctx.ledger.seriesOf(tenant)) {
    const kept = new Map<number, number>();
    let labels: readonly (readonly [string, string])[] = [];
    for (const [ts, s] of points) {
      labels = s.labels;
      const exp = ctx.model.expectation(s, Math.max(readAt, read?.startedAt ?? readAt));
      if (exp === 'present' || (exp === 'maybe' && observed.get(series)?.has(ts) === true))
        kept.set(ts, s.value);
    }
    if (kept.size > 0) out.push({ labels, points: kept });
  }
  return out;
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
  const failures = missingReadFailures(ctx);
  let judged = 0;
  for (const s of ctx.ledger.samples()) {
    const deadline = Math.max(opts.sendableAt(s), opts.quietAtMs) + opts.withinMs;
    if (deadline > opts.judgeUntilMs) continue;
    judged++;
    const at = s.push === undefined ? undefined : resolvedAt(s.push);
    if (at === undefined || at > deadline)
      failures.push(
        `${describeSample(ctx, s)} not resolved by ${rel(ctx.epochMs, deadline)} (resolved ${rel(ctx.epochMs, at)})`,
      );
  }
  return verdict(
    'liveness',
    failures,
    `sample(s) not resolved within ${formatDuration(opts.withinMs)} after faults healed at ${rel(ctx.epochMs, opts.quietAtMs)}`,
    `${judged} sample(s) judged, all resolved within ${formatDuration(opts.withinMs)} after faults healed at ${rel(ctx.epochMs, opts.quietAtMs)}; final reads answered`,
  );
}
