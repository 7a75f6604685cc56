/**
 * What crosses between the querier and an evaluation worker (structured clone plus moved
 * ArrayBuffers): a query's AST, the series one select returned, the query's result and
 * errors. Series go as their encoded chunks when storage has them (no decoding on the
 * querier's event loop), else as decoded samples; labels packed into one string.
 */
import { Labels, Matcher, type MatchType, type Pause } from '../model/index.js';
import {
  Annotations,
  PromQLError,
  StorageError,
  type AnnotationKind,
  type EncodedElements,
  type Expr,
  type QueryResult,
  type QueryStats,
  type QueryValue,
  readSeriesSamples,
  type SampleArrays,
  type StorageSeries,
} from '../promql/index.js';
import { ChunkSampleReader } from './chunk_samples.js';
import { storeSeriesToStorageSeries } from './chunk_series.js';
import { toStorageSeries } from './merge.js';

/** One select's series. */
export interface WireSeriesSet {
  /** Per series its labels. */
  readonly labels: PackedLabels;
  /**
   * Per series [kind (0: chunks, 1: samples), count (chunks or samples), mint, maxt], then
   * per chunk [minTime, maxTime, encoding, byte length, block, byte offset]: block -1 for
   * bytes copied into `bytes`, else the index in `shared` of the block holding them.
   */
  readonly meta: Float64Array;
  /** Copied chunk bytes, back to back. */
  readonly bytes: Uint8Array;
  /**
   * Shared-memory blocks chunks are read from in place (the head's): they cross by
   * reference, so the bytes of most chunks are neither copied nor moved.
   */
  readonly shared: SharedArrayBuffer[];
  /** Samples of kind-1 series: each series' timestamps then its values. */
  readonly samples: Float64Array;
}

/**
 * Label sets as one string and its cut points: one string crosses between threads far
 * cheaper than thousands of small ones, and the receiving thread, which rebuilds them, is
 * often the querier's. In the text each set is its memoised `Labels.joined()` form (names
 * and values joined by NUL) followed by one NUL. Per set `lengths` holds its string count
 * with JOINED_ONLY added and the joined form's length when no string holds a NUL (the form
 * then splits back into them), else the string count and each string's length.
 */
export interface PackedLabels {
  readonly text: string;
  readonly lengths: Uint32Array<ArrayBuffer>;
}

/**
 * Added to a set's string count when only its joined form's length follows: reading each
 * name's and value's length touched every string of thousands of sets, most of them out of
 * cache (a tenth of a large select's packing time).
 */
const JOINED_ONLY = 0x8000_0000;

function packLabels(sets: readonly Labels[]): PackedLabels {
  let count = 0;
  for (const l of sets) count += packedLengths(l);
  const lengths = new Uint32Array(count);
  const parts: string[] = [];
  let k = 0;
  for (const l of sets) k = packInto(l, parts, lengths, k);
  return { text: parts.join(''), lengths };
}

/** Cut points `l` takes in a packing. */
function packedLengths(l: Labels): number {
  if (l.length === 0) return 1;
  return l.nulFree() ? 2 : 1 + 2 * l.length;
}

/** Appends `l` to a packing: its strings to `parts`, its cut points at `k`; the next k. */
function packInto(l: Labels, parts: string[], lengths: Uint32Array, at: number): number {
  let k = at;
  if (l.length === 0) {
    lengths[k++] = 0;
    return k;
  }
  const joined = l.joined();
  if (l.nulFree()) {
    lengths[k++] = JOINED_ONLY + 2 * l.length;
    lengths[k++] = joined.length;
  } else {
    lengths[k++] = 2 * l.length;
    for (let i = 0; i < l.length; i++) {
      lengths[k++] = l.nameAt(i).length;
      lengths[k++] = l.valueAt(i).length;
    }
  }
  parts.push(joined, '\0');
  return k;
}

