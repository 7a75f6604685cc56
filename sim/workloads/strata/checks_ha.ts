import { formatDuration } from '../../fields/index.js';
import type { CheckResult } from '../workload.js';
import { HA_CLUSTER_LABEL, HA_REPLICA_LABEL, haReplicaOf, type HaConfig } from './config_ha.js';
import { seriesKey } from './generator.js';
import type { Attempt, PushRecord, WriteLedger } from './ledger.js';
import type { ReadLog } from './read_log.js';

const MAX_LISTED = 10;

/** What the HA checks read: the ledger, the final reads and the tracker's settings. */
export interface HaCheckContext {
  ledger: WriteLedger;
  reads: ReadLog;
  ha: HaConfig;
  tenants: readonly string[];
  epochMs: number;
  /** Scrape period of the replicas. */
  intervalMs: number;
  /** The writers' remote-write timeout: an unanswered attempt was handled before sent + this. */
  timeoutMs: number;
  /** Offsets after the epoch of the first and last scrape slot. */
  scrapeStartMs: number;
  scrapeStopMs: number;
}

/** One remote-write attempt of an HA replica. */
interface HaAttempt {
  tenant: string;
  cluster: string;
  replica: string;
  push: PushRecord;
  attempt: Attempt;
}

/** Message latency allowance between the writer's clock readings and the distributor's. */
const SLACK_MS = 1_000;

function rel(epochMs: number, t: number | undefined): string {
  return t === undefined ? 'never' : `+${formatDuration(Math.max(0, t - epochMs))}`;
}

function result(name: string, failures: string[], what: string, ok: string): CheckResult {
  if (failures.length === 0) return { name, verdict: 'pass', detail: ok };
  const shown = failures.slice(0, MAX_LISTED).join('; ');
  const more = failures.length > MAX_LISTED ? `; … (${failures.length} in all)` : '';
  return { name, verdict: 'fail', detail: `${failures.length} ${what}: ${shown}${more}` };
}

/** Every attempt of every HA replica, grouped by `<tenant>/<cluster>`, in send order. */
function attemptsByCluster(ctx: HaCheckContext): Map<string, HaAttempt[]> {
  const out = new Map<string, HaAttempt[]>();
  for (const push of ctx.ledger.pushes) {
    const r = haReplicaOf(ctx.ha, push.writer);
    if (r === undefined) continue;
    const key = `${push.tenant}/${r.cluster}`;
    let list = out.get(key);
    if (list === undefined) out.set(key, (list = []));
    for (const attempt of push.attempts)
      list.push({ tenant: push.tenant, cluster: r.cluster, replica: r.replica, push, attempt });
  }
  for (const list of out.values()) list.sort((a, b) => a.attempt.sentAt - b.attempt.sentAt);
  return out;
}

const isAccepted = (a: HaAttempt): boolean =>
  a.attempt.outcome?.kind === 'ok' && a.attempt.outcome.status === 200;
const isDropped = (a: HaAttempt): boolean =>
  a.attempt.outcome?.kind === 'ok' && a.attempt.outcome.status === 202;
/** Could this attempt have been accepted (and renewed its replica's election)? */
const mayHaveBeenAccepted = (a: HaAttempt): boolean =>
  isAccepted(a) || a.attempt.outcome === undefined || a.attempt.outcome.kind === 'unknown';

/**
 * The accepted replica changes only at failovers: between the last accepted push of one
 * replica and the first of the next, the first must have been silent in the KV store for
 * the failover timeout. Its last renewal was at most update_timeout + jitter before its
 * last accepted push, so the two are at least failover − update − jitter apart. A tracker
 * that accepts both replicas interleaves them well within that.
 */
export function checkHaOneReplicaAtATime(ctx: HaCheckContext): CheckResult {
  const { ha } = ctx;
  const minSwitch = ha.failoverTimeoutMs - ha.updateTimeoutMs - ha.updateTimeoutJitterMaxMs;
  const failures: string[] = [];
  const summary: string[] = [];
  for (const [key, attempts] of attemptsByCluster(ctx)) {
    const accepted = attempts.filter(isAccepted);
    let switches = 0;
    for (let i = 1; i < accepted.length; i++) {
      const prev = accepted[i - 1]!;
      const cur = accepted[i]!;
      if (prev.replica === cur.replica) continue;
      switches++;
      const apart = (cur.attempt.respondedAt ?? cur.attempt.sentAt) - prev.attempt.sentAt;
      if (apart < minSwitch)
        failures.push(
          `${key}: ${cur.replica} accepted (push #${cur.push.id} sent ${rel(ctx.epochMs, cur.attempt.sentAt)}) only ${formatDuration(Math.max(0, apart))} after ${prev.replica} was (push #${prev.push.id} sent ${rel(ctx.epochMs, prev.attempt.sentAt)}); a failover needs the elected replica silent for ${formatDuration(ha.failoverTimeoutMs)}, so at least ${formatDuration(minSwitch)} apart`,
        );
    }
    summary.push(`${key} ${accepted.length} accepted, ${switches} switch(es)`);
  }
  return result(
    'ha_one_replica_at_a_time',
    failures,
    'time(s) two replicas of one cluster were accepted together',
    `one replica accepted at a time per cluster (${summary.join(', ')})`,
  );
}

