import { createHash, type Hash } from 'node:crypto';

/** Characters of trace lines gathered before they are fed to the hash. */
const HASH_CHUNK_CHARS = 64 * 1024;

/**
 * One executed event, exactly the fields the trace hash covers plus its 1-based position.
 * Two runs with equal hashes therefore produce equal event logs (`strata sim --trace`).
 */
export interface TraceEvent {
  seq: number;
  time: number;
  node: string;
  incarnation: number;
  kind: string;
  detail: string;
}

/** Receives every executed event, in order; only installed when a full event log is wanted. */
export type TraceEventSink = (event: TraceEvent) => void;

/**
 * The trace of a run: a SHA-256 over every executed event (virtual time, node, incarnation,
 * kind, detail). Two runs with the same seed must produce the same hash; any divergence in
 * scheduling, randomness or event order changes it. The last few lines are kept in memory so a
 * failing run can show what happened just before the end.
 */
export class TraceRecorder {
  private readonly hash: Hash = createHash('sha256');
  private readonly tail: string[] = [];
  private tailStart = 0;
  private recorded = 0;
  /** Lines not yet fed to the hash. */
  private pending = '';

  constructor(
    private readonly tailSize = 200,
    // Undefined unless asked for, so a run without --trace builds no event objects.
    private readonly sink?: TraceEventSink,
  ) {}

  record(time: number, node: string, incarnation: number, kind: string, detail: string): void {
    const line = `${time} ${node} ${incarnation} ${kind} ${detail}`;
    // SHA-256 digests a stream: feeding it in large chunks gives the same hash as feeding it
    // line by line, for a fraction of the calls into the native hash.
    this.pending += line + '\n';
    if (this.pending.length >= HASH_CHUNK_CHARS) this.flush();
    this.recorded++;
    if (this.sink !== undefined)
      this.sink({ seq: this.recorded, time, node, incarnation, kind, detail });
    if (this.tailSize <= 0) return;
    if (this.tail.length < this.tailSize) this.tail.push(line);
    else {
      this.tail[this.tailStart] = line;
      this.tailStart = (this.tailStart + 1) % this.tailSize;
    }
  }

  /** The hex digest of everything recorded so far (recording may continue afterwards). */
  currentHash(): string {
    this.flush();
    return this.hash.copy().digest('hex');
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.hash.update(this.pending);
    this.pending = '';
  }

  /** Up to the last `tailSize` trace lines, oldest first. */
  lastLines(): string[] {
    return [...this.tail.slice(this.tailStart), ...this.tail.slice(0, this.tailStart)];
  }
}
