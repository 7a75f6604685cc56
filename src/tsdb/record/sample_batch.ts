// A growable, column-oriented list of (ref, timestamp, value) samples backed by typed arrays,
// so decoding a samples record allocates nothing per sample and values keep their exact
// bits (NaN payloads such as Prometheus's stale marker included).

/** Word order of a float64 seen as two uint32 on this host (typed arrays use host order). */
const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** Index of the high / low 32-bit word of element i is 2i + HI / 2i + LO. */
export const HI = HOST_LITTLE_ENDIAN ? 1 : 0;
export const LO = HOST_LITTLE_ENDIAN ? 0 : 1;

/**
 * Samples in three parallel columns. `refs` and `timestamps` hold safe integers; `values`
 * holds float64s whose bits are only ever moved as raw words (`valueWords`), never through a
 * JavaScript number, because V8 may canonicalise NaN payloads when storing numbers. Arrays
 * are replaced when the batch grows: read them after filling, not before.
 */
export class SampleBatch {
  length = 0;
  refs: Float64Array;
  timestamps: Float64Array;
  values: Float64Array;
  /** The bits of `values`, two uint32 words per sample (see HI / LO). */
  valueWords: Uint32Array;

  constructor(capacity = 64) {
    const cap = Math.max(1, capacity);
    this.refs = new Float64Array(cap);
    this.timestamps = new Float64Array(cap);
    this.values = new Float64Array(cap);
    this.valueWords = new Uint32Array(this.values.buffer);
  }

  /** Forgets the samples, keeps the capacity. */
  clear(): void {
    this.length = 0;
  }

  /** Makes room for `n` samples in total. */
  reserve(n: number): void {
    if (n <= this.refs.length) return;
    let cap = this.refs.length * 2;
    while (cap < n) cap *= 2;
    const refs = new Float64Array(cap);
    refs.set(this.refs.subarray(0, this.length));
    const timestamps = new Float64Array(cap);
    timestamps.set(this.timestamps.subarray(0, this.length));
    const values = new Float64Array(cap);
    const words = new Uint32Array(values.buffer);
    words.set(this.valueWords.subarray(0, 2 * this.length));
    this.refs = refs;
    this.timestamps = timestamps;
    this.values = values;
    this.valueWords = words;
  }

  /** Appends a sample whose value is an ordinary number (a NaN's payload is not guaranteed). */
  push(ref: number, t: number, v: number): void {
    this.reserve(this.length + 1);
    const i = this.length++;
    this.refs[i] = ref;
    this.timestamps[i] = t;
    this.values[i] = v;
  }

  /** Appends a sample whose value is given as its IEEE-754 bits (high and low 32-bit words). */
  pushBits(ref: number, t: number, hi: number, lo: number): void {
    this.reserve(this.length + 1);
    const i = this.length++;
    this.refs[i] = ref;
    this.timestamps[i] = t;
    this.valueWords[2 * i + HI] = hi;
    this.valueWords[2 * i + LO] = lo;
  }

  /** Appends sample `i` of `src`, bit-exact. */
  pushFrom(src: SampleBatch, i: number): void {
    const w = src.valueWords;
    this.pushBits(
      src.refs[i] as number,
      src.timestamps[i] as number,
      w[2 * i + HI] as number,
      w[2 * i + LO] as number,
    );
  }

  /** The value bits of sample `i` as a uint64 (for tests and messages; allocates a bigint). */
  valueBits(i: number): bigint {
    const w = this.valueWords;
    return (BigInt(w[2 * i + HI] as number) << 32n) | BigInt(w[2 * i + LO] as number);
  }

  /**
   * Keeps only the samples for which `keep(ref, t)` holds, in order, in place; returns how
   * many were dropped.
   */
  retain(keep: (ref: number, t: number) => boolean): number {
    const { refs, timestamps, valueWords: w } = this;
    let out = 0;
    for (let i = 0; i < this.length; i++) {
      const ref = refs[i] as number;
      const t = timestamps[i] as number;
      if (!keep(ref, t)) continue;
      if (out !== i) {
        refs[out] = ref;
        timestamps[out] = t;
        w[2 * out] = w[2 * i] as number;
        w[2 * out + 1] = w[2 * i + 1] as number;
      }
      out++;
    }
    const dropped = this.length - out;
    this.length = out;
    return dropped;
  }
}