function unpackLabels(packed: PackedLabels): Labels[] {
  const { text, lengths } = packed;
  const out: Labels[] = [];
  let k = 0;
  let at = 0;
  while (k < lengths.length) {
    const head = lengths[k++] as number;
    if (head === 0) {
      out.push(Labels.EMPTY);
      continue;
    }
    if (head >= JOINED_ONLY) {
      // Split only when something needs the names and values one by one (Labels.fromJoined):
      // most of a large select's sets are only keyed by this form or cut by their name.
      const joined = text.slice(at, at + (lengths[k++] as number));
      at += joined.length + 1;
      out.push(Labels.fromJoined(joined, (head - JOINED_ONLY) / 2));
      continue;
    }
    const from = at;
    const flat = new Array<string>(head);
    for (let i = 0; i < head; i++) {
      const end = at + (lengths[k++] as number);
      flat[i] = text.slice(at, end);
      at = end + 1;
    }
    // The set's stretch of text, less its closing separator, is its joined() form.
    out.push(Labels.fromSortedFlatJoined(flat, text.slice(from, at - 1)));
  }
  return out;
}

/**
 * Packs `series`; the returned buffers can be moved to the other thread. With `pause` the
 * copying lets other work run between slices (a select of thousands of series).
 */
export async function encodeSeriesSet(
  series: readonly StorageSeries[],
  pause?: Pause,
): Promise<{ set: WireSeriesSet; transfer: ArrayBuffer[] }> {
  let metaLen = 0;
  let byteLen = 0;
  let labelLen = 0;
  const decoded: SampleArrays[] = [];
  for (const s of series) {
    metaLen += 4;
    labelLen += packedLengths(s.labels);
    if (s.encoded !== undefined) {
      metaLen += CHUNK_META * s.encoded.chunks.length;
      for (const c of s.encoded.chunks) {
        if (!(c.data.buffer instanceof SharedArrayBuffer)) byteLen += c.data.length;
      }
    } else {
      // Storage without chunks (tests' in-memory storage): the samples, decoded here.
      decoded.push(readSeriesSamples(s, -Infinity, Infinity));
    }
  }
  let sampleLen = 0;
  for (const d of decoded) sampleLen += 2 * d.ts.length;
  const meta = new Float64Array(metaLen);
  const bytes = new Uint8Array(byteLen);
  const samples = new Float64Array(sampleLen);
  const lengths = new Uint32Array(labelLen);
  const parts: string[] = [];
  const shared: SharedArrayBuffer[] = [];
  const blockIndex = new Map<SharedArrayBuffer, number>();
  let m = 0;
  let b = 0;
  let p = 0;
  let d = 0;
  let k = 0;
  for (const s of series) {
    if (pause?.due() === true) await pause.yield();
    k = packInto(s.labels, parts, lengths, k);
    const enc = s.encoded;
    if (enc !== undefined) {
      // Element writes: a four-element array per chunk for set() costs more than the copy.
      meta[m] = 0;
      meta[m + 1] = enc.chunks.length;
      meta[m + 2] = enc.mint;
      meta[m + 3] = enc.maxt;
      m += 4;
      for (const c of enc.chunks) {
        const data = c.data;
        meta[m] = c.minTime;
        meta[m + 1] = c.maxTime;
        meta[m + 2] = c.encoding;
        meta[m + 3] = data.length;
        const buf = data.buffer;
        if (buf instanceof SharedArrayBuffer) {
          let block = blockIndex.get(buf);
          if (block === undefined) {
            block = shared.push(buf) - 1;
            blockIndex.set(buf, block);
          }
          meta[m + 4] = block;
          meta[m + 5] = data.byteOffset;
        } else {
          meta[m + 4] = -1;
          meta[m + 5] = b;
          bytes.set(data, b);
          b += data.length;
        }
        m += CHUNK_META;
      }
    } else {
      const { ts, fs } = decoded[d++] as SampleArrays;
      meta[m] = 1;
      meta[m + 1] = ts.length;
      m += 4;
      samples.set(ts, p);
      samples.set(fs, p + ts.length);
      p += 2 * ts.length;
    }
  }
  const labels = { text: parts.join(''), lengths };
  return {
    set: { labels, meta, bytes, shared, samples },
    transfer: [labels.lengths.buffer, meta.buffer, bytes.buffer, samples.buffer],
  };
}

