// ULIDs name blocks (oklog/ulid as Prometheus and Thanos use it): 128 bits, the first 48 a
// millisecond Unix timestamp and the last 80 random, written as 26 Crockford base32
// characters. The canonical text is upper case, so comparing strings orders by time first.
// Time and randomness come from the Env (Clock, RandomStream), never from Date/Math.random.

import type { Clock, RandomStream } from '../../runtime/index.js';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ULID_LENGTH = 26;
/** Largest timestamp a ULID can hold (2^48 - 1 ms, year 10889). */
export const ULID_MAX_TIME = 281474976710655;
const ENTROPY_BYTES = 10;

// Decoding table: lower case is accepted (oklog's Parse does); I, L, O, U are not.
const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) {
  DECODE[ALPHABET.charCodeAt(i)] = i;
  DECODE[ALPHABET.toLowerCase().charCodeAt(i)] = i;
}

/** A malformed ULID string; the message names the value and what is wrong with it. */
export class UlidError extends Error {
  override readonly name = 'UlidError';
}

/** The 16 bytes of a ULID as its canonical 26-character string. */
export function formatUlid(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new UlidError(`ULID must be 16 bytes, got ${bytes.length}`);
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  const out = new Array<string>(ULID_LENGTH);
  for (let i = ULID_LENGTH - 1; i >= 0; i--) {
    out[i] = ALPHABET[Number(n & 31n)] as string;
    n >>= 5n;
  }
  return out.join('');
}

/** Parses a ULID string (either case) into its 16 bytes; throws UlidError naming the value. */
export function parseUlid(text: string): Uint8Array {
  if (text.length !== ULID_LENGTH) {
    throw new UlidError(`invalid ULID ${JSON.stringify(text)}: length ${text.length}, want 26`);
  }
  let n = 0n;
  for (let i = 0; i < ULID_LENGTH; i++) {
    const code = text.charCodeAt(i);
    const v = code < 128 ? (DECODE[code] as number) : -1;
    if (v < 0) {
      throw new UlidError(
        `invalid ULID ${JSON.stringify(text)}: character ${JSON.stringify(text[i])} at position ${i} is not Crockford base32`,
      );
    }
    n = (n << 5n) | BigInt(v);
  }
  // 26 characters carry 130 bits; the top two must be zero (first character at most '7').
  if (n >> 128n !== 0n) {
    throw new UlidError(`invalid ULID ${JSON.stringify(text)}: value overflows 128 bits`);
  }
  const bytes = new Uint8Array(16);
  for (let i = 15; i >= 0; i--) {
    bytes[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return bytes;
}

/** True if `text` is a valid ULID in canonical (upper case) form. */
export function isCanonicalUlid(text: string): boolean {
  try {
    parseUlid(text);
  } catch {
    return false;
  }
  return text === text.toUpperCase();
}

/** The canonical (upper case) form of a ULID string; throws UlidError if invalid. */
export function canonicalUlid(text: string): string {
  parseUlid(text);
  return text.toUpperCase();
}

/** The millisecond timestamp of a ULID. */
export function ulidTime(id: string): number {
  const b = parseUlid(id);
  let t = 0;
  for (let i = 0; i < 6; i++) t = t * 256 + (b[i] as number);
  return t;
}

/** Orders ULIDs by their bytes (time first), like oklog's ULID.Compare: -1, 0 or 1. */
export function compareUlids(a: string, b: string): number {
  const x = canonicalUlid(a);
  const y = canonicalUlid(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Builds a ULID from a timestamp and 10 entropy bytes. */
export function ulidFromParts(timeMs: number, entropy: Uint8Array): string {
  if (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs > ULID_MAX_TIME) {
    throw new UlidError(`ULID time must be an integer in [0, 2^48), got ${timeMs}`);
  }
  if (entropy.length !== ENTROPY_BYTES) {
    throw new UlidError(`ULID entropy must be 10 bytes, got ${entropy.length}`);
  }
  const bytes = new Uint8Array(16);
  let t = timeMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = t % 256;
    t = Math.floor(t / 256);
  }
  bytes.set(entropy, 6);
  return formatUlid(bytes);
}

export interface UlidGeneratorConfig {
  /**
   * When true, ULIDs made within one millisecond increase strictly: the entropy of the previous
   * one is incremented instead of drawn afresh (oklog's monotonic entropy, increment 1).
   */
  monotonic?: boolean;
}

export interface UlidGeneratorDeps {
  clock: Clock;
  random: RandomStream;
}

/** Makes new ULIDs from the Env's clock and a random stream. */
export class UlidGenerator {
  private readonly monotonic: boolean;
  private lastTime = -1;
  private readonly lastEntropy = new Uint8Array(ENTROPY_BYTES);

  constructor(
    config: UlidGeneratorConfig,
    private readonly deps: UlidGeneratorDeps,
  ) {
    this.monotonic = config.monotonic ?? false;
  }

  /** A new ULID for the clock's current time. */
  next(): string {
    return this.at(Math.floor(this.deps.clock.now()));
  }

  /** A new ULID for the given millisecond timestamp. */
  at(timeMs: number): string {
    if (this.monotonic && timeMs === this.lastTime) {
      // Increment the 80-bit entropy as a big-endian counter.
      let i = ENTROPY_BYTES - 1;
      for (; i >= 0; i--) {
        const b = (this.lastEntropy[i] as number) + 1;
        this.lastEntropy[i] = b & 0xff;
        if (b <= 0xff) break;
      }
      if (i < 0) {
        throw new UlidError(`ULID entropy exhausted within millisecond ${timeMs}`);
      }
    } else {
      this.lastEntropy.set(this.deps.random.bytes(ENTROPY_BYTES));
      this.lastTime = timeMs;
    }
    return ulidFromParts(timeMs, this.lastEntropy);
  }
}
