// The ingester's RPC contract (Cortex's ingester.proto, over Strata's Transport): method
// names, request shapes, and the binary encoding of query results. Pushes carry an
// uncompressed remote-write `WriteRequest` protobuf; small requests and answers are JSON;
// series with samples travel in a compact binary form because queries move many of them.
import { Labels, Matcher, isMatchType, type MatchType } from '../model/index.js';
import type { MetricMetadata } from '../distributor/index.js';
import { RpcError } from '../runtime/index.js';

export const INGESTER_PUSH = 'ingester.Push';
export const INGESTER_QUERY_STREAM = 'ingester.QueryStream';
export const INGESTER_LABEL_NAMES = 'ingester.LabelNames';
export const INGESTER_LABEL_VALUES = 'ingester.LabelValues';
export const INGESTER_USER_STATS = 'ingester.UserStats';
export const INGESTER_ALL_USER_STATS = 'ingester.AllUserStats';
export const INGESTER_METRICS_METADATA = 'ingester.MetricsMetadata';
export const INGESTER_METRICS_FOR_LABEL_MATCHERS = 'ingester.MetricsForLabelMatchers';

/** Header naming who produced a push (`api` or `rule`); absent means `api`. */
export const PUSH_SOURCE_HEADER = 'x-strata-push-source';
/** The tenant header every tenant-scoped RPC carries (lower case, as RpcRequest headers are). */
export const TENANT_RPC_HEADER = 'x-scope-orgid';

/** A label matcher as `[type, name, value]`. */
export type WireMatcher = [MatchType, string, string];

/** `ingester.QueryStream`: series matching all matchers with samples in [start, end] (ms). */
export interface QueryRequest {
  start: number;
  end: number;
  matchers: WireMatcher[];
  /**
   * `false`: the series may come in the ingester's postings order instead of sorted by
   * labels (the querier merges replicas by sorting them together anyway). Absent: sorted.
   */
  sortSeries?: boolean;
}

/** `ingester.LabelNames`: names of series matching `matchers` (all when empty) in [start, end]. */
export interface LabelNamesRequest {
  start: number;
  end: number;
  matchers: WireMatcher[];
}

/** `ingester.LabelValues`: values of `name` among series matching `matchers` in [start, end]. */
export interface LabelValuesRequest extends LabelNamesRequest {
  name: string;
}

/** One tenant's realtime stats on one ingester (Cortex UserStatsResponse). */
export interface WireUserStats {
  numSeries: number;
  ingestionRate: number;
  apiIngestionRate: number;
  ruleIngestionRate: number;
}

/** `ingester.AllUserStats`: every tenant with a database on the ingester. */
export interface WireTenantStats {
  tenant: string;
  stats: WireUserStats;
  /** Blocks of the tenant's database on this ingester (absent from older ingesters). */
  loadedBlocks?: number;
}

/** One series and its samples, timestamps ascending. */
export interface SeriesSamples {
  readonly labels: Labels;
  readonly timestamps: Float64Array;
  readonly values: Float64Array;
}

export function toWireMatchers(matchers: readonly Matcher[]): WireMatcher[] {
  return matchers.map((m) => [m.type, m.name, m.value]);
}

