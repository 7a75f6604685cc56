import type { Random, RandomStream } from './random.js';

/**
 * Deterministic pseudo-random streams shared by the real runtime (seeded once from the
 * operating system) and the simulator (seeded from the scenario seed). A stream's seed is
 * derived from its parent seed and its name only, so streams are independent of each other
 * and of the order in which they are first used.
 */
export function createSeededRandom(seed: string): Random {
  const streams = new Map<string, RandomStream>();
  return {
    stream(name: string): RandomStream {
      let s = streams.get(name);
      if (s === undefined) {
        s = new SeededStream(deriveSeed(seed, name));
        streams.set(name, s);
      }
      return s;
    },
  };
}

const MASK64 = (1n << 64n) - 1n;

/** FNV-1a over the UTF-8 of `parent + '/' + name`, then one splitmix64 round to spread bits. */
function deriveSeed(parent: string, name: string): bigint {
  const bytes = new TextEncoder().encode(`${parent}/${name}`);
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & MASK64;
  }
  return splitmix64(h);
}

function splitmix64(x: bigint): bigint {
  let z = (x + 0x9e3779b97f4a7c15n) & MASK64;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return z ^ (z >> 31n);
}

/** sfc32: small, fast, passes PractRand to large sizes; 32-bit state words avoid BigInt in the hot path. */
class SeededStream implements RandomStream {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(private readonly seed: bigint) {
    this.a = Number(seed & 0xffffffffn) >>> 0;
    this.b = Number((seed >> 32n) & 0xffffffffn) >>> 0;
    this.c = Number(splitmix64(seed) & 0xffffffffn) >>> 0;
    this.d = 1;
    // Discard the first outputs: sfc32 needs a few rounds to decorrelate from the seed words.
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  next(): number {
    // 53 random bits: 27 from one draw, 26 from another, as a double in [0, 1).
    const hi = this.uint32() >>> 5;
    const lo = this.uint32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  int(maxExclusive: number): number {
    if (!Number.isSafeInteger(maxExclusive) || maxExclusive <= 0) {
      throw new RangeError(`int(maxExclusive): need a positive safe integer, got ${maxExclusive}`);
    }
    if (maxExclusive <= 0x100000000) {
      // Rejection sampling removes modulo bias.
      const limit = 0x100000000 - (0x100000000 % maxExclusive);
      for (;;) {
        const x = this.uint32();
        if (x < limit) return x % maxExclusive;
      }
    }
    return Math.floor(this.next() * maxExclusive);
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      let x = this.uint32();
      for (let j = i; j < Math.min(n, i + 4); j++) {
        out[j] = x & 0xff;
        x >>>= 8;
      }
    }
    return out;
  }

  fork(name: string): RandomStream {
    return new SeededStream(deriveSeed(this.seed.toString(16), name));
  }
}
