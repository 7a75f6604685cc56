/**
 * Response bodies of the query API, byte for byte as Prometheus's JSON codec writes them
 * (web/api/v1/json_codec.go, util/jsonutil, promql/value.go): the envelope, query results
 * of each type, series label sets, exemplars and query stats.
 */
import { formatFloatF, type Labels } from '../model/index.js';
import type { EncodedElements, QueryValue, Sample, Series } from '../promql/index.js';
import { jsonNumber, jsonString, sampleTimestamp, sampleValue } from './json.js';

/** A label set as an object in label order (jsoniter's raw string writer). */
export function encodeLabels(labels: Labels): string {
  const parts: string[] = [];
  labels.forEach((name, value) => {
    parts.push(`${jsonString(name, 'raw')}:${jsonString(value, 'raw')}`);
  });
  return `{${parts.join(',')}}`;
}

function metricOf(l: { readonly metric: Labels; readonly dropName?: boolean }): Labels {
  // The engine drops delayed names itself; doing it again is harmless and keeps a missed
  // drop from leaking `__name__` to clients.
  return l.dropName === true ? l.metric.withoutName() : l.metric;
}

function encodeSample(s: Sample): string {
  return `{"metric":${encodeLabels(metricOf(s))},"value":[${sampleTimestamp(s.t)},${sampleValue(s.f)}]}`;
}

function encodeSeries(s: Series): string {
  let out = `{"metric":${encodeLabels(metricOf(s))}`;
  if (s.floats.length > 0) {
    const points = s.floats.map((p) => `[${sampleTimestamp(p.t)},${sampleValue(p.f)}]`);
    out += `,"values":[${points.join(',')}]`;
  }
  return out + '}';
}

/**
 * `promql.Scalar`/`promql.String` marshal through Go's encoding/json: the timestamp is the
 * float64 `t/1000` (so `1.5`, not `1.500`), the scalar's value uses 'f' formatting always.
 */
function encodeTimeFloat(t: number): string {
  return jsonNumber(t / 1000);
}

/** The `result` of a query for its `resultType`. */
export function encodeResult(value: QueryValue): string {
  switch (value.type) {
    case 'vector':
      return `[${value.vector.map(encodeSample).join(',')}]`;
    case 'matrix':
      return `[${value.matrix.map(encodeSeries).join(',')}]`;
    case 'scalar':
      return `[${encodeTimeFloat(value.scalar.t)},"${formatFloatF(value.scalar.v)}"]`;
    case 'string':
      return `[${encodeTimeFloat(value.string.t)},${jsonString(value.string.v, 'std')}]`;
  }
}

/** Query statistics (Prometheus stats.BuiltinStats); times in seconds. */
export interface EncodedStats {
  readonly timings: {
    readonly evalTotalTime: number;
    readonly resultSortTime: number;
    readonly queryPreparationTime: number;
    readonly innerEvalTime: number;
    readonly execQueueTime: number;
    readonly execTotalTime: number;
  };
  readonly samples: {
    readonly totalQueryableSamples: number;
    readonly peakSamples: number;
  };
  /** Which engine answered, when it was the alternative engine (our addition). */
  readonly engine?: string;
  /** Nodes the alternative engine handed to the default engine (our addition). */
  readonly fallbackNodes?: readonly string[];
}

export function encodeStats(s: EncodedStats): string {
  const t = s.timings;
  const timings =
    `{"evalTotalTime":${jsonNumber(t.evalTotalTime)},"resultSortTime":${jsonNumber(t.resultSortTime)},` +
    `"queryPreparationTime":${jsonNumber(t.queryPreparationTime)},"innerEvalTime":${jsonNumber(t.innerEvalTime)},` +
    `"execQueueTime":${jsonNumber(t.execQueueTime)},"execTotalTime":${jsonNumber(t.execTotalTime)}}`;
  const samples = `{"totalQueryableSamples":${jsonNumber(s.samples.totalQueryableSamples)},"peakSamples":${jsonNumber(s.samples.peakSamples)}}`;
  let out = `{"timings":${timings},"samples":${samples}`;
  if (s.engine !== undefined) out += `,"engine":${jsonString(s.engine)}`;
  if (s.fallbackNodes !== undefined) {
    out += `,"fallbackNodes":${encodeStrings(s.fallbackNodes)}`;
  }
  return out + '}';
}

