import { formatDuration } from '../../fields/index.js';
import type { CheckResult } from '../workload.js';
import { LIMIT_KINDS, type LimitKind, type LimitsModel } from './checks_limits_model.js';
import type { WriteLedger } from './ledger.js';
import type { ReadLog } from './read_log.js';

const MAX_LISTED = 10;

export interface LimitsCheckContext {
  ledger: WriteLedger;
  reads: ReadLog;
  model: LimitsModel;
  tenants: readonly string[];
  epochMs: number;
  isLimitsWriter: (writer: string) => boolean;
}

function result(name: string, failures: string[], what: string, ok: string): CheckResult {
  if (failures.length === 0) return { name, verdict: 'pass', detail: ok };
  const shown = failures.slice(0, MAX_LISTED).join('; ');
  const more = failures.length > MAX_LISTED ? `; … (${failures.length} in all)` : '';
  return { name, verdict: 'fail', detail: `${failures.length} ${what}: ${shown}${more}` };
}

/**
 * Every answer is the one the limits in force document: 429 with Cortex's rate-limit message
 * naming the rate and the samples when (and only when) the token bucket can be short, 400
 * with the label-limit message naming the first invalid series, or the ingester's per-user /
 * per-metric series-limit message, and 200 otherwise. `expect` names the limits the run
 * must have hit at least once (default: all six), so a scenario that never reaches one
 * cannot pass by accident.
 */
export function checkLimitsEnforced(
  ctx: LimitsCheckContext,
  opts: { expect: readonly LimitKind[] },
): CheckResult {
  const failures = ctx.model.problems();
  const hits = new Map<LimitKind, number>();
  for (const j of ctx.model.judged) {
    const o = j.attempt.outcome;
    const kind = j.expected.kind;
    if (o === undefined || kind === undefined) continue;
    const got = o.kind === 'ok' ? String(o.status) : o.code;
    if (got === String(j.expected.status)) hits.set(kind, (hits.get(kind) ?? 0) + 1);
  }
  for (const kind of opts.expect)
    if ((hits.get(kind) ?? 0) === 0)
      failures.push(`no push was refused by the ${kind} limit; the scenario does not exercise it`);
  const counts = LIMIT_KINDS.map((k) => `${k} ${hits.get(k) ?? 0}`).join(', ');
  return result(
    'limits_enforced',
    failures,
    'answer(s) the limits in force do not give',
    `${ctx.model.judged.length} attempts answered as the limits in force say; refusals by limit: ${counts}`,
  );
}

/**
 * The accepted set: every sample the model says was stored (its series valid and within the
 * series limits, its push past the rate limit) is read back once with its value, and no
 * sample of a refused series or a rate-limited attempt is.
 */
export function checkLimitsAcceptedSet(ctx: LimitsCheckContext): CheckResult {
  const failures: string[] = [];
  let present = 0;
  let absent = 0;
  const rel = (t: number): string => `+${formatDuration(Math.max(0, t - ctx.epochMs))}`;
  for (const tenant of ctx.tenants) {
    const read = ctx.reads.finalReads.get(tenant);
    if (read === undefined) {
      failures.push(`no final read of tenant ${tenant} was answered`);
      continue;
    }
    const observed = new Map<string, Map<number, number[]>>();
    for (const s of read.series) {
      const points = observed.get(s.key) ?? new Map<number, number[]>();
      s.timestamps.forEach((ts, i) => points.set(ts, [...(points.get(ts) ?? []), s.values[i]!]));
      observed.set(s.key, points);
    }
    for (const [series, points] of observed)
      for (const [ts, values] of points) {
        const s = ctx.ledger.lookup(tenant, series, ts);
        if (s === undefined || !ctx.isLimitsWriter(s.writer)) {
          if (s === undefined) failures.push(`${tenant} ${series} t=${rel(ts)} was never written`);
          continue;
        }
        if (values.length > 1)
          failures.push(`${tenant} ${series} t=${rel(ts)} read ${values.length} times`);
        if (!values.every((v) => v === s.value))
          failures.push(
            `${tenant} ${series} t=${rel(ts)} read ${values.join(', ')}, written ${s.value}`,
          );
      }
    for (const s of ctx.ledger.samples(tenant)) {
      if (!ctx.isLimitsWriter(s.writer)) continue;
      const fate = ctx.model.fateOf(s);
      const seen = observed.get(s.series)?.has(s.timestamp) === true;
      const where = `${tenant} ${s.series} t=${rel(s.timestamp)} (push #${s.push?.id ?? '-'})`;
      if (fate === 'present') {
        present++;
        if (!seen) failures.push(`accepted but not stored: ${where}`);
      } else if (fate === 'absent') {
        absent++;
        if (seen) failures.push(`refused but stored: ${where}`);
      }
    }
  }
  return result(
    'limits_accepted_set',
    failures,
    "difference(s) between the model's accepted set and the reads",
    `${present} samples accepted and stored, ${absent} refused and absent, as the model says`,
  );
}
