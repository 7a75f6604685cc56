// The frontend rejects bad query_range input with exactly the querier's status and message:
// each form goes to the querier's real HTTP API and to parseRangeRequest, and the answers
// must agree. Good input becomes the request the middlewares work on.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, Form } from '../api/index.js';
import { newTestApi } from '../api/testing/index.js';
import { parseRangeRequest, rangeRequestParams } from './range_request.js';

function formOf(params: Record<string, string>): Form {
  return new Form(new Map(Object.entries(params).map(([k, v]) => [k, [v]])), undefined);
}

const GOOD = { query: 'sum(rate(x[5m]))', start: '100', end: '200', step: '15' };

const BAD_FORMS: Record<string, string>[] = [
  { ...GOOD, start: 'yesterday' },
  { ...GOOD, end: '' },
  { ...GOOD, start: '300' },
  { ...GOOD, step: '0' },
  { ...GOOD, step: '-5' },
  { ...GOOD, step: 'fast' },
  { ...GOOD, step: '0.0001' },
  { ...GOOD, start: '0', end: '1000000', step: '1' },
  { ...GOOD, query: 'sum(' },
  { ...GOOD, query: '' },
  { ...GOOD, query: 'x[5m]' },
  { ...GOOD, query: '"a string"' },
  { ...GOOD, limit: '-1' },
  { ...GOOD, limit: 'many' },
  { ...GOOD, timeout: 'soon' },
  { ...GOOD, lookback_delta: 'long' },
];

describe('parseRangeRequest', () => {
  let url = '';
  let close: () => Promise<void> = () => Promise.resolve();
  beforeAll(async () => {
    const api = newTestApi();
    const http = createServer(api.server.handler);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    close = () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
  });
  afterAll(() => close());

  it.each(BAD_FORMS)('answers %j as the querier does', async (params) => {
    const res = await fetch(
      `${url}/prometheus/api/v1/query_range?${new URLSearchParams(params).toString()}`,
      { headers: { 'X-Scope-OrgID': 'team-a' } },
    );
    const body = (await res.json()) as { errorType: string; error: string };
    let thrown: unknown;
    try {
      parseRangeRequest(formOf(params), { tenantIds: ['team-a'] });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const apiErr = thrown as ApiError;
    expect([apiErr.status, apiErr.errorType, apiErr.message]).toEqual([
      res.status,
      body.errorType,
      body.error,
    ]);
  });

  it('builds the request in ms with tenants, pass-through parameters and cache control', () => {
    const req = parseRangeRequest(
      formOf({
        ...GOOD,
        start: '1699999000.5',
        end: '2023-11-14T22:13:20Z',
        stats: 'all',
        timeout: '5s',
      }),
      {
        tenantIds: ['b', 'a', 'b'],
        headers: new Map([
          ['cache-control', ['max-age=0, no-store']],
          ['x-promql-enginetype', ['thanos']],
          ['authorization', ['secret']],
        ]),
        forwardHeaders: ['X-PromQL-EngineType'],
      },
    );
    expect(req).toEqual({
      tenantIds: ['a', 'b'],
      query: 'sum(rate(x[5m]))',
      start: 1_699_999_000_500,
      end: 1_700_000_000_000,
      step: 15_000,
      params: { limit: '', timeout: '5s', lookbackDelta: '', stats: 'all' },
      headers: new Map([['x-promql-enginetype', ['thanos']]]),
      cachingDisabled: true,
    });
    expect(rangeRequestParams(req)).toEqual([
      ['start', '1699999000.5'],
      ['end', '1700000000'],
      ['step', '15'],
      ['query', 'sum(rate(x[5m]))'],
      ['stats', 'all'],
      ['timeout', '5s'],
    ]);
  });
});