/** `{"resultType":…,"result":…[,"stats":…]}` */
export function encodeQueryData(value: QueryValue, stats: EncodedStats | undefined): string {
  return queryData(value.type, encodeResult(value), stats);
}

/** encodeQueryData for a result whose elements are encoded already (`result` is the array). */
export function queryData(
  type: QueryValue['type'],
  result: string,
  stats: EncodedStats | undefined,
): string;
export function queryData(
  type: QueryValue['type'],
  result: BodyParts,
  stats: EncodedStats | undefined,
): BodyParts;
export function queryData(
  type: QueryValue['type'],
  result: string | BodyParts,
  stats: EncodedStats | undefined,
): string | BodyParts {
  const head = `{"resultType":"${type}","result":`;
  const tail = (stats === undefined ? '' : `,"stats":${encodeStats(stats)}`) + '}';
  return typeof result === 'string' ? head + result + tail : [head, ...result, tail];
}

/** A vector's or matrix's elements as `encodeResult` writes them, apart (undefined otherwise). */
export function encodeElements(value: QueryValue): EncodedElements | undefined {
  let texts: string[];
  if (value.type === 'vector') texts = value.vector.map(encodeSample);
  else if (value.type === 'matrix') texts = value.matrix.map(encodeSeries);
  else return undefined;
  const bytes = new TextEncoder().encode(texts.join(','));
  const ends = new Uint32Array(texts.length);
  // Byte offsets are the string's offsets unless some text is not ASCII.
  const ascii =
    bytes.length === texts.reduce((n, t) => n + t.length, Math.max(0, texts.length - 1));
  let at = 0;
  texts.forEach((t, i) => {
    // Measured, not encoded a second time (a lone surrogate counts 3 bytes, as encoded).
    at += (i === 0 ? 0 : 1) + (ascii ? t.length : Buffer.byteLength(t, 'utf8'));
    ends[i] = at;
  });
  return { bytes, ends };
}

/**
 * The first `limit` elements (all for `limit` ≤ 0) as the `result` array: the body parts
 * around them, the elements' bytes in the middle.
 */
export function elementsArray(encoded: EncodedElements, limit: number): BodyParts {
  const n = encoded.ends.length;
  const bytes =
    limit <= 0 || n <= limit ? encoded.bytes : encoded.bytes.subarray(0, encoded.ends[limit - 1]);
  return ['[', bytes, ']'];
}

/**
 * A JSON text in pieces: strings, and UTF-8 bytes encoded elsewhere (a query's elements,
 * megabytes that are copied once into the body, not decoded into a string and encoded back).
 */
export type BodyParts = readonly (string | Uint8Array)[];

/** The parts as one UTF-8 body (copied once, into memory that is not zeroed first). */
export function joinBodyParts(parts: BodyParts): Uint8Array<ArrayBuffer> {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/** A list of strings in the envelope's (HTML-escaping) encoding. */
export function encodeStrings(list: readonly string[]): string {
  return `[${list.map((s) => jsonString(s, 'html')).join(',')}]`;
}

/**
 * The success envelope; `data` is already-encoded JSON (in parts: the whole body as bytes).
 * Empty lists are omitted.
 */
export function successBody(
  data: string,
  warnings?: readonly string[],
  infos?: readonly string[],
): string;
export function successBody(
  data: string | BodyParts,
  warnings?: readonly string[],
  infos?: readonly string[],
): string | Uint8Array<ArrayBuffer>;
export function successBody(
  data: string | BodyParts,
  warnings: readonly string[] = [],
  infos: readonly string[] = [],
): string | Uint8Array<ArrayBuffer> {
  let tail = '';
  if (warnings.length > 0) tail += `,"warnings":${encodeStrings(warnings)}`;
  if (infos.length > 0) tail += `,"infos":${encodeStrings(infos)}`;
  tail += '}';
  const head = '{"status":"success","data":';
  return typeof data === 'string' ? head + data + tail : joinBodyParts([head, ...data, tail]);
}

/** The error envelope (Prometheus writes no warnings with errors). */
export function errorBody(errorType: string, message: string): string {
  return `{"status":"error","errorType":${jsonString(errorType)},"error":${jsonString(message)}}`;
}
