// Float64 values as two uint32 words, so sample values can be compared and stored without
// passing through places where V8 may canonicalise NaN payloads (the stale marker).

/** In a Uint32Array over a Float64Array, element i's high word is at 2i + HI, low at 2i + LO. */
export { FLOAT_WORD_HI as HI, FLOAT_WORD_LO as LO } from '../record/index.js';

/** Converts between a float64 and its two 32-bit words without going through a number array. */
export class FloatBits {
  private readonly view = new DataView(new ArrayBuffer(8));
  hi = 0;
  lo = 0;

  /** Splits `v` into `hi`/`lo`. */
  split(v: number): void {
    this.view.setFloat64(0, v);
    this.hi = this.view.getUint32(0);
    this.lo = this.view.getUint32(4);
  }

  join(hi: number, lo: number): number {
    this.view.setUint32(0, hi);
    this.view.setUint32(4, lo);
    return this.view.getFloat64(0);
  }
}
