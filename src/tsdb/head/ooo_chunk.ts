// Out-of-order samples of one series (Prometheus OOOChunk and memSeriesOOOFields,
// tsdb/ooo_head.go): the newest ones in a small buffer kept sorted by time, which becomes an
// XOR chunk once it holds `out_of_order_cap_max` samples; the chunks cut from it may overlap
// each other and the in-order chunks, so reads merge them. Values are kept as two uint32 words,
// never as JavaScript numbers, so NaN payloads (the stale marker) survive.
import { XorChunk, ValueType, type XorIterator } from '../chunkenc/index.js';

/** Prometheus's default `out_of_order_cap_max`: samples in an OOO head chunk before it is cut. */
export const DEFAULT_OOO_CAP_MAX = 32;

/** An out-of-order chunk cut from the buffer; `seq` orders chunks head-wide for truncation. */
export interface OOOChunk {
  readonly chunk: XorChunk;
  readonly minTime: number;
  readonly maxTime: number;
  readonly seq: number;
}

/** Up to `capacity` samples sorted by time, unique timestamps. */
export class OOOBuffer {
  length = 0;
  readonly timestamps: Float64Array;
  /** Two words per sample: high at 2i, low at 2i + 1. */
  readonly words: Uint32Array;

  constructor(readonly capacity: number) {
    this.timestamps = new Float64Array(capacity);
    this.words = new Uint32Array(2 * capacity);
  }

  full(): boolean {
    return this.length >= this.capacity;
  }

  minTime(): number {
    return this.timestamps[0] as number;
  }

  maxTime(): number {
    return this.timestamps[this.length - 1] as number;
  }

  /** Index of the first sample at or after t (length if none). */
  search(t: number): number {
    const ts = this.timestamps;
    // Out-of-order samples mostly arrive in order among themselves: try the end first.
    if (this.length === 0 || (ts[this.length - 1] as number) < t) return this.length;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ts[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Inserts a sample whose timestamp is not in the buffer yet; the buffer must not be full. */
  insert(t: number, hi: number, lo: number): void {
    const i = this.search(t);
    const n = this.length;
    if (i < n) {
      this.timestamps.copyWithin(i + 1, i, n);
      this.words.copyWithin(2 * i + 2, 2 * i, 2 * n);
    }
    this.timestamps[i] = t;
    this.words[2 * i] = hi;
    this.words[2 * i + 1] = lo;
    this.length = n + 1;
  }

  /** The samples as one XOR chunk (a buffer never exceeds the chunk's sample limit). */
  toChunk(): XorChunk {
    const chunk = new XorChunk();
    const app = chunk.appender();
    for (let i = 0; i < this.length; i++)
      app.appendBits(
        this.timestamps[i] as number,
        this.words[2 * i] as number,
        this.words[2 * i + 1] as number,
      );
    chunk.compact();
    return chunk;
  }
}

/**
 * Looks for a sample at exactly `t` in XOR chunk bytes; on success writes its value bits to
 * `out` and returns true.
 */
export function findInChunk(
  it: XorIterator,
  bytes: Uint8Array,
  t: number,
  out: { hi: number; lo: number },
): boolean {
  it.reset(bytes);
  if (it.seek(t) === ValueType.None || it.atT() !== t) return false;
  out.hi = it.atHi();
  out.lo = it.atLo();
  return true;
}
