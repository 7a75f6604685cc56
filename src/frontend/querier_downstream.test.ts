// The last stage of the range path: the querier's answer decoded, or passed through as it
// came when the chain never reads answers.
import { describe, expect, it } from 'vitest';
import { Form } from '../api/index.js';
import type { RoundTrip } from './http_frontend.js';
import { querierRangeHandler } from './querier_downstream.js';
import { QuerierError } from './querier_error.js';
import {
  answersPassThrough,
  DEFAULT_RANGE_MIDDLEWARES_CONFIG,
  type RangeMiddlewaresConfig,
} from './range_middlewares.js';
import { parseRangeRequest } from './range_request.js';
import { encodeRangeResponse } from './range_response.js';

// A valid answer in a layout the encoder would not write (spaces, key order): only a
// passed-through body keeps it.
const BODY =
  '{"status":"success", "data":{"result":[{"metric":{"__name__":"up"},"values":[[1,"1"]]}],"resultType":"matrix"}}';

function roundTrip(status: number, body: string | Uint8Array): RoundTrip {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return () => Promise.resolve({ status, headers: {}, body: bytes });
}

const request = parseRangeRequest(
  new Form(
    new Map(
      Object.entries({ query: 'up', start: '0', end: '10', step: '1' }).map(([k, v]) => [k, [v]]),
    ),
    undefined,
  ),
  { tenantIds: ['t'] },
);
const signal = new AbortController().signal;

describe('querierRangeHandler', () => {
  it('passes a successful body through unchanged: the same bytes, not decoded', async () => {
    const bytes = new TextEncoder().encode(BODY);
    const resp = await querierRangeHandler(
      roundTrip(200, bytes),
      '/q',
      () => true,
    )(request, signal);
    expect(encodeRangeResponse(resp)).toBe(bytes);
  });

  it('decodes and re-encodes the body otherwise', async () => {
    const resp = await querierRangeHandler(roundTrip(200, BODY), '/q')(request, signal);
    expect(resp.series).toHaveLength(1);
    expect(encodeRangeResponse(resp)).toBe(
      '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"__name__":"up"},"values":[[1,"1"]]}]}}',
    );
  });

  it('still turns a failed answer into the querier error', async () => {
    const failed = '{"status":"error","errorType":"bad_data","error":"boom"}';
    const handler = querierRangeHandler(roundTrip(400, failed), '/q', () => true);
    const err = await handler(request, signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QuerierError);
    expect((err as QuerierError).body).toBe(failed);
  });
});

describe('answersPassThrough', () => {
  it('holds only for a chain that reads no answers', () => {
    const base = DEFAULT_RANGE_MIDDLEWARES_CONFIG;
    const holds = (config: RangeMiddlewaresConfig): boolean => answersPassThrough(config)(request);
    expect(holds(base)).toBe(true);
    expect(holds({ ...base, alignQueriesWithStep: true })).toBe(false);
    expect(holds({ ...base, splitQueriesByInterval: 3_600_000 })).toBe(false);
    expect(holds({ ...base, splitQueriesByInterval: 3_600_000, cacheResults: true })).toBe(false);
    // Sharding is per tenant: a tenant with a shard size of 0 or 1 is not sharded.
    expect(holds({ ...base, shardSize: () => 2 })).toBe(false);
    expect(holds({ ...base, shardSize: () => 0 })).toBe(true);
    expect(holds({ ...base, shardSize: () => 1 })).toBe(true);
  });
});
