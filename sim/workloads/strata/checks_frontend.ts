import { formatDuration } from '../../fields/index.js';
import type { CheckResult, Violation } from '../workload.js';
import { Failures } from '../violations.js';
import { modelData, type CheckContext } from './checks.js';
import { queryText, type QuerySpec } from './config.js';
import type { FloodConfig } from './config_frontend.js';
import type { FrontendLog, FrontendRequest } from './frontend_load.js';
import { seriesKey } from './generator.js';
import { LOOKBACK_MS, diffVectors, evaluateQuery, type ModelVector } from './model_query.js';

/** Offset from the epoch; a range may start before it. */
function rel(epochMs: number, t: number | undefined): string {
  if (t === undefined) return 'never';
  return t < epochMs ? `-${formatDuration(epochMs - t)}` : `+${formatDuration(t - epochMs)}`;
}

function label(epochMs: number, r: FrontendRequest, spec: QuerySpec | undefined): string {
  const text = spec === undefined ? `query #${r.query}` : queryText(spec);
  return (
    `${r.kind} ${r.tenant}: ${text} over [${rel(epochMs, r.startMs)}, ${rel(epochMs, r.endMs)}] ` +
    `step ${formatDuration(r.stepMs)} sent at ${rel(epochMs, r.sentAt)}`
  );
}

function evidence(r: FrontendRequest, detail: string): Omit<Violation, 'message'> {
  const until = r.answeredAt ?? r.sentAt;
  return {
    observedAt: until,
    events: [{ at: r.sentAt, until, node: 'reader', kind: 'query_range', detail }],
  };
}

/** Whether the client gave up on the request without any HTTP answer. */
function lost(r: FrontendRequest): boolean {
  return r.outcome === undefined || typeof r.outcome === 'string';
}

/**
 * Every range query the reader sent through the query-frontend got an HTTP answer: a
 * status, never silence until the reader's timeout or a broken connection. Requests the
 * reader itself abandoned when the run ended are not judged. With `expect_ok` (the default)
 * every request of a tenant that does not flood must also have succeeded: a querier crash
 * mid-query is hidden by the frontend's retries; the flooder may get 429s.
 */
export function checkNoRequestLost(
  log: FrontendLog,
  epochMs: number,
  queries: readonly QuerySpec[],
  opts: { expectOk: boolean; flooder: string | undefined },
): CheckResult {
  const failures = new Failures();
  const statuses = new Map<string, number>();
  let judged = 0;
  for (const r of log.requests) {
    if (r.outcome === 'aborted') continue;
    judged++;
    const key = String(r.outcome ?? 'no answer');
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const what = label(epochMs, r, queries[r.query]);
    if (lost(r)) {
      failures.add(
        `${what}: lost (${r.error ?? 'no answer by the end of the run'})`,
        evidence(r, what),
      );
      continue;
    }
    const status = r.outcome as number;
    const ok = status >= 200 && status < 300;
    const refusedFlood = r.tenant === opts.flooder && status === 429;
    if (opts.expectOk && !ok && !refusedFlood)
      failures.add(`${what}: HTTP ${status} (${r.error ?? ''})`, evidence(r, what));
  }
  if (judged === 0) failures.add('no range query went through the frontend');
  const summary = [...statuses].map(([k, n]) => `${k}: ${n}`).join(', ');
  return failures.verdict(
    'no_request_lost',
    'request(s) lost or failed',
    `${judged} range quer(ies) through the frontend all answered (${summary})`,
  );
}

/**
 * While the flooder keeps its queue full (it must have been refused with 429 at least once,
 * else the check proves nothing), every range query of the other tenants sent within the
 * flood's window finishes within `within`.
 */
