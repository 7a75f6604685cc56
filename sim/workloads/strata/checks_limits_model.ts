import { formatDuration } from '../../fields/index.js';
import { phaseAt, type LimitSet, type LimitsScenarioConfig } from './config_limits.js';
import type { Attempt, LedgerSample, PushRecord, WriteLedger } from './ledger.js';

/** Which limit a series or a push ran into. */
export type LimitKind =
  | 'rate'
  | 'label_names'
  | 'label_name_length'
  | 'label_value_length'
  | 'series_per_user'
  | 'series_per_metric';

export const LIMIT_KINDS: readonly LimitKind[] = [
  'rate',
  'label_names',
  'label_name_length',
  'label_value_length',
  'series_per_user',
  'series_per_metric',
];

/** One series of a push as the model sees it. */
interface PushSeries {
  series: string;
  labels: [string, string][];
  metric: string;
  samples: number;
}

/** The answer the documented limits give an attempt, as patterns over status and message. */
export interface ExpectedAnswer {
  /** 200, 400 or 429; undefined when the model cannot decide between them. */
  status: 200 | 400 | 429 | undefined;
  /** The limit named by the refusal (400, 429). */
  kind?: LimitKind;
  /** Checks the refusal message (status, limit values, series). */
  matches?: (message: string) => boolean;
  /** Human-readable form of the expected message. */
  describe: string;
}

export interface JudgedAttempt {
  push: PushRecord;
  attempt: Attempt;
  limits: LimitSet;
  expected: ExpectedAnswer;
  /** Violations of the documented limits this attempt's answer shows. */
  problems: string[];
}

/** What the model knows of one distributor's token bucket for a tenant. */
interface Bucket {
  /** Bounds on the tokens after the last attempt that reached the limiter. */
  lo: number;
  hi: number;
  /** When that attempt may have been handled (its send and its answer). */
  at: { lo: number; hi: number };
  limits: LimitSet;
}

/** Whether a sample must be readable, must not be, or may be. */
export type SampleFate = 'present' | 'absent' | 'maybe';

/**
 * The limits model: replays the ledger's pushes of each tenant in order (one writer, one
 * push in flight, one distributor) against the limits in force when each attempt was sent
 * (the writer sends nothing while a change may be pending) and says what each attempt must
 * be answered and which samples must be stored.
 *
 * - Label limits (distributor validation, 400, partial: the valid series are written) and
 *   series limits (ingester, 400 after the other series were appended; RF = ingesters, so
 *   each ingester holds every series and enforces the global limit) are exact.
 * - The rate limit is a token bucket per distributor (golang.org/x/time/rate, full at the tenant's first
 *   push, refilled at `ingestion_rate` up to `ingestion_burst_size`) taken at a moment the
 *   model only knows lies between the attempt's send and its answer: the model keeps an
 *   interval of the tokens, narrowed by each answer, and a violation is an answer no moment
 *   in that window allows.
 */
export class LimitsModel {
  readonly judged: JudgedAttempt[] = [];
  /** Push → the series it wrote (undefined: unknown, an attempt without a decisive answer). */
  private readonly written = new Map<PushRecord, Set<string> | undefined>();

  constructor(
    ledger: WriteLedger,
    private readonly l: LimitsScenarioConfig,
    private readonly epochMs: number,
    private readonly isLimitsWriter: (writer: string) => boolean,
    /** Distributors the writer sends to in turn (each has its own rate limiter). */
    private readonly distributors = 1,
  ) {
    const byTenant = new Map<string, PushRecord[]>();
    for (const p of ledger.pushes) {
      if (!this.isLimitsWriter(p.writer)) continue;
      const list = byTenant.get(p.tenant) ?? [];
      list.push(p);
      byTenant.set(p.tenant, list);
    }
    for (const pushes of byTenant.values()) this.replayTenant(pushes);
  }

  fateOf(s: LedgerSample): SampleFate {
    if (s.push === undefined) return 'absent';
    if (!this.written.has(s.push)) return 'absent';
    const set = this.written.get(s.push);
    if (set === undefined) return 'maybe';
    return set.has(s.series) ? 'present' : 'absent';
  }