/** Rebuilds matchers; a bad type or regex is an `invalid_argument` RpcError. */
export function fromWireMatchers(wire: unknown): Matcher[] {
  if (!Array.isArray(wire)) throw new RpcError('invalid_argument', 'matchers must be a list');
  return wire.map((m: unknown) => {
    const [type, name, value]: unknown[] = Array.isArray(m) ? (m as unknown[]) : [];
    if (
      !Array.isArray(m) ||
      m.length !== 3 ||
      typeof type !== 'string' ||
      !isMatchType(type) ||
      typeof name !== 'string' ||
      typeof value !== 'string'
    )
      throw new RpcError('invalid_argument', `bad matcher ${JSON.stringify(m)}`);
    try {
      return new Matcher(type, name, value);
    } catch (err) {
      throw new RpcError('invalid_argument', err instanceof Error ? err.message : String(err));
    }
  });
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Series as bytes: u32 series count; per series u32 label count, each name and value as
 * u32 byte length + UTF-8, u32 sample count, the timestamps then the values as f64
 * (little endian throughout).
 */
export function encodeSeriesSamples(series: readonly SeriesSamples[]): Uint8Array {
  // One pass for an upper bound (3 UTF-8 bytes per UTF-16 unit), one to write: no per-string
  // arrays, which dominated this function when queries return thousands of series.
  let bound = 4;
  for (const s of series) {
    bound += 8 + s.timestamps.length * 16;
    s.labels.forEach((name, value) => {
      bound += 8 + 3 * (name.length + value.length);
    });
  }
  const out = new Uint8Array(bound);
  const view = new DataView(out.buffer);
  let pos = 0;
  view.setUint32(pos, series.length, true);
  pos += 4;
  const writeString = (str: string): void => {
    const written = writeUtf8(out, pos + 4, str);
    view.setUint32(pos, written, true);
    pos += 4 + written;
  };
  for (const s of series) {
    view.setUint32(pos, s.labels.length, true);
    pos += 4;
    s.labels.forEach((name, value) => {
      writeString(name);
      writeString(value);
    });
    const n = s.timestamps.length;
    view.setUint32(pos, n, true);
    pos += 4;
    for (let i = 0; i < n; i++, pos += 8) view.setFloat64(pos, s.timestamps[i] as number, true);
    for (let i = 0; i < n; i++, pos += 8) view.setFloat64(pos, s.values[i] as number, true);
  }
  return pos === bound ? out : out.slice(0, pos);
}

/** Writes `str` as UTF-8 at `pos` (room reserved) and returns its length; ASCII is copied as is. */
export function writeUtf8(out: Uint8Array, pos: number, str: string): number {
  const n = str.length;
  for (let i = 0; i < n; i++) {
    const c = str.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(str, out.subarray(pos)).written;
    out[pos + i] = c;
  }
  return n;
}

/**
 * Reads the little-endian series answers (`what` names them in errors): truncated or
 * malformed input is an `internal` RpcError naming the byte.
 */
export class WireReader {
  readonly view: DataView;
  pos = 0;

  constructor(
    readonly bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  need(n: number): void {
    if (this.pos + n > this.bytes.length)
      throw new RpcError(
        'internal',
        `${this.what} truncated at byte ${this.pos} (need ${n}, have ${this.bytes.length - this.pos})`,
      );
  }

  u32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  str(): string {
    const len = this.u32();
    this.need(len);
    const s = decoder.decode(this.bytes.subarray(this.pos, this.pos + len));
    this.pos += len;
    return s;
  }

  /** A label set written as u32 count and name/value strings. */
  labels(): Labels {
    const n = this.u32();
    const names: string[] = [];
    const values: string[] = [];
    for (let j = 0; j < n; j++) {
      names.push(this.str());
      values.push(this.str());
    }
    return Labels.fromSorted(names, values);
  }

  /** Throws unless every byte was read. */
  end(): void {
    const left = this.bytes.length - this.pos;
    if (left !== 0) throw new RpcError('internal', `${this.what} has ${left} trailing bytes`);
  }
}

/** Inverse of encodeSeriesSamples; truncated or malformed input is an `internal` RpcError. */
export function decodeSeriesSamples(bytes: Uint8Array): SeriesSamples[] {
  const r = new WireReader(bytes, 'series response');
  const count = r.u32();
  const out: SeriesSamples[] = [];
  for (let i = 0; i < count; i++) {
    const labels = r.labels();
    const n = r.u32();
    r.need(n * 16);
    const ts = new Float64Array(n);
    const vs = new Float64Array(n);
    for (let j = 0; j < n; j++, r.pos += 8) ts[j] = r.view.getFloat64(r.pos, true);
    for (let j = 0; j < n; j++, r.pos += 8) vs[j] = r.view.getFloat64(r.pos, true);
    out.push({ labels, timestamps: ts, values: vs });
  }
  r.end();
  return out;
}

/**
 * Checks an `ingester.MetricsMetadata` answer (JSON: the pushed metadata as decoded, `type`
 * the remote-write MetricType number) entry by entry.
 */
export function parseWireMetadata(value: unknown): MetricMetadata[] {
  if (!Array.isArray(value)) throw new RpcError('internal', 'metadata answer is not a list');
  return value.map((v: unknown, i) => {
    const o = v as Partial<MetricMetadata> | null;
    if (
      o === null ||
      typeof o !== 'object' ||
      typeof o.metricFamilyName !== 'string' ||
      typeof o.type !== 'number' ||
      typeof o.help !== 'string' ||
      typeof o.unit !== 'string'
    )
      throw new RpcError('internal', `metadata answer entry ${i} is malformed`);
    return { metricFamilyName: o.metricFamilyName, type: o.type, help: o.help, unit: o.unit };
  });
}

/** `ingester.MetricsForLabelMatchers` answer: each series' labels as a flat sorted list. */
export function encodeSeriesLabels(series: readonly Labels[]): string[][] {
  return series.map((labels) => {
    const flat: string[] = [];
    labels.forEach((n, v) => flat.push(n, v));
    return flat;
  });
}

/** Reads an `ingester.MetricsForLabelMatchers` answer; anything malformed is `internal`. */
export function decodeSeriesLabels(value: unknown): Labels[] {
  if (!Array.isArray(value)) throw new RpcError('internal', 'series answer is not a list');
  return value.map((flat: unknown, i) => {
    if (!Array.isArray(flat) || !flat.every((s) => typeof s === 'string'))
      throw new RpcError('internal', `series answer entry ${i} is not a list of strings`);
    try {
      return Labels.fromSortedFlat(flat);
    } catch (err) {
      throw new RpcError('internal', `series answer entry ${i}: ${(err as Error).message}`);
    }
  });
}
