/**
 * Shuffle sharding (Cortex's `Ring.ShuffleShard`): the subring of `size` instances that serves
 * one identifier (a tenant), chosen deterministically from the identifier so every member of
 * the cluster computes the same subring from the same descriptor.
 *
 * For each zone (one pseudo-zone without zone awareness), in sorted order, a generator seeded
 * with MD5(identifier [, NUL, zone]) draws a token; the instance owning the first ring token
 * greater than the draw joins the shard, the walk going on clockwise past instances already
 * chosen. With zone awareness each zone gives ceil(size / zones) instances. Drawing one more
 * instance never changes the earlier draws, so growing the shard only adds instances.
 *
 * Seeds are Cortex's; the generator is not Go's math/rand (whose state table would have to be
 * copied), so for the same descriptor a Strata subring differs from a Cortex one. Strata and
 * Cortex instances cannot share a ring anyway (the ring values are JSON, not protobuf).
 */
import { createHash } from 'node:crypto';
import type { InstanceDesc, RingDesc } from './model.js';

export interface ShuffleShardOptions {
  /** Pick ceil(size / zones) instances from each zone (the ring's zone awareness). */
  zoneAwarenessEnabled: boolean;
}

/**
 * The descriptor of `identifier`'s shard of `desc`: `size` instances (LEFT ones never count),
 * or the whole ring when `size` <= 0 or the ring has no more than `size` instances.
 */
export function shuffleShard(
  desc: RingDesc,
  identifier: string,
  size: number,
  options: ShuffleShardOptions,
): RingDesc {
  const members = Object.keys(desc.ingesters)
    .sort()
    .filter((id) => (desc.ingesters[id] as InstanceDesc).state !== 'LEFT');
  if (size <= 0 || members.length <= size) return desc;

  const zones = options.zoneAwarenessEnabled
    ? [...new Set(members.map((id) => (desc.ingesters[id] as InstanceDesc).zone))].sort()
    : [''];
  const perZone = options.zoneAwarenessEnabled ? Math.ceil(size / zones.length) : size;
  const shard = Object.create(null) as Record<string, InstanceDesc>;

  for (const zone of zones) {
    const tokens = tokenTable(desc, members, options.zoneAwarenessEnabled ? zone : undefined);
    if (tokens.length === 0) continue;
    const draw = tokenDraws(shuffleShardSeed(identifier, options.zoneAwarenessEnabled ? zone : ''));
    for (let i = 0; i < perZone; i++) {
      let found = false;
      const start = searchToken(tokens, draw());
      for (let n = 0; n < tokens.length; n++) {
        const owner = (tokens[(start + n) % tokens.length] as TokenEntry).id;
        if (shard[owner] !== undefined) continue;
        shard[owner] = desc.ingesters[owner] as InstanceDesc;
        found = true;
        break;
      }
      // Every instance of the zone is already in the shard.
      if (!found) break;
    }
  }
  return { ingesters: shard };
}

interface TokenEntry {
  token: number;
  id: string;
}

/** Tokens of `members` (of one zone when `zone` is given), sorted; ties by instance ID. */
function tokenTable(desc: RingDesc, members: readonly string[], zone?: string): TokenEntry[] {
  const out: TokenEntry[] = [];
  for (const id of members) {
    const inst = desc.ingesters[id] as InstanceDesc;
    if (zone !== undefined && inst.zone !== zone) continue;
    for (const token of inst.tokens) out.push({ token, id });
  }
  return out.sort((a, b) => a.token - b.token || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Index of the first token strictly greater than `key`, wrapping to 0 (Cortex's searchToken). */
function searchToken(tokens: readonly TokenEntry[], key: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((tokens[mid] as TokenEntry).token > key) hi = mid;
    else lo = mid + 1;
  }
  return lo === tokens.length ? 0 : lo;
}

/**
 * Cortex's ShuffleShardSeed: the first 64 bits (big-endian) of MD5(identifier), with a NUL
 * and the zone appended when there is one.
 */
export function shuffleShardSeed(identifier: string, zone: string): bigint {
  const md5 = createHash('md5').update(identifier, 'utf8');
  if (zone !== '') md5.update(Uint8Array.of(0)).update(zone, 'utf8');
  return md5.digest().readBigUInt64BE(0);
}

const MASK64 = (1n << 64n) - 1n;

/** Uniform uint32 draws from SplitMix64 seeded with `seed` (the upper half of each output). */
function tokenDraws(seed: bigint): () => number {
  let state = seed & MASK64;
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    z ^= z >> 31n;
    return Number(z >> 32n);
  };
}
