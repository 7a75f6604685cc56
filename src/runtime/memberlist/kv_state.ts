/**
 * The gossiped key-value state of one member (dskit's `KV.store` and `mergeValueForKey`):
 * per key a codec-typed mergeable value, a local version, and a deleted flag decided
 * last-writer-wins by `updatedAt`. Next to it, the client view: what clients read (tombstones
 * hidden, deleted keys absent) kept in a MemoryKVStore, so get/list/watch behave exactly like
 * the in-memory store's.
 */
import { MemoryKVStore } from '../memory/index.js';
import type { AnyMergeCodec } from './codec.js';
import type { MemberlistMetrics } from './metrics.js';
import type { WireKVPair } from './wire.js';

export interface KVEntry {
  readonly value: unknown;
  readonly codec: AnyMergeCodec;
  /** Local only: bumped by every change on this member. */
  readonly version: number;
  readonly deleted: boolean;
  readonly updatedAtMs: number;
}

export interface MergeInput {
  /** A local CAS's whole new value (removals become tombstones). */
  readonly localCAS: boolean;
  readonly deleted: boolean;
  readonly updatedAtMs: number;
  readonly nowMs: number;
}

export interface KVChange {
  readonly key: string;
  /** The state to gossip: only what changed. */
  readonly change: unknown;
  readonly entry: KVEntry;
  readonly content: readonly string[];
}

export class KVState {
  private readonly entries = new Map<string, KVEntry>();
  /** What clients read: `codec.toClient(value)` of every key not deleted. */
  readonly view = new MemoryKVStore();
  private readonly tombstoneKeys = new Set<string>();

  constructor(
    private readonly config: { leftIngestersTimeoutMs: number; tombstoneTimeoutMs: number },
    private readonly metrics: MemberlistMetrics,
  ) {}

  read(key: string): KVEntry | undefined {
    return this.entries.get(key);
  }

  get size(): number {
    return this.entries.size;
  }

  keys(): string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * Merges `incoming` into the key's value (Cortex's mergeValueForKey): the data by the codec's
   * merge, the deleted flag by the newer `updatedAtMs` (a deletion wins a tie). Returns the
   * change to gossip, or undefined when nothing changed. Throws when the key holds another
   * codec's value or the codec's merge throws.
   */
  merge(
    key: string,
    incoming: unknown,
    codec: AnyMergeCodec,
    input: MergeInput,
  ): KVChange | undefined {
    const curr = this.entries.get(key);
    if (curr !== undefined && curr.codec.id !== codec.id)
      throw new Error(
        `key ${JSON.stringify(key)} holds a ${JSON.stringify(curr.codec.id)} value, not ${JSON.stringify(codec.id)}`,
      );
    let result: unknown;
    let change: unknown;
    if (curr === undefined) {
      result = incoming;
      change = incoming;
    } else {
      const merged = codec.merge(curr.value, incoming, {
        localCAS: input.localCAS,
        nowMs: input.nowMs,
      });
      result = merged?.value ?? curr.value;
      change = merged?.change;
    }
    const dataChanged = change !== undefined && codec.content(change).length > 0;
    const currUpdated = curr?.updatedAtMs ?? 0;
    const currDeleted = curr?.deleted ?? false;
    let deleted = currDeleted;
    let statusChanged = false;
    if (input.updatedAtMs > currUpdated) {
      if (input.deleted !== currDeleted || input.deleted) {
        deleted = input.deleted;
        statusChanged = true;
      }
    } else if (input.updatedAtMs === currUpdated && input.deleted && !currDeleted) {
      deleted = true;
      statusChanged = true;
    }
    const updatedAtMs = Math.max(currUpdated, input.updatedAtMs);
    if (!dataChanged && !statusChanged) {
      // Keep the newest decision time anyway, so every member orders later deletes the same.
      if (curr !== undefined && updatedAtMs > currUpdated)
        this.entries.set(key, { ...curr, updatedAtMs });
      return undefined;
    }
    if (!dataChanged) change = result;
    let gossip = true;
    if (this.config.leftIngestersTimeoutMs > 0) {
      const limit = input.nowMs - this.config.leftIngestersTimeoutMs;
      const cleaned = codec.removeTombstones(result, limit);
      result = cleaned.value;
      // Only keys that ever held tombstones get a series (HA tracker keys never do).
      if (cleaned.total > 0 || this.tombstoneKeys.has(key)) {
        this.tombstoneKeys.add(key);
        this.metrics.tombstones.set({ key }, cleaned.total);
      }
      if (cleaned.removed > 0) this.metrics.tombstonesRemoved.inc({ key }, cleaned.removed);
      // A change made only of expired tombstones updates this member but is not worth gossiping.
      change = codec.removeTombstones(change, limit).value;
      if (codec.content(change).length === 0 && !statusChanged) gossip = false;
    }
    const entry: KVEntry = {
      value: result,
      codec,
      version: (curr?.version ?? 0) + 1,
      deleted,
      updatedAtMs,
    };
    this.entries.set(key, entry);
    this.updateView(key, entry);
    if (!gossip) return undefined;
    return { key, change, entry, content: codec.content(change) };
  }

  /** Every entry on the wire, for push/pull (deleted ones too, so deletions spread). */
  localState(): WireKVPair[] {
    const out: WireKVPair[] = [];
    for (const [key, e] of this.entries) out.push(wirePair(key, e.value, e));
    return out;
  }

  /** Forgets keys deleted longer than tombstone_timeout ago (Cortex's sweepTombstones). */
  sweepDeleted(nowMs: number): number {
    if (this.config.tombstoneTimeoutMs <= 0) return 0;
    let swept = 0;
    for (const [key, e] of [...this.entries]) {
      if (e.deleted && nowMs - e.updatedAtMs > this.config.tombstoneTimeoutMs) {
        this.entries.delete(key);
        if (this.tombstoneKeys.delete(key)) this.metrics.tombstones.remove({ key });
        swept++;
      }
    }
    return swept;
  }

  private updateView(key: string, entry: KVEntry): void {
    const current = this.view.read(key)?.value;
    if (entry.deleted) {
      if (current !== undefined) this.view.put(key, null);
      return;
    }
    const next = entry.codec.toClient(entry.value);
    if (current !== undefined && sameBytes(current, next)) return;
    this.view.put(key, next);
  }
}

/** One key's state (or change) as gossiped. */
export function wirePair(
  key: string,
  value: unknown,
  entry: Pick<KVEntry, 'codec' | 'deleted' | 'updatedAtMs'>,
): WireKVPair {
  return {
    key,
    value: Buffer.from(entry.codec.encode(value)).toString('base64'),
    codec: entry.codec.id,
    deleted: entry.deleted,
    updatedAt: entry.updatedAtMs,
  };
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