  private replayTenant(pushes: readonly PushRecord[]): void {
    const created = new Set<string>();
    const perMetric = new Map<string, number>();
    // One token bucket per distributor: the k-th push of the tenant went to distributor k mod n.
    const buckets = new Map<number, Bucket>();
    // Set once an attempt without a decisive answer may have created series: from then on
    // the model no longer knows how many series the ingesters hold, and leaves undecided
    // every push that brings a new series.
    let seriesUnknown = false;
    /** Series that may or may not have been created (then every push carrying one is undecided). */
    const uncertain = new Set<string>();
    const undecided = (valid: readonly PushSeries[]): PushSeries[] =>
      valid.filter((s) => uncertain.has(s.series) || (seriesUnknown && !created.has(s.series)));
    for (const [k, push] of pushes.entries()) {
      const series = groupSeries(push.samples);
      const d = k % this.distributors;
      for (const attempt of push.attempts) {
        const limits = phaseAt(this.l, attempt.sentAt - this.epochMs).limits;
        const rate = this.effectiveRate(limits);
        let tokens = buckets.get(d);
        const problems: string[] = [];
        const invalid = series.map((s) => labelProblem(s.labels, limits));
        const valid = series.filter((_, i) => invalid[i] === undefined);
        const firstInvalid = invalid.findIndex((p) => p !== undefined);
        const outcome = attempt.outcome;
        const sent = attempt.sentAt;
        const answered = attempt.respondedAt ?? sent + 60_000;
        const record = (expected: ExpectedAnswer): void => {
          this.judged.push({ push, attempt, limits, expected, problems });
        };
        if (valid.length === 0) {
          const p = invalid[firstInvalid]!;
          record({ status: 400, ...p.answer });
          if (outcome !== undefined && outcome.kind !== 'unknown' && !this.written.has(push))
            this.written.set(push, new Set());
          continue;
        }
        // The rate limit: the bucket at the handling moment, then the answer narrows it.
        const n = valid.reduce((sum, s) => sum + s.samples, 0);
        if (tokens === undefined) {
          tokens = {
            lo: limits.ingestionBurstSize,
            hi: limits.ingestionBurstSize,
            at: { lo: sent, hi: answered },
            limits,
          };
          buckets.set(d, tokens);
        } else {
          const minElapsed = Math.max(0, sent - tokens.at.hi) / 1000;
          const maxElapsed = Math.max(0, answered - tokens.at.lo) / 1000;
          const old = tokens.limits;
          const oldRate = this.effectiveRate(old);
          const burst = Math.min(old.ingestionBurstSize, limits.ingestionBurstSize);
          tokens = {
            lo: Math.min(burst, tokens.lo + minElapsed * oldRate),
            hi: Math.min(burst, tokens.hi + maxElapsed * oldRate),
            at: { lo: sent, hi: answered },
            limits,
          };
          buckets.set(d, tokens);
          if (old !== limits) {
            // A new phase: refilled at the old rate up to the old burst, clamped to the new.
            tokens.lo = Math.min(tokens.lo, limits.ingestionBurstSize);
            tokens.hi = Math.min(tokens.hi, limits.ingestionBurstSize);
          }
        }
        const rateAnswer: ExpectedAnswer = {
          status: 429,
          kind: 'rate',
          matches: (m) => rateMessage(m, rate, n),
          describe: `429 ingestion rate limit (${rate}) exceeded while adding ${n} samples and 0 metadata`,
        };
        const on = this.distributors > 1 ? ` on distributor ${d + 1}` : '';
        const bucket = `tokens between ${tokens.lo.toFixed(1)} and ${tokens.hi.toFixed(1)}${on} (rate ${rate}/s, burst ${limits.ingestionBurstSize})`;
        if (outcome === undefined || outcome.kind === 'unknown') {
          if (outcome?.code === '429') {
            if (tokens.lo >= n)
              problems.push(`refused by the rate limit with ${n} samples although ${bucket}`);
            tokens.hi = Math.min(tokens.hi, n);
            record(rateAnswer);
          } else {
            tokens.lo = Math.max(0, tokens.lo - n);
            for (const s of valid)
              if (!created.has(s.series)) {
                seriesUnknown = true;
                uncertain.add(s.series);
              }
            this.written.set(push, undefined);
            record({ status: undefined, describe: 'no decisive answer' });
          }
          continue;
        }
        if (tokens.hi < n) problems.push(`${n} samples passed the rate limit although ${bucket}`);
        tokens.lo = Math.max(0, Math.max(tokens.lo, n) - n);
        tokens.hi = Math.max(0, tokens.hi - n);
        const unsure = undecided(valid);
        if (unsure.length > 0) {
          for (const s of unsure) uncertain.add(s.series);
          this.written.set(push, undefined);
          record({ status: undefined, describe: 'undecided: the series count is unknown' });
          continue;
        }
        // Written: the ingesters create series in push order, up to the series limits.
        const wrote = new Set<string>();
        let refusal: ExpectedAnswer | undefined;
        for (const s of valid) {
          if (!created.has(s.series)) {
            const metricCount = perMetric.get(s.metric) ?? 0;
            let refused: ExpectedAnswer | undefined;
            if (created.size >= limits.maxSeriesPerUser)
              refused = seriesAnswer('series_per_user', limits.maxSeriesPerUser, s);
            else if (metricCount >= limits.maxSeriesPerMetric)
              refused = seriesAnswer('series_per_metric', limits.maxSeriesPerMetric, s);
            if (refused !== undefined) {
              refusal ??= refused;
              continue;
            }
            created.add(s.series);
            perMetric.set(s.metric, metricCount + 1);
          }
          wrote.add(s.series);
        }
        const prior = this.written.get(push);
        this.written.set(push, prior === undefined && this.written.has(push) ? undefined : wrote);
        if (refusal !== undefined) record(refusal);
        else if (firstInvalid >= 0) record({ status: 400, ...invalid[firstInvalid]!.answer });
        else record({ status: 200, describe: '200' });
      }
    }
  }

