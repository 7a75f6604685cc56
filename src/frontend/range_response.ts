/**
 * A range query's answer (Cortex tripperware.PrometheusResponse, matrix only) and its codec to
 * and from the exact JSON the querier's `/api/v1/query_range` writes: the querier's own
 * encoders (`src/api` encode.ts/json.ts) produce the bytes, so an answer that passes through
 * the frontend unchanged is byte-identical to the querier's.
 */
import { encodeResult, jsonNumber, jsonString, successBody } from '../api/index.js';
import { Labels } from '../model/index.js';
import type { FPoint, Series } from '../promql/index.js';

/** One series of the matrix; `floats` are in time order. */
export type RangeSeries = Series;

export interface RangeResponse {
  /** Series ordered by labels (Prometheus sorts range results so). */
  readonly series: readonly RangeSeries[];
  readonly warnings: readonly string[];
  readonly infos: readonly string[];
  /** The querier's `stats` object, re-encoded, when the request asked for it. */
  readonly stats?: string;
  /** Response headers that matter to the frontend (lower-case names), e.g. cache-control. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /**
   * The querier's body itself, not decoded (the series and messages above are then empty):
   * what a chain that never reads or rebuilds answers passes through, and the encoder sends
   * as it is (its bytes: neither decoded into a string nor encoded back). Never set on a
   * response built from another.
   */
  readonly body?: Uint8Array;
}

export const EMPTY_HEADERS: ReadonlyMap<string, readonly string[]> = new Map();

/** A body the frontend cannot read as a range query answer. */
export class RangeResponseDecodeError extends Error {
  override name = 'RangeResponseDecodeError';
}

/** The success envelope the querier writes (status 200). */
export function encodeRangeResponse(resp: RangeResponse): string | Uint8Array {
  if (resp.body !== undefined) return resp.body;
  const value = { type: 'matrix' as const, matrix: resp.series as Series[] };
  let data = `{"resultType":"matrix","result":${encodeResult(value)}`;
  if (resp.stats !== undefined) data += `,"stats":${resp.stats}`;
  data += '}';
  return successBody(data, resp.warnings, resp.infos);
}

/** encodeRangeResponse as text (a pass-through body decoded), where a string is needed. */
export function encodeRangeResponseText(resp: RangeResponse): string {
  const body = encodeRangeResponse(resp);
  return typeof body === 'string' ? body : new TextDecoder().decode(body);
}

function fail(what: string): never {
  throw new RangeResponseDecodeError(`error decoding response: ${what}`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringList(v: unknown, name: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`bad ${name}`);
  const out: string[] = [];
  for (const s of v as unknown[]) {
    if (typeof s !== 'string') fail(`bad ${name}`);
    out.push(s);
  }
  return out;
}

/** A sample value as Prometheus quotes it (`"1.5"`, `"NaN"`, `"+Inf"`, `"-Inf"`). */
function parseSampleValue(v: unknown): number {
  if (typeof v !== 'string') fail('sample value is not a string');
  switch (v) {
    case 'NaN':
      return NaN;
    case '+Inf':
    case 'Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
  }
  const f = Number(v);
  if (v.trim() === '' || Number.isNaN(f)) fail(`bad sample value ${JSON.stringify(v)}`);
  return f;
}

function parsePoint(p: unknown): FPoint {
  if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'number') fail('bad sample pair');
  // Timestamps are written as seconds with millisecond digits.
  return { t: Math.round(p[0] * 1000), f: parseSampleValue(p[1]) };
}

function parseSeries(s: unknown): RangeSeries {
  if (!isObject(s) || !isObject(s.metric)) fail('bad series');
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(s.metric)) {
    if (typeof value !== 'string') fail('bad label value');
    pairs.push([name, value]);
  }
  if (s.histograms !== undefined) fail('native histograms are not supported');
  const values = s.values === undefined ? [] : s.values;
  if (!Array.isArray(values)) fail('bad values');
  return { metric: Labels.fromPairs(pairs), floats: values.map(parsePoint) };
}

/** An arbitrary JSON value re-encoded in key order with the querier's number format. */
function encodeJson(v: unknown): string {
  if (v === null) return 'null';
  if (typeof v === 'number') return jsonNumber(v);
  if (typeof v === 'string') return jsonString(v, 'html');
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(encodeJson).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>);
  return `{${entries.map(([k, x]) => `${jsonString(k, 'html')}:${encodeJson(x)}`).join(',')}}`;
}

/**
 * Reads the querier's 2xx body of a range query. Throws RangeResponseDecodeError on anything
 * that is not a successful matrix answer.
 */
export function decodeRangeResponse(
  body: string,
  headers: ReadonlyMap<string, readonly string[]> = EMPTY_HEADERS,
): RangeResponse {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (err) {
    fail((err as Error).message);
  }
  return rangeResponseFromJson(json, headers);
}

/** As decodeRangeResponse, for a body that is already parsed (e.g. inside a cache entry). */
export function rangeResponseFromJson(
  json: unknown,
  headers: ReadonlyMap<string, readonly string[]> = EMPTY_HEADERS,
): RangeResponse {
  if (!isObject(json) || json.status !== 'success' || !isObject(json.data)) {
    fail('not a success envelope');
  }
  const data = json.data;
  if (data.resultType !== 'matrix') fail(`unexpected result type ${String(data.resultType)}`);
  if (!Array.isArray(data.result)) fail('bad result');
  const series = data.result.map(parseSeries);
  return {
    series,
    warnings: stringList(json.warnings, 'warnings'),
    infos: stringList(json.infos, 'infos'),
    ...(data.stats === undefined ? {} : { stats: encodeJson(data.stats) }),
    headers,
  };
}