/** Numbers per chunk in WireSeriesSet.meta. */
const CHUNK_META = 6;

/**
 * Inverse of encodeSeriesSet: the series, chunks decoded lazily as the querier's are,
 * through `reader` (one per select unless given).
 */
export function decodeSeriesSet(
  set: WireSeriesSet,
  reader = new ChunkSampleReader(),
): StorageSeries[] {
  const out: StorageSeries[] = [];
  let m = 0;
  let p = 0;
  for (const labels of unpackLabels(set.labels)) {
    const kind = set.meta[m] as number;
    const count = set.meta[m + 1] as number;
    if (kind === 0) {
      const mint = set.meta[m + 2] as number;
      const maxt = set.meta[m + 3] as number;
      m += 4;
      const chunks = [];
      for (let i = 0; i < count; i++, m += CHUNK_META) {
        const len = set.meta[m + 3] as number;
        const block = set.meta[m + 4] as number;
        const at = set.meta[m + 5] as number;
        chunks.push({
          minTime: set.meta[m] as number,
          maxTime: set.meta[m + 1] as number,
          encoding: set.meta[m + 2] as number,
          data:
            block < 0
              ? set.bytes.subarray(at, at + len)
              : new Uint8Array(set.shared[block] as SharedArrayBuffer, at, len),
        });
      }
      out.push(storeSeriesToStorageSeries({ labels, chunks }, mint, maxt, reader));
    } else {
      m += 4;
      out.push(
        toStorageSeries({
          labels,
          timestamps: set.samples.subarray(p, p + count),
          values: set.samples.subarray(p + count, p + 2 * count),
        }),
      );
      p += 2 * count;
    }
  }
  return out;
}

/** An error as it crosses: its PromQL kind and class survive, so answers do not change. */
export type WireError =
  | { readonly cls: 'storage'; readonly message: string }
  | { readonly cls: 'promql'; readonly kind: PromQLError['errorType']; readonly message: string }
  | { readonly cls: 'other'; readonly message: string };

export function encodeError(err: unknown): WireError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof StorageError) return { cls: 'storage', message };
  if (err instanceof PromQLError) return { cls: 'promql', kind: err.errorType, message };
  return { cls: 'other', message };
}

export function decodeError(e: WireError): Error {
  if (e.cls === 'storage') return new StorageError(e.message);
  if (e.cls === 'promql') return new PromQLError(e.kind, e.message);
  return new Error(e.message);
}

/** A query result: values as flat numbers, labels packed. */
export interface WireResult {
  readonly type: QueryValue['type'];
  readonly labels: PackedLabels;
  readonly dropName: boolean[];
  /** Vector: t, f per sample; matrix: per series its point count; scalar/string: t (and v). */
  readonly meta: Float64Array;
  /** Matrix points: per series its timestamps then its values. */
  readonly points: Float64Array;
  readonly text: string;
  readonly annotations: [AnnotationKind, string][];
  readonly stats: QueryStats;
  /** The elements as the HTTP API writes them; the value then crosses without them. */
  readonly encoded?: EncodedElements;
}

/**
 * Packs `r`; with `encode`, a vector's or matrix's elements cross as the text it writes
 * (QueryOptions.encodeResult) instead of packed numbers and labels.
 */