export function checkTenantFairness(
  log: FrontendLog,
  epochMs: number,
  queries: readonly QuerySpec[],
  opts: { withinMs: number; flood: FloodConfig | undefined },
): CheckResult {
  const failures = new Failures();
  const flood = opts.flood;
  if (flood === undefined) {
    failures.add('the scenario has no flooding tenant (workload.frontend.flood)');
    return failures.verdict('tenant_fairness', 'problem(s)', '');
  }
  const from = epochMs + flood.fromMs;
  const until = epochMs + flood.untilMs;
  const refused = log.requests.filter((r) => r.tenant === flood.tenant && r.outcome === 429);
  if (refused.length === 0)
    failures.add(`${flood.tenant} was never refused with 429: its queue was never full`);
  let judged = 0;
  let slowest = 0;
  for (const r of log.requests) {
    if (r.tenant === flood.tenant || r.kind !== 'mix') continue;
    if (r.sentAt < from || r.sentAt >= until || r.outcome === 'aborted') continue;
    judged++;
    const took = (r.answeredAt ?? Infinity) - r.sentAt;
    slowest = Math.max(slowest, took);
    if (took > opts.withinMs) {
      const what = label(epochMs, r, queries[r.query]);
      failures.add(
        `${what}: answered ${r.answeredAt === undefined ? 'never' : `after ${formatDuration(took)}`} (bound ${formatDuration(opts.withinMs)})`,
        evidence(r, what),
      );
    }
  }
  if (judged === 0) failures.add('no query of another tenant ran during the flood');
  return failures.verdict(
    'tenant_fairness',
    `starved quer(ies) or missing evidence`,
    `${judged} quer(ies) of other tenants during the flood (${refused.length} refusals of ${flood.tenant}) each finished within ${formatDuration(opts.withinMs)} (slowest ${formatDuration(slowest)})`,
  );
}

/** The range answer as one vector per evaluation time. */
function answerByTime(r: FrontendRequest): Map<number, ModelVector> {
  const out = new Map<number, ModelVector>();
  for (const s of r.result ?? []) {
    const key = seriesKey(s.labels);
    for (const [i, ts] of s.timestamps.entries()) {
      let v = out.get(ts);
      if (v === undefined) out.set(ts, (v = new Map<string, number>()));
      v.set(key, s.values[i]!);
    }
  }
  return out;
}

/**
 * The range queries repeated after the final reads (the first repetition possibly answered
 * from the results cache, with an extent cached while late samples were still arriving)
 * equal the model's answer at every step: the model evaluates the query at each step over
 * every sample that must be present (and the undecided ones the final read showed).
 */
export function checkModelRangeQueries(
  ctx: CheckContext,
  log: FrontendLog,
  queries: readonly QuerySpec[],
): CheckResult {
  const failures = new Failures();
  let judged = 0;
  for (const r of log.requests) {
    if (r.kind !== 'repeat') continue;
    const spec = queries[r.query];
    if (spec === undefined) continue;
    judged++;
    const what = label(ctx.epochMs, r, spec);
    if (r.outcome !== 200 || r.result === undefined) {
      failures.add(`${what} failed: ${r.error ?? String(r.outcome)}`, evidence(r, what));
      continue;
    }
    const data = modelData(ctx, spec.tenant, r.sentAt, {
      metric: spec.metric,
      afterMs: r.startMs - Math.max(spec.rangeMs, LOOKBACK_MS),
      untilMs: r.endMs,
    });
    const got = answerByTime(r);
    const diffs: string[] = [];
    for (let t = r.startMs; t <= r.endMs; t += r.stepMs) {
      const d = diffVectors(got.get(t) ?? new Map<string, number>(), evaluateQuery(spec, t, data));
      for (const line of d) diffs.push(`at ${rel(ctx.epochMs, t)} ${line}`);
    }
    for (const t of got.keys())
      if (t < r.startMs || t > r.endMs || (t - r.startMs) % r.stepMs !== 0)
        diffs.push(`a point at ${rel(ctx.epochMs, t)}, off the steps`);
    if (diffs.length > 0)
      failures.add(
        `${what}: ${diffs.slice(0, 3).join(', ')}${diffs.length > 3 ? ', …' : ''}`,
        evidence(r, what),
      );
  }
  if (judged === 0) failures.add('no range query was repeated (workload.frontend.warm_at)');
  return failures.verdict(
    'model_range_queries',
    'range answer(s) through the frontend differ from the model',
    `${judged} range answer(s) through the frontend equal the model's at every step`,
  );
}
