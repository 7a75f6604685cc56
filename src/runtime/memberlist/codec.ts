/**
 * How the gossiped store reconciles values: every key's value is a state of a codec-specific
 * mergeable type (Cortex's `memberlist.Mergeable`). The store never compares versions across
 * members; it merges every state it receives into its own, and gossips what changed.
 */

export interface MergeOptions {
  /**
   * The incoming state is the whole new value a local CAS wrote (not a remote state): parts of
   * the current state missing from it were removed by the writer and must become tombstones
   * (the ring marks such instances LEFT). Only local writes set it; remote merges never do.
   */
  readonly localCAS: boolean;
  /** The local clock, for tombstone timestamps. */
  readonly nowMs: number;
}

export interface MergeResult<T> {
  /** The merged state (a new object; the inputs are never modified). */
  readonly value: T;
  /** The parts of `incoming` that changed the current state: what is gossiped on. */
  readonly change: T;
}

export interface TombstoneRemoval<T> {
  readonly value: T;
  /** Tombstones left in `value`. */
  readonly total: number;
  readonly removed: number;
}

/** What a client write sees when its bytes become a state. */
export interface ClientWrite<T> {
  /** The stored state the write replaces (undefined for a new or deleted key). */
  readonly current: T | undefined;
  readonly nowMs: number;
  /** This member's name (a writer ID for last-writer-wins states). */
  readonly nodeName: string;
}

/**
 * A mergeable value type. For members to converge, `merge` (without `localCAS`) must be
 * commutative, associative and idempotent in the resulting state: A⊔B = B⊔A,
 * (A⊔B)⊔C = A⊔(B⊔C), A⊔A = A, and must report no change when the result equals `current`.
 */
export interface MergeCodec<T> {
  /** Names the codec on the wire (Cortex's codec ID, e.g. `ringDesc`). */
  readonly id: string;
  /** The state as gossiped (with tombstones). */
  encode(value: T): Uint8Array;
  /** Throws on malformed bytes. */
  decode(bytes: Uint8Array): T;
  /** A client's CAS output as a state to merge into the current one. Throws on malformed bytes. */
  fromClient(bytes: Uint8Array, write: ClientWrite<T>): T;
  /** What clients read (get, watches, the input of a CAS): tombstones hidden. */
  toClient(value: T): Uint8Array;
  /** `incoming` merged into `current`, or undefined when nothing changed. */
  merge(current: T, incoming: T, opts: MergeOptions): MergeResult<T> | undefined;
  /** Drops tombstones older than `limitMs` (every tombstone when undefined). */
  removeTombstones(value: T, limitMs: number | undefined): TombstoneRemoval<T>;
  /** Names of the parts a state holds (ring instance IDs): an empty change is no change. */
  content(value: T): string[];
}

/** A codec of any value type, as the store keeps them side by side. */
export type AnyMergeCodec = MergeCodec<unknown>;

/** Widens a typed codec for the store; the store only passes a codec its own states. */
export function anyCodec<T>(codec: MergeCodec<T>): AnyMergeCodec {
  return codec;
}

/** A last-writer-wins register over opaque bytes. */
export interface LwwValue {
  readonly data: Uint8Array;
  /** Hybrid logical time of the write: max(now, previous + 1) on the writer, in ms. */
  readonly ts: number;
  readonly writer: string;
}

export const LWW_CODEC_ID = 'lww';

/**
 * The codec of keys opened without one: any bytes, the latest write wins (by write time, then
 * writer name, then bytes, so every member picks the same winner). Concurrent writes on
 * different members are not combined: one of them is lost, as in any last-writer-wins store.
 */
export const LWW_BYTES_CODEC: MergeCodec<LwwValue> = {
  id: LWW_CODEC_ID,
  encode(value) {
    return new TextEncoder().encode(
      JSON.stringify({
        ts: value.ts,
        writer: value.writer,
        data: Buffer.from(value.data).toString('base64'),
      }),
    );
  },
  decode(bytes) {
    const raw: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    if (typeof raw !== 'object' || raw === null) throw new Error('lww value: not an object');
    const { ts, writer, data } = raw as Record<string, unknown>;
    if (typeof ts !== 'number' || !Number.isSafeInteger(ts))
      throw new Error('lww value: ts must be an integer');
    if (typeof writer !== 'string') throw new Error('lww value: writer must be a string');
    if (typeof data !== 'string') throw new Error('lww value: data must be base64 text');
    return { ts, writer, data: new Uint8Array(Buffer.from(data, 'base64')) };
  },
  fromClient(bytes, write) {
    const ts = Math.max(Math.floor(write.nowMs), (write.current?.ts ?? 0) + 1);
    return { data: bytes.slice(), ts, writer: write.nodeName };
  },
  toClient(value) {
    return value.data.slice();
  },
  merge(current, incoming) {
    return compareLww(incoming, current) > 0 ? { value: incoming, change: incoming } : undefined;
  },
  removeTombstones(value) {
    return { value, total: 0, removed: 0 };
  },
  content() {
    return ['value'];
  },
};

function compareLww(a: LwwValue, b: LwwValue): number {
  if (a.ts !== b.ts) return a.ts < b.ts ? -1 : 1;
  if (a.writer !== b.writer) return a.writer < b.writer ? -1 : 1;
  return compareBytes(a.data, b.data);
}

/** Lexicographic byte order. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}