/**
 * Every 202 is justified: when a replica's push was dropped, another replica of its cluster
 * had been heard from (a push it sent could have been accepted) within the failover timeout
 * before. So once the elected replica is silent for the failover timeout, the next push of
 * another replica is accepted (failover within the timeout plus one push interval). For
 * `expectFailover` clusters the scenario must show a failover and 202s for the replica not
 * elected.
 */
export function checkHaFailover(
  ctx: HaCheckContext,
  opts: { expectFailover: readonly string[] },
): CheckResult {
  const { ha } = ctx;
  const failures: string[] = [];
  const summary: string[] = [];
  const byCluster = attemptsByCluster(ctx);
  for (const [key, attempts] of byCluster) {
    let dropped = 0;
    let slowest = 0;
    let elected: string | undefined;
    const lastHeardSent = new Map<string, number>();
    // Attempts that could have renewed their replica's election, with the latest moment the
    // distributor could have handled them.
    const heard = attempts
      .filter(mayHaveBeenAccepted)
      .map((a) => ({ a, latest: a.attempt.respondedAt ?? a.attempt.sentAt + ctx.timeoutMs }));
    for (const a of attempts) {
      if (isDropped(a)) {
        dropped++;
        const sent = a.attempt.sentAt;
        const answered = a.attempt.respondedAt ?? sent;
        const others = heard.filter(
          (h) => h.a.replica !== a.replica && h.a.attempt.sentAt <= answered,
        );
        if (!others.some((h) => h.latest > sent - ha.failoverTimeoutMs - SLACK_MS)) {
          const last = new Map<string, number>();
          for (const h of others)
            last.set(h.a.replica, Math.max(last.get(h.a.replica) ?? 0, h.latest));
          const named = [...last].map(([r, at]) => `${r} last heard ${rel(ctx.epochMs, at)}`);
          failures.push(
            `${key}: ${a.replica}'s push #${a.push.id} sent ${rel(ctx.epochMs, sent)} was dropped (202) although no other replica was heard from in the ${formatDuration(ha.failoverTimeoutMs)} before (${named.length === 0 ? 'none ever was' : named.join(', ')})`,
          );
        }
      }
      if (isAccepted(a)) {
        if (elected !== undefined && elected !== a.replica)
          slowest = Math.max(slowest, a.attempt.sentAt - (lastHeardSent.get(elected) ?? 0));
        elected = a.replica;
      }
      if (mayHaveBeenAccepted(a)) lastHeardSent.set(a.replica, a.attempt.sentAt);
    }
    summary.push(
      `${key} ${dropped} dropped` +
        (slowest > 0
          ? `, slowest failover ${formatDuration(slowest)} after the last push the elected replica sent`
          : ''),
    );
  }
  for (const tenant of ctx.tenants)
    for (const cluster of opts.expectFailover) {
      const key = `${tenant}/${cluster}`;
      const accepted = (byCluster.get(key) ?? []).filter(isAccepted);
      if (!accepted.some((a, i) => i > 0 && a.replica !== accepted[i - 1]!.replica))
        failures.push(`${key}: never failed over; the scenario does not exercise the failover`);
      if (!(byCluster.get(key) ?? []).some(isDropped))
        failures.push(`${key}: no replica was ever answered 202 (de-duplication not exercised)`);
    }
  return result(
    'ha_failover',
    failures,
    'violation(s) of the failover rule',
    `every 202 came while another replica was elected and heard from within ${formatDuration(ha.failoverTimeoutMs)} (${summary.join(', ')})`,
  );
}

/** The stored samples of one cluster series, by timestamp, with the replica each came from. */
interface StoredPoint {
  ts: number;
  values: number[];
}

function labelOf(labels: readonly (readonly [string, string])[], name: string): string | undefined {
  return labels.find(([n]) => n === name)?.[1];
}

/**
 * What the final reads hold of the HA series: no stored series keeps the replica label;
 * every stored sample is one replica's sample with its value, stored once; every sample of
 * a push accepted with 200 is there and no sample of a push only answered 202 (or refused)
 * is; and no cluster series has a gap longer than `maxGapMs` between the first scrape and
 * the last (a failover must come within the failover timeout, plus a scrape interval on
 * each side).
 */
