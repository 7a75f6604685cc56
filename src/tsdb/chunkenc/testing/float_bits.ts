// Test helpers: a float64's IEEE-754 bits as an unsigned bigint and back. NaN payloads
// (stale markers) must be compared as bits, never as numbers.

/** The 64 bits of `v`. */
export function toBits(v: number): bigint {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  return view.getBigUint64(0);
}

/** The float64 whose 64 bits are `bits`. */
export function fromBits(bits: bigint): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
}