export function encodeResult(
  r: QueryResult,
  encode?: (value: QueryValue) => EncodedElements | undefined,
): { result: WireResult; transfer: ArrayBuffer[] } {
  const encoded = encode?.(r.value);
  if (encoded !== undefined) {
    const { result, transfer } = encodeResult({
      ...r,
      value:
        r.value.type === 'vector' ? { type: 'vector', vector: [] } : { type: 'matrix', matrix: [] },
    });
    return {
      result: { ...result, encoded },
      transfer: [...transfer, encoded.ends.buffer, encoded.bytes.buffer],
    };
  }
  const v = r.value;
  let labels: PackedLabels = packLabels([]);
  let dropName: boolean[] = [];
  let meta = new Float64Array(0);
  let points = new Float64Array(0);
  let text = '';
  if (v.type === 'vector') {
    labels = packLabels(v.vector.map((s) => s.metric));
    dropName = v.vector.map((s) => s.dropName === true);
    meta = new Float64Array(2 * v.vector.length);
    v.vector.forEach((s, i) => {
      meta[2 * i] = s.t;
      meta[2 * i + 1] = s.f;
    });
  } else if (v.type === 'matrix') {
    labels = packLabels(v.matrix.map((s) => s.metric));
    dropName = v.matrix.map((s) => s.dropName === true);
    meta = Float64Array.from(v.matrix, (s) => s.floats.length);
    let total = 0;
    for (const s of v.matrix) total += s.floats.length;
    points = new Float64Array(2 * total);
    let p = 0;
    for (const s of v.matrix) {
      const n = s.floats.length;
      for (let i = 0; i < n; i++) {
        const pt = s.floats[i] as { t: number; f: number };
        points[p + i] = pt.t;
        points[p + n + i] = pt.f;
      }
      p += 2 * n;
    }
  } else if (v.type === 'scalar') {
    meta = Float64Array.of(v.scalar.t, v.scalar.v);
  } else {
    meta = Float64Array.of(v.string.t);
    text = v.string.v;
  }
  const annotations = r.annotations.all().map((a): [AnnotationKind, string] => [a.kind, a.message]);
  return {
    result: { type: v.type, labels, dropName, meta, points, text, annotations, stats: r.stats },
    transfer: [labels.lengths.buffer, meta.buffer, points.buffer],
  };
}

export function decodeResult(w: WireResult): QueryResult {
  const annotations = new Annotations();
  for (const [kind, message] of w.annotations) annotations.add(kind, message);
  const withDrop = (i: number): { dropName?: boolean } =>
    w.dropName[i] === true ? { dropName: true } : {};
  const metrics = unpackLabels(w.labels);
  let value: QueryValue;
  if (w.type === 'vector') {
    value = {
      type: 'vector',
      vector: metrics.map((metric, i) => ({
        metric,
        t: w.meta[2 * i] as number,
        f: w.meta[2 * i + 1] as number,
        ...withDrop(i),
      })),
    };
  } else if (w.type === 'matrix') {
    let p = 0;
    value = {
      type: 'matrix',
      matrix: metrics.map((metric, i) => {
        const n = w.meta[i] as number;
        const floats = [];
        for (let k = 0; k < n; k++)
          floats.push({ t: w.points[p + k] as number, f: w.points[p + n + k] as number });
        p += 2 * n;
        return { metric, floats, ...withDrop(i) };
      }),
    };
  } else if (w.type === 'scalar') {
    value = { type: 'scalar', scalar: { t: w.meta[0] as number, v: w.meta[1] as number } };
  } else {
    value = { type: 'string', string: { t: w.meta[0] as number, v: w.text } };
  }
  return {
    value,
    annotations,
    stats: w.stats,
    ...(w.encoded === undefined ? {} : { encoded: w.encoded }),
  };
}

/** Marks a Matcher inside an AST as it crosses (class instances lose their methods). */
interface WireMatcher {
  readonly __matcher: [MatchType, string, string];
}

/** A copy of `expr` that survives structured cloning (its matchers as plain triples). */
export function encodeExpr(expr: Expr): unknown {
  return copy(expr, (v) =>
    v instanceof Matcher
      ? ({ __matcher: [v.type, v.name, v.value] } satisfies WireMatcher)
      : undefined,
  );
}

export function decodeExpr(wire: unknown): Expr {
  return copy(wire, (v) => {
    const m = (v as Partial<WireMatcher>).__matcher;
    return m === undefined ? undefined : new Matcher(m[0], m[1], m[2]);
  }) as Expr;
}

function copy(v: unknown, special: (v: object) => unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const s = special(v);
  if (s !== undefined) return s;
  if (Array.isArray(v)) return v.map((x) => copy(x, special));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = copy(x, special);
  return out;
}
