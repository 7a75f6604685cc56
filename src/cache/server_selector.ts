import { xxhash64String } from './xxhash64.js';

/**
 * Jump consistent hash (Lamping & Veach), as Thanos' `MemcachedJumpHashSelector` and Cortex
 * compute it: the bucket in [0, n) for a 64-bit key. Adding a bucket at the end moves only
 * about 1/n of the keys, which is why memcached servers must be appended, never inserted.
 */
export function jumpHash(key: bigint, buckets: number): number {
  let b = -1;
  let j = 0;
  let k = key;
  while (j < buckets) {
    b = j;
    k = BigInt.asUintN(64, k * 2862933555777941757n + 1n);
    // Float division exactly as the Go reference does (float64(b+1) * (2^31 / float64(k>>33+1))).
    j = Math.floor((b + 1) * (2147483648 / (Number(k >> 33n) + 1)));
  }
  return b;
}

/**
 * Natural ordering ("mc-2" < "mc-10"): runs of digits compare as numbers, other runs as
 * strings. Thanos sorts resolved addresses this way before hashing, so every client that
 * sees the same set of servers picks the same server for a key, whatever the DNS order.
 */
export function naturalCompare(a: string, b: string): number {
  const ca = chunks(a);
  const cb = chunks(b);
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const x = ca[i]!;
    const y = cb[i]!;
    if (x === y) continue;
    if (isDigits(x) && isDigits(y)) {
      const nx = x.replace(/^0+(?=\d)/, '');
      const ny = y.replace(/^0+(?=\d)/, '');
      if (nx.length !== ny.length) return nx.length - ny.length;
      if (nx !== ny) return nx < ny ? -1 : 1;
      // Same number, different zero padding: fall through to a plain comparison.
    }
    return x < y ? -1 : 1;
  }
  return ca.length - cb.length;
}

export function naturalSort(values: readonly string[]): string[] {
  return [...values].sort(naturalCompare);
}

function chunks(s: string): string[] {
  return s.match(/\d+|\D+/g) ?? [];
}

function isDigits(s: string): boolean {
  return s.charCodeAt(0) >= 48 && s.charCodeAt(0) <= 57;
}

/**
 * Picks the server of a key: xxhash64 of the key, jump-hashed over the naturally sorted
 * server list; a single server needs no hash. Immutable: a new server set makes a new one.
 */
export class ServerSelector {
  readonly servers: readonly string[];

  constructor(servers: readonly string[]) {
    this.servers = naturalSort([...new Set(servers)]);
  }

  /** The server for `key`, or undefined when there are no servers. */
  pick(key: string): string | undefined {
    const n = this.servers.length;
    if (n === 0) return undefined;
    if (n === 1) return this.servers[0];
    return this.servers[jumpHash(xxhash64String(key), n)];
  }
}