  /** The rate one distributor allows: divided among the distributors under `global`. */
  private effectiveRate(limits: LimitSet): number {
    return this.l.strategy === 'global'
      ? limits.ingestionRate / this.distributors
      : limits.ingestionRate;
  }

  /** Each judged attempt's problems, named. */
  problems(): string[] {
    const out: string[] = [];
    for (const j of this.judged) {
      const where = `push #${j.push.id} of ${j.push.tenant} (attempt sent +${formatDuration(j.attempt.sentAt - this.epochMs)})`;
      for (const p of j.problems) out.push(`${where}: ${p}`);
      const o = j.attempt.outcome;
      if (o === undefined || j.expected.status === undefined) continue;
      const got = o.kind === 'ok' ? String(o.status) : o.code;
      if (got !== String(j.expected.status)) {
        out.push(
          `${where} answered ${got}${o.kind === 'ok' ? '' : ` (${o.message})`}, the limits in force give ${j.expected.describe}`,
        );
        continue;
      }
      if (o.kind !== 'ok' && j.expected.matches !== undefined && !j.expected.matches(o.message))
        out.push(`${where} answered ${got} "${o.message}", documented: ${j.expected.describe}`);
    }
    return out;
  }
}

function groupSeries(samples: readonly LedgerSample[]): PushSeries[] {
  const by = new Map<string, PushSeries>();
  for (const s of samples) {
    let e = by.get(s.series);
    if (e === undefined) {
      const metric = s.labels.find(([n]) => n === '__name__')?.[1] ?? '';
      e = { series: s.series, labels: s.labels, metric, samples: 0 };
      by.set(s.series, e);
    }
    e.samples++;
  }
  return [...by.values()];
}

const utf8 = (s: string): number => new TextEncoder().encode(s).length;

/** The label limit a series breaks first (Cortex's ValidateLabels order), if any. */
export function labelProblem(
  labels: readonly (readonly [string, string])[],
  l: LimitSet,
): { kind: LimitKind; answer: Omit<ExpectedAnswer, 'status'> } | undefined {
  if (labels.length > l.maxLabelNamesPerSeries) {
    const re = /^series has too many labels \(actual: (\d+), limit: (\d+)\) series: '.*'$/;
    return {
      kind: 'label_names',
      answer: {
        kind: 'label_names',
        matches: (m) => numbers(re, m, [labels.length, l.maxLabelNamesPerSeries]),
        describe: `400 series has too many labels (actual: ${labels.length}, limit: ${l.maxLabelNamesPerSeries}) …`,
      },
    };
  }
  for (const [name, value] of labels) {
    if (utf8(name) > l.maxLabelNameLength) {
      const re =
        /^label name too long for metric \(actual: (\d+), limit: (\d+)\) metric: .* label name: "(.*)"$/;
      return {
        kind: 'label_name_length',
        answer: {
          kind: 'label_name_length',
          matches: (m) =>
            numbers(re, m, [utf8(name), l.maxLabelNameLength]) && re.exec(m)![3] === name,
          describe: `400 label name too long for metric (actual: ${utf8(name)}, limit: ${l.maxLabelNameLength}) … label name: "${name}"`,
        },
      };
    }
    if (utf8(value) > l.maxLabelValueLength) {
      const re =
        /^label value too long for metric \(actual: (\d+), limit: (\d+)\) metric: .* label name: "(.*)" label value: ".*"$/;
      return {
        kind: 'label_value_length',
        answer: {
          kind: 'label_value_length',
          matches: (m) =>
            numbers(re, m, [utf8(value), l.maxLabelValueLength]) && re.exec(m)![3] === name,
          describe: `400 label value too long for metric (actual: ${utf8(value)}, limit: ${l.maxLabelValueLength}) … label name: "${name}" …`,
        },
      };
    }
  }
  return undefined;
}

function seriesAnswer(kind: LimitKind, limit: number, s: PushSeries): ExpectedAnswer {
  const which = kind === 'series_per_user' ? 'per-user' : 'per-metric';
  const re = new RegExp(
    `${which} series limit of (\\d+) exceeded, please contact administrator to raise it \\(local limit: 0 global limit: (\\d+) actual local limit: (\\d+)\\)`,
  );
  return {
    status: 400,
    kind,
    matches: (m) =>
      numbers(re, m, [limit, limit, limit]) &&
      (kind === 'series_per_user' || m.includes(`__name__="${s.metric}"`)),
    describe: `400 ${which} series limit of ${limit} exceeded, … (local limit: 0 global limit: ${limit} actual local limit: ${limit})${kind === 'series_per_metric' ? ` for series {__name__="${s.metric}", …}` : ''}`,
  };
}

function rateMessage(m: string, rate: number, n: number): boolean {
  const r =
    /^ingestion rate limit \(([^)]+)\) exceeded while adding (\d+) samples and 0 metadata$/.exec(m);
  return r !== null && Number(r[1]) === rate && Number(r[2]) === n;
}

function numbers(re: RegExp, m: string, want: readonly number[]): boolean {
  const r = re.exec(m);
  return r !== null && want.every((w, i) => Number(r[i + 1]) === w);
}
