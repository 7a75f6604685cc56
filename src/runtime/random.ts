/**
 * Randomness as components see it: named, independent, seeded streams. Two streams with
 * different names never share draws, so adding a draw to one subsystem does not shift
 * another's sequence (the simulator depends on that for replayable seeds).
 */
export interface Random {
  /** The stream with this name; the same name always returns the same stream object. */
  stream(name: string): RandomStream;
}

export interface RandomStream {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, maxExclusive). `maxExclusive` must be a positive safe integer. */
  int(maxExclusive: number): number;
  /** Uniform unsigned 32-bit integer. */
  uint32(): number;
  /** `n` uniform random bytes. */
  bytes(n: number): Uint8Array;
  /** A new independent stream derived from this one's seed and `name`. */
  fork(name: string): RandomStream;
}