export function checkHaReads(ctx: HaCheckContext, opts: { maxGapMs: number }): CheckResult {
  const failures: string[] = [];
  let stored = 0;
  let judged = 0;
  for (const tenant of ctx.tenants) {
    const read = ctx.reads.finalReads.get(tenant);
    if (read === undefined) {
      failures.push(`no final read of tenant ${tenant} was answered`);
      continue;
    }
    const seen = new Set<string>();
    for (const s of read.series) {
      const cluster = labelOf(s.labels, HA_CLUSTER_LABEL);
      const replicas = cluster === undefined ? undefined : ctx.ha.clusters.get(cluster);
      if (replicas === undefined) continue;
      if (labelOf(s.labels, HA_REPLICA_LABEL) !== undefined) {
        failures.push(`${tenant} ${s.key} is stored with the replica label`);
        continue;
      }
      const points = new Map<number, StoredPoint>();
      s.timestamps.forEach((ts, i) => {
        const p = points.get(ts) ?? { ts, values: [] };
        p.values.push(s.values[i]!);
        points.set(ts, p);
      });
      for (const p of points.values()) {
        stored++;
        const owners = replicas.flatMap((r) => {
          const key = seriesKey([...s.labels, [HA_REPLICA_LABEL, r]]);
          const sample = ctx.ledger.lookup(tenant, key, p.ts);
          return sample === undefined ? [] : [sample];
        });
        const where = `${tenant} ${s.key} t=${rel(ctx.epochMs, p.ts)}`;
        const owner = owners[0];
        if (owner === undefined) {
          failures.push(`${where} was never written by a replica of ${cluster}`);
          continue;
        }
        seen.add(`${owner.series}@${p.ts}`);
        if (p.values.length > 1) failures.push(`${where} read ${p.values.length} times`);
        if (!p.values.every((v) => v === owner.value))
          failures.push(
            `${where} read ${p.values.join(', ')}, ${owner.writer} wrote ${owner.value}`,
          );
        if (owner.push !== undefined && pushFate(owner.push) === 'absent')
          failures.push(
            `${where} from ${owner.writer} is stored although its push #${owner.push.id} was only answered ${answers(owner.push)}`,
          );
      }
      const sorted = [...points.keys()].sort((a, b) => a - b);
      const bounds = [
        ctx.epochMs + ctx.scrapeStartMs,
        ...sorted,
        ctx.epochMs + ctx.scrapeStopMs - ctx.intervalMs,
      ];
      for (let i = 1; i < bounds.length; i++) {
        const gap = bounds[i]! - bounds[i - 1]!;
        if (gap > opts.maxGapMs)
          failures.push(
            `${tenant} ${s.key}: no sample stored from ${rel(ctx.epochMs, bounds[i - 1])} to ${rel(ctx.epochMs, bounds[i])} (${formatDuration(gap)}, more than ${formatDuration(opts.maxGapMs)})`,
          );
      }
    }
    for (const sample of ctx.ledger.samples(tenant)) {
      if (haReplicaOf(ctx.ha, sample.writer) === undefined || sample.push === undefined) continue;
      if (pushFate(sample.push) !== 'present') continue;
      judged++;
      if (!seen.has(`${sample.series}@${sample.timestamp}`))
        failures.push(
          `lost: ${tenant} ${sample.series} t=${rel(ctx.epochMs, sample.timestamp)} (push #${sample.push.id} accepted with 200)`,
        );
    }
  }
  return result(
    'ha_reads_match',
    failures,
    'violation(s) of "the accepted replica\'s samples, and only those, are stored"',
    `${stored} stored HA samples each from one replica, ${judged} samples of pushes answered 200 all stored, none of a push answered only 202, no gap over ${formatDuration(opts.maxGapMs)}`,
  );
}

/** Whether a push's samples must be stored (a 200), must not be (only 202s or 4xx), or may be. */
function pushFate(push: PushRecord): 'present' | 'absent' | 'maybe' {
  const outcomes = push.attempts.map((a) => a.outcome);
  if (outcomes.some((o) => o?.kind === 'ok' && o.status === 200)) return 'present';
  if (outcomes.some((o) => o === undefined || o.kind === 'unknown')) return 'maybe';
  return 'absent';
}

function answers(push: PushRecord): string {
  return push.attempts
    .map((a) =>
      a.outcome === undefined
        ? 'none'
        : a.outcome.kind === 'ok'
          ? String(a.outcome.status)
          : a.outcome.code,
    )
    .join(', ');
}

/** The largest gap the failover allows in a cluster's stored series. */
export function defaultMaxGapMs(ha: HaConfig, intervalMs: number): number {
  return ha.failoverTimeoutMs + 2 * intervalMs + SLACK_MS;
}
