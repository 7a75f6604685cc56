import { retransmitLimit } from './config.js';
import type { GossipMessage } from './wire.js';

/** A queued message and what it supersedes. */
export interface Broadcast {
  readonly message: GossipMessage;
  /** JSON size, for packet limits and the queue-bytes metric. */
  readonly bytes: number;
  /** True when this message makes `older` pointless to send (older ones are dropped on queueing). */
  invalidates(older: Broadcast): boolean;
  /** Called once when the message leaves the queue (sent enough times, or invalidated). */
  finished?(): void;
}

/**
 * A KV change on its way out. dskit's ringBroadcast.Invalidates: a newer message about the same
 * key whose parts (ring instances) include every part of the older one makes the older moot.
 */
export class KVBroadcast implements Broadcast {
  constructor(
    readonly message: GossipMessage & { type: 'kv' },
    readonly bytes: number,
    readonly version: number,
    readonly content: readonly string[],
  ) {}

  invalidates(older: Broadcast): boolean {
    if (!(older instanceof KVBroadcast)) return false;
    if (older.message.pair.key !== this.message.pair.key || older.version > this.version)
      return false;
    return older.content.every((c) => this.content.includes(c));
  }
}

interface Entry {
  readonly broadcast: Broadcast;
  readonly id: number;
  transmits: number;
}

/**
 * memberlist's TransmitLimitedQueue: each message is handed out retransmit_factor ×
 * ceil(log10(N+1)) times, least-sent first and newest first among equals, and a new message
 * drops the queued ones it invalidates (a newer state of the same member or key).
 */
export class TransmitLimitedQueue {
  private entries: Entry[] = [];
  private nextId = 0;
  private queuedBytes = 0;

  constructor(
    private readonly config: { retransmitFactor: number },
    private readonly numMembers: () => number,
  ) {}

  get length(): number {
    return this.entries.length;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  queue(broadcast: Broadcast): void {
    const kept: Entry[] = [];
    for (const e of this.entries) {
      if (broadcast.invalidates(e.broadcast)) this.finish(e);
      else kept.push(e);
    }
    kept.push({ broadcast, id: this.nextId++, transmits: 0 });
    this.queuedBytes += broadcast.bytes;
    this.entries = kept;
  }

  /**
   * Messages for one packet of at most `limitBytes` (each costs `overheadBytes` more); every
   * message returned counts one transmission.
   */
  take(overheadBytes: number, limitBytes: number): GossipMessage[] {
    if (this.entries.length === 0) return [];
    const limit = retransmitLimit(this.config.retransmitFactor, this.numMembers());
    const order = [...this.entries].sort((a, b) =>
      a.transmits !== b.transmits ? a.transmits - b.transmits : b.id - a.id,
    );
    const out: GossipMessage[] = [];
    let used = 0;
    for (const e of order) {
      const cost = overheadBytes + e.broadcast.bytes;
      if (used + cost > limitBytes) continue;
      used += cost;
      out.push(e.broadcast.message);
      e.transmits++;
      if (e.transmits >= limit) {
        this.entries.splice(this.entries.indexOf(e), 1);
        this.finish(e);
      }
    }
    return out;
  }

  /** Drops everything (shutdown). */
  reset(): void {
    for (const e of this.entries) this.finish(e);
    this.entries = [];
  }

  private finish(e: Entry): void {
    this.queuedBytes -= e.broadcast.bytes;
    e.broadcast.finished?.();
  }
}
