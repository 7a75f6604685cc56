/**
 * Keys and values of the caching bucket, as Thanos writes them (`pkg/store/cache/cachekey`,
 * Cortex's snappy JSON iter codec), so a memcached shared with Cortex is read the same way by
 * both. Decoders return undefined for anything that is not a well-formed value: a bad cached
 * value is a miss, never an answer.
 */
import { compress, uncompress } from 'snappyjs';
import type { ObjectAttributes } from '../runtime/index.js';

export const existsKey = (name: string): string => `exists:${name}`;
export const contentKey = (name: string): string => `content:${name}`;
export const attributesKey = (name: string): string => `attrs:${name}`;
export const subrangeKey = (name: string, start: number, end: number): string =>
  `subrange:${name}:${start}:${end}`;
export const iterKey = (dir: string, recursive: boolean, configHash: string): string =>
  `${recursive ? 'iter-recursive' : 'iter'}:${dir}:${configHash}`;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
/** A listing bigger than this is not a listing we cached. */
const MAX_ITER_BYTES = 256 * 1024 * 1024;

/** Go's strconv.FormatBool. */
export function encodeExists(exists: boolean): Uint8Array {
  return encoder.encode(exists ? 'true' : 'false');
}

/** Go's strconv.ParseBool, which Thanos decodes `exists:` values with. */
export function decodeExists(value: Uint8Array): boolean | undefined {
  let s: string;
  try {
    s = decoder.decode(value);
  } catch {
    return undefined;
  }
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** Snappy (block format) of the JSON list of names. */
export function encodeIter(names: readonly string[]): Uint8Array {
  return compress(encoder.encode(JSON.stringify(names)));
}

/**
 * The names of a cached listing of `dir`; each must lie below `dir`, which also rejects a
 * value stored under another key.
 */
export function decodeIter(value: Uint8Array, dir: string): string[] | undefined {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(uncompress(value, MAX_ITER_BYTES)));
    // Go marshals an empty (nil) listing as null.
    if (parsed === null) return [];
    if (!Array.isArray(parsed)) return undefined;
    const out: string[] = [];
    for (const n of parsed) {
      if (typeof n !== 'string' || !n.startsWith(dir) || n === dir) return undefined;
      out.push(n);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** objstore.ObjectAttributes as Go's encoding/json writes it. */
export function encodeAttributes(attrs: ObjectAttributes): Uint8Array {
  return encoder.encode(
    JSON.stringify({ size: attrs.size, last_modified: goTimeJson(attrs.lastModified) }),
  );
}

export function decodeAttributes(value: Uint8Array): ObjectAttributes | undefined {
  try {
    const parsed: unknown = JSON.parse(decoder.decode(value));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { size, last_modified: lm } = parsed as { size?: unknown; last_modified?: unknown };
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return undefined;
    if (typeof lm !== 'string') return undefined;
    const lastModified = Date.parse(lm);
    if (!Number.isFinite(lastModified)) return undefined;
    return { size, lastModified };
  } catch {
    return undefined;
  }
}

/** RFC 3339 with the fraction's trailing zeros trimmed (Go's time.RFC3339Nano), in UTC. */
function goTimeJson(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2006-01-02T15:04:05.000Z
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac === '' ? 'Z' : `.${frac}Z`));
}
