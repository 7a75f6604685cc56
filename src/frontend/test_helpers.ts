/**
 * Shared fixtures of the frontend's tests: requests, and downstreams that stand in for a
 * querier — one that answers from a formula (so any range can be checked by hand) and one
 * that runs the real PromQL engine and goes through the querier's JSON.
 */
import { encodeQueryData, successBody } from '../api/index.js';
import { Labels } from '../model/index.js';
import type { PromQLEngine, Queryable } from '../promql/index.js';
import type { RangeHandler } from './handler.js';
import type { RangeRequest } from './range_request.js';
import { decodeRangeResponse, EMPTY_HEADERS, type RangeResponse } from './range_response.js';

export function rangeRequest(overrides: Partial<RangeRequest> = {}): RangeRequest {
  return {
    tenantIds: ['team-a'],
    query: 'sum(rate(http_requests_total[5m]))',
    start: 0,
    end: 3_600_000,
    step: 60_000,
    params: { limit: '', timeout: '', lookbackDelta: '', stats: '' },
    headers: new Map(),
    cachingDisabled: false,
    ...overrides,
  };
}

/** One series `{s="<query>"}` with the value t/1000 at every step of the request. */
export function formulaAnswer(req: RangeRequest): RangeResponse {
  const floats = [];
  for (let t = req.start; t <= req.end; t += req.step) floats.push({ t, f: t / 1000 });
  return {
    series: [{ metric: Labels.fromStrings('s', req.query), floats }],
    warnings: [],
    infos: [],
    headers: EMPTY_HEADERS,
  };
}

/** A downstream answering with `formulaAnswer` and recording the ranges it was asked for. */
export class RecordingDownstream {
  readonly calls: RangeRequest[] = [];
  answer: (req: RangeRequest) => RangeResponse = formulaAnswer;

  readonly handler: RangeHandler = (req) => {
    this.calls.push(req);
    return Promise.resolve(this.answer(req));
  };

  ranges(): [number, number][] {
    return this.calls.map((c) => [c.start, c.end]);
  }
}

/** The querier's JSON for a range query evaluated directly by `engine`. */
export async function engineRangeBody(
  engine: PromQLEngine,
  storage: Queryable,
  req: RangeRequest,
): Promise<string> {
  const result = await engine.rangeQuery(storage, req.query, req.start, req.end, req.step);
  return successBody(
    encodeQueryData(result.value, undefined),
    result.annotations.warnings(),
    result.annotations.infos(),
  );
}

/** A querier stand-in: the engine's answer through the querier's JSON and the frontend's codec. */
export function engineDownstream(engine: PromQLEngine, storage: Queryable): RangeHandler {
  return async (req) => decodeRangeResponse(await engineRangeBody(engine, storage, req));
}
