/**
 * Remote-write load with an acknowledged-write ledger. Each worker owns its own series
 * (so one worker's pushes never race another's for a series) and pushes one sample per
 * series per request, at a strictly increasing timestamp. A 2xx answer records every sample
 * of the request as acknowledged; any other answer records them as attempted (they may or
 * may not have been stored). `check` then compares what a query returned with the ledger.
 */
import { postPush, pushBody, type PushAnswer } from './remote-write.js';

export interface LoadOptions {
  /** Distributor base URL (`http://127.0.0.1:port`). */
  readonly url: string;
  readonly tenant: string;
  readonly metric: string;
  readonly workers: number;
  readonly seriesPerWorker: number;
  /** Pause between two pushes of one worker (keeps the shared CPUs usable). */
  readonly pauseMs: number;
}

export interface PushRecord {
  readonly worker: number;
  readonly timestamp: number;
  /** Wall-clock time the answer arrived. */
  readonly answeredAt: number;
  readonly answer: PushAnswer;
}

/** One series' samples as timestamp → value. */
export type SampleMap = Map<number, number>;

export interface LedgerCheck {
  /** Acknowledged samples missing from the answer, or present with another value. */
  readonly missing: string[];
  /** Timestamps present more than once in one series. */
  readonly duplicated: string[];
  /** Samples in the answer that were never pushed, or have a value never pushed. */
  readonly phantom: string[];
  readonly acknowledged: number;
  readonly found: number;
}

export function seriesName(worker: number, series: number): string {
  return `w${worker}-s${String(series).padStart(3, '0')}`;
}

/** The value pushed for a series at a push sequence number: distinct per series and push. */
export function sampleValue(seq: number, series: number): number {
  return seq * 1000 + series;
}

export class RemoteWriteLoad {
  readonly pushes: PushRecord[] = [];
  /** Per series label value (`seriesName`), the acknowledged samples. */
  readonly acked = new Map<string, SampleMap>();
  /** Per series, samples of pushes that were not acknowledged. */
  readonly attempted = new Map<string, SampleMap>();
  private stopping = false;
  private running: Promise<void>[] = [];

  constructor(readonly opts: LoadOptions) {}

  start(): void {
    this.stopping = false;
    for (let w = 0; w < this.opts.workers; w++) this.running.push(this.worker(w));
  }

  /** Stops after the pushes in flight have been answered. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
    this.running = [];
  }

  /** Pushes answered in the wall-clock interval [fromMs, toMs). */
  answeredBetween(fromMs: number, toMs = Infinity): PushRecord[] {
    return this.pushes.filter((p) => p.answeredAt >= fromMs && p.answeredAt < toMs);
  }

  ackedCount(): number {
    let n = 0;
    for (const m of this.acked.values()) n += m.size;
    return n;
  }

  maxAckedTimestamp(): number {
    let max = -Infinity;
    for (const m of this.acked.values()) for (const t of m.keys()) max = Math.max(max, t);
    return max;
  }

  private lastTimestamp = new Map<number, number>();
  private seq = 0;

  private async worker(w: number): Promise<void> {
    while (!this.stopping) {
      const ts = Math.max(Date.now(), (this.lastTimestamp.get(w) ?? 0) + 1);
      this.lastTimestamp.set(w, ts);
      const seq = ++this.seq;
      const series = Array.from({ length: this.opts.seriesPerWorker }, (_, i) => ({
        labels: [
          ['__name__', this.opts.metric],
          ['series', seriesName(w, i)],
          ['worker', String(w)],
        ] as [string, string][],
        samples: [{ value: sampleValue(seq, i), timestamp: ts }],
      }));
      const answer = await postPush(`${this.opts.url}/api/v1/push`, pushBody(series), {
        tenant: this.opts.tenant,
      });
      const ok = answer.status >= 200 && answer.status < 300;
      const into = ok ? this.acked : this.attempted;
      for (let i = 0; i < series.length; i++) {
        const name = seriesName(w, i);
        let m = into.get(name);
        if (m === undefined) into.set(name, (m = new Map<number, number>()));
        m.set(ts, sampleValue(seq, i));
      }
      this.pushes.push({ worker: w, timestamp: ts, answeredAt: Date.now(), answer });
      await new Promise((r) => setTimeout(r, this.opts.pauseMs));
    }
  }

  /**
   * Compares a query answer (per `series` label, the samples in answer order) with the
   * ledger: every acknowledged sample exactly once with its value, nothing never pushed.
   */
  check(found: ReadonlyMap<string, readonly (readonly [number, number])[]>): LedgerCheck {
    const missing: string[] = [];
    const duplicated: string[] = [];
    const phantom: string[] = [];
    let foundCount = 0;
    const seen = new Map<string, SampleMap>();
    for (const [name, points] of found) {
      const m: SampleMap = new Map();
      seen.set(name, m);
      for (const [t, v] of points) {
        foundCount++;
        if (m.has(t)) duplicated.push(`${name}@${t}`);
        m.set(t, v);
        const pushed = this.acked.get(name)?.get(t) ?? this.attempted.get(name)?.get(t);
        if (pushed === undefined || pushed !== v) phantom.push(`${name}@${t}=${v}`);
      }
    }
    for (const [name, m] of this.acked) {
      const got = seen.get(name);
      for (const [t, v] of m) {
        const g = got?.get(t);
        if (g !== v) missing.push(`${name}@${t}=${v} (got ${g ?? 'nothing'})`);
      }
    }
    return { missing, duplicated, phantom, acknowledged: this.ackedCount(), found: foundCount };
  }
}
