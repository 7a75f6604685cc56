/**
 * What the results cache stores. The logical key is Cortex's (`constSplitter`
 * GenerateCacheKey: `<tenants>:<query>:<step>:<start / interval>`), the memcached key is
 * Cortex's `cache.HashKey` (hex FNV-64a of the logical key), and the value is a
 * CachedResponse — the logical key plus the cached extents — so that a colliding hash or an
 * entry written by someone else is recognised on read.
 *
 * The value is JSON, not Cortex's protobuf (`{"format":"strata-results-v1","key":…,
 * "extents":[{"start":ms,"end":ms,"response":<the querier's query_range body>}]}`): each
 * extent's answer is stored in the querier's own bytes, which the range codec already reads
 * and writes exactly. A results memcached shared with Cortex stays safe: Cortex cannot
 * unmarshal these values as protobuf and Strata cannot parse Cortex's as JSON, so either
 * side sees the other's entries as misses and overwrites them, and never serves them.
 */
import type { RangeRequest } from './range_request.js';
import {
  encodeRangeResponseText,
  rangeResponseFromJson,
  type RangeResponse,
} from './range_response.js';

export const CACHED_RESPONSE_FORMAT = 'strata-results-v1';

/** A cached part of a query's answer: samples with timestamps in [start, end] (ms). */
export interface Extent {
  readonly start: number;
  readonly end: number;
  readonly response: RangeResponse;
}

export interface CachedResponse {
  readonly key: string;
  readonly extents: readonly Extent[];
}

/** Cortex's results cache key; the tenants joined with `|` (tenant.JoinTenantIDs). */
export function generateCacheKey(req: RangeRequest, interval: number): string {
  const currentInterval = Math.trunc(req.start / interval);
  return `${req.tenantIds.join('|')}:${req.query}:${req.step}:${currentInterval}`;
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = (1n << 64n) - 1n;

/** Cortex `cache.HashKey`: FNV-64a of the key's UTF-8 bytes, as 16 hex digits. */
export function hashKey(key: string): string {
  let h = FNV64_OFFSET;
  for (const b of new TextEncoder().encode(key)) {
    h ^= BigInt(b);
    h = (h * FNV64_PRIME) & MASK64;
  }
  return h.toString(16).padStart(16, '0');
}

export function encodeCachedResponse(value: CachedResponse): Uint8Array {
  const extents = value.extents.map(
    (e) => `{"start":${e.start},"end":${e.end},"response":${encodeRangeResponseText(e.response)}}`,
  );
  const json =
    `{"format":${JSON.stringify(CACHED_RESPONSE_FORMAT)},"key":${JSON.stringify(value.key)},` +
    `"extents":[${extents.join(',')}]}`;
  return new TextEncoder().encode(json);
}

export class CachedResponseDecodeError extends Error {
  override name = 'CachedResponseDecodeError';
}

function isSafeInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v);
}

/** Throws CachedResponseDecodeError (or the range codec's error) on anything malformed. */
export function decodeCachedResponse(bytes: Uint8Array): CachedResponse {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    throw new CachedResponseDecodeError(`cached value is not JSON: ${(err as Error).message}`);
  }
  const obj = json as { format?: unknown; key?: unknown; extents?: unknown } | null;
  if (typeof obj !== 'object' || obj === null || obj.format !== CACHED_RESPONSE_FORMAT) {
    throw new CachedResponseDecodeError('cached value has an unknown format');
  }
  if (typeof obj.key !== 'string' || !Array.isArray(obj.extents)) {
    throw new CachedResponseDecodeError('cached value lacks key or extents');
  }
  const extents = obj.extents.map((e: unknown): Extent => {
    const x = e as { start?: unknown; end?: unknown; response?: unknown } | null;
    if (typeof x !== 'object' || x === null || !isSafeInt(x.start) || !isSafeInt(x.end)) {
      throw new CachedResponseDecodeError('cached extent lacks start or end');
    }
    if (x.end < x.start) throw new CachedResponseDecodeError('cached extent ends before start');
    return { start: x.start, end: x.end, response: rangeResponseFromJson(x.response) };
  });
  return { key: obj.key, extents };
}
