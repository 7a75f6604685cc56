// A block's meta.json: Prometheus's BlockMeta plus the `thanos` section Cortex adds when it
// ships a block (tenant external label, source, downsampling resolution). Parsing validates
// every field and names the bad one; serialising reproduces Go's output byte for byte:
// Prometheus writes json.MarshalIndent(meta, "", "\t") with no trailing newline, Thanos/Cortex
// write the same layout through a json.Encoder, which appends a newline. Zero counters and
// empty lists are left out exactly where Go's `omitempty` leaves them out.

import { writeFileDurable, type FileSystem } from '../../runtime/index.js';
import { goMarshalIndent } from './go_json.js';
import { canonicalUlid } from './ulid.js';

export const META_FILENAME = 'meta.json';
export const META_VERSION_1 = 1;
/** The external label Cortex puts the tenant ID in (`__org_id__`). */
export const TENANT_EXTERNAL_LABEL = '__org_id__';

/** Where a block came from (Thanos SourceType); Cortex ingesters ship `receive` blocks. */
export const BlockSource = {
  Receive: 'receive',
  Sidecar: 'sidecar',
  Compactor: 'compactor',
  CompactorRepair: 'compactor.repair',
  Ruler: 'ruler',
  BucketRepair: 'bucket.repair',
  BucketRewrite: 'bucket.rewrite',
  BucketUpload: 'bucket.upload',
  Test: 'test',
} as const;

export interface BlockDesc {
  ulid: string;
  minTime: number;
  maxTime: number;
}

/** Counters of a block; a zero is omitted from the file (Go's omitempty). */
export interface BlockStats {
  numSamples: number;
  numSeries: number;
  numChunks: number;
  numTombstones: number;
  /** Written by newer Prometheus versions; kept when present. */
  numFloatSamples?: number;
  numHistogramSamples?: number;
}

/** Prometheus's compaction hint on blocks cut from out-of-order head data (CompactionHintFromOutOfOrder). */
export const OUT_OF_ORDER_HINT = 'from-out-of-order';

/** Whether the block was cut from out-of-order samples (Prometheus BlockMetaCompaction.FromOutOfOrder). */
export function isFromOutOfOrder(meta: { compaction: BlockMetaCompaction }): boolean {
  return meta.compaction.hints?.includes(OUT_OF_ORDER_HINT) ?? false;
}

export interface BlockMetaCompaction {
  level: number;
  /** ULIDs of the head blocks this block was made from (itself for a level-1 block). */
  sources: string[];
  deletable?: boolean;
  parents?: BlockDesc[];
  failed?: boolean;
  hints?: string[];
}

export interface ThanosFile {
  rel_path: string;
  size_bytes?: number;
  hash?: { hashFunc: string; value: string };
}

export interface ThanosMeta {
  /** Thanos meta version; omitted when 0/absent (Go's omitempty). */
  version?: number;
  /** External labels; Cortex sets `__org_id__` to the tenant. Written with sorted keys. */
  labels: Record<string, string>;
  downsample: { resolution: number };
  source: string;
  segment_files?: string[];
  files?: ThanosFile[];
  /** Kept as found; Strata does not interpret them yet. */
  rewrites?: unknown[];
  index_stats?: { series_max_size?: number; chunk_max_size?: number };
  extensions?: unknown;
}

export interface BlockMeta {
  ulid: string;
  minTime: number;
  maxTime: number;
  stats: BlockStats;
  compaction: BlockMetaCompaction;
  version: number;
  thanos?: ThanosMeta;
}

/** meta.json is malformed; the message names the field and the bad value. */
export class BlockMetaError extends Error {
  override readonly name = 'BlockMetaError';
}

type Json = Record<string, unknown>;

function fail(field: string, what: string, value: unknown): never {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  throw new BlockMetaError(`meta.json: field ${field}: ${what}, got ${shown}`);
}

function object(v: unknown, field: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(field, 'must be an object', v);
  return v as Json;
}

function int(v: unknown, field: string, min = Number.MIN_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    fail(field, min === 0 ? 'must be a non-negative integer' : 'must be a safe integer', v);
  }
  return v;
}

function optInt(v: unknown, field: string): number {
  return v === undefined ? 0 : int(v, field, 0);
}

function str(v: unknown, field: string): string {
  if (typeof v !== 'string') fail(field, 'must be a string', v);
  return v;
}

function bool(v: unknown, field: string): boolean {
  if (typeof v !== 'boolean') fail(field, 'must be a boolean', v);
  return v;
}

function ulid(v: unknown, field: string): string {
  const s = str(v, field);
  try {
    return canonicalUlid(s);
  } catch (err) {
    return fail(field, `must be a ULID (${(err as Error).message})`, v);
  }
}

function array<T>(v: unknown, field: string, item: (x: unknown, f: string) => T): T[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(field, 'must be an array', v);
  return v.map((x, i) => item(x, `${field}[${i}]`));
}

function parseDesc(v: unknown, field: string): BlockDesc {
  const o = object(v, field);
  return {
    ulid: ulid(o.ulid, `${field}.ulid`),
    minTime: int(o.minTime, `${field}.minTime`),
    maxTime: int(o.maxTime, `${field}.maxTime`),
  };
}

function parseThanos(v: unknown): ThanosMeta {
  const o = object(v, 'thanos');
  const labelsObj =
    o.labels === null || o.labels === undefined ? {} : object(o.labels, 'thanos.labels');
  // fromEntries defines own properties, so a label named __proto__ stays a plain key.
  const labels: Record<string, string> = Object.fromEntries(
    Object.entries(labelsObj).map(([k, val]) => [k, str(val, `thanos.labels.${k}`)]),
  );
  const downsample = o.downsample === undefined ? {} : object(o.downsample, 'thanos.downsample');
  const t: ThanosMeta = {
    labels,
    downsample: { resolution: optInt(downsample.resolution, 'thanos.downsample.resolution') },
    source: o.source === undefined ? '' : str(o.source, 'thanos.source'),
  };
  if (o.version !== undefined) t.version = int(o.version, 'thanos.version', 0);
  if (o.segment_files !== undefined && o.segment_files !== null) {
    t.segment_files = array(o.segment_files, 'thanos.segment_files', str);
  }
  if (o.files !== undefined && o.files !== null) {
    t.files = array(o.files, 'thanos.files', (x, f) => {
      const fo = object(x, f);
      const file: ThanosFile = { rel_path: str(fo.rel_path, `${f}.rel_path`) };
      if (fo.size_bytes !== undefined) file.size_bytes = int(fo.size_bytes, `${f}.size_bytes`, 0);
      if (fo.hash !== undefined && fo.hash !== null) {
        const h = object(fo.hash, `${f}.hash`);
        file.hash = {
          hashFunc: str(h.hashFunc, `${f}.hash.hashFunc`),
          value: str(h.value, `${f}.hash.value`),
        };
      }
      return file;
    });
  }
  if (o.rewrites !== undefined && o.rewrites !== null) {
    t.rewrites = array(o.rewrites, 'thanos.rewrites', (x) => x);
  }
  if (o.index_stats !== undefined && o.index_stats !== null) {
    const s = object(o.index_stats, 'thanos.index_stats');
    t.index_stats = {};
    if (s.series_max_size !== undefined) {
      t.index_stats.series_max_size = int(
        s.series_max_size,
        'thanos.index_stats.series_max_size',
        0,
      );
    }
    if (s.chunk_max_size !== undefined) {
      t.index_stats.chunk_max_size = int(s.chunk_max_size, 'thanos.index_stats.chunk_max_size', 0);
    }
  }
  if (o.extensions !== undefined && o.extensions !== null) t.extensions = o.extensions;
  return t;
}

/** Parses and validates meta.json text. ULIDs are returned in canonical (upper case) form. */
export function parseBlockMeta(text: string): BlockMeta {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new BlockMetaError(`meta.json: not valid JSON: ${(err as Error).message}`);
  }
  const o = object(raw, '(top level)');
  const version = int(o.version, 'version');
  if (version !== META_VERSION_1) fail('version', 'unsupported meta.json version, want 1', version);
  const minTime = int(o.minTime, 'minTime');
  const maxTime = int(o.maxTime, 'maxTime');
  if (maxTime < minTime) fail('maxTime', `must not be below minTime ${minTime}`, maxTime);
  const stats = o.stats === undefined ? {} : object(o.stats, 'stats');
  const comp = object(o.compaction, 'compaction');
  const meta: BlockMeta = {
    ulid: ulid(o.ulid, 'ulid'),
    minTime,
    maxTime,
    stats: {
      numSamples: optInt(stats.numSamples, 'stats.numSamples'),
      numSeries: optInt(stats.numSeries, 'stats.numSeries'),
      numChunks: optInt(stats.numChunks, 'stats.numChunks'),
      numTombstones: optInt(stats.numTombstones, 'stats.numTombstones'),
    },
    compaction: {
      level: int(comp.level, 'compaction.level', 0),
      sources: array(comp.sources, 'compaction.sources', ulid),
    },
    version,
  };
  if (stats.numFloatSamples !== undefined) {
    meta.stats.numFloatSamples = optInt(stats.numFloatSamples, 'stats.numFloatSamples');
  }
  if (stats.numHistogramSamples !== undefined) {
    meta.stats.numHistogramSamples = optInt(stats.numHistogramSamples, 'stats.numHistogramSamples');
  }
  if (comp.deletable !== undefined)
    meta.compaction.deletable = bool(comp.deletable, 'compaction.deletable');
  if (comp.parents !== undefined && comp.parents !== null) {
    meta.compaction.parents = array(comp.parents, 'compaction.parents', parseDesc);
  }
  if (comp.failed !== undefined) meta.compaction.failed = bool(comp.failed, 'compaction.failed');
  if (comp.hints !== undefined && comp.hints !== null) {
    meta.compaction.hints = array(comp.hints, 'compaction.hints', str);
  }
  if (o.thanos !== undefined && o.thanos !== null) meta.thanos = parseThanos(o.thanos);
  return meta;
}

/** Adds `key: value` to `out` unless Go's omitempty would drop it (0, false, empty list). */
function putOmitEmpty(
  out: Json,
  key: string,
  value: number | boolean | unknown[] | undefined,
): void {
  if (value === undefined || value === 0 || value === false) return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

/** The meta as an object whose key order and omissions are Go's. */
function toGoShape(meta: BlockMeta): Json {
  const stats: Json = {};
  putOmitEmpty(stats, 'numSamples', meta.stats.numSamples);
  putOmitEmpty(stats, 'numSeries', meta.stats.numSeries);
  putOmitEmpty(stats, 'numChunks', meta.stats.numChunks);
  putOmitEmpty(stats, 'numTombstones', meta.stats.numTombstones);
  putOmitEmpty(stats, 'numFloatSamples', meta.stats.numFloatSamples);
  putOmitEmpty(stats, 'numHistogramSamples', meta.stats.numHistogramSamples);
  const c = meta.compaction;
  const compaction: Json = { level: c.level };
  putOmitEmpty(compaction, 'sources', c.sources);
  putOmitEmpty(compaction, 'deletable', c.deletable);
  putOmitEmpty(
    compaction,
    'parents',
    c.parents?.map((p) => ({ ulid: p.ulid, minTime: p.minTime, maxTime: p.maxTime })),
  );
  putOmitEmpty(compaction, 'failed', c.failed);
  putOmitEmpty(compaction, 'hints', c.hints);
  const out: Json = {
    ulid: meta.ulid,
    minTime: meta.minTime,
    maxTime: meta.maxTime,
    stats,
    compaction,
    version: meta.version,
  };
  if (meta.thanos !== undefined) out.thanos = thanosGoShape(meta.thanos);
  return out;
}

function thanosGoShape(t: ThanosMeta): Json {
  const out: Json = {};
  putOmitEmpty(out, 'version', t.version);
  // Go writes map keys sorted by their bytes.
  out.labels = Object.fromEntries(
    Object.keys(t.labels)
      .sort(compareUtf8)
      .map((k) => [k, t.labels[k]]),
  );
  out.downsample = { resolution: t.downsample.resolution };
  out.source = t.source;
  putOmitEmpty(out, 'segment_files', t.segment_files);
  putOmitEmpty(
    out,
    'files',
    t.files?.map((f) => {
      const file: Json = { rel_path: f.rel_path };
      putOmitEmpty(file, 'size_bytes', f.size_bytes);
      if (f.hash !== undefined) file.hash = { hashFunc: f.hash.hashFunc, value: f.hash.value };
      return file;
    }),
  );
  putOmitEmpty(out, 'rewrites', t.rewrites);
  if (t.index_stats !== undefined) {
    const s: Json = {};
    putOmitEmpty(s, 'series_max_size', t.index_stats.series_max_size);
    putOmitEmpty(s, 'chunk_max_size', t.index_stats.chunk_max_size);
    out.index_stats = s;
  }
  if (t.extensions !== undefined) out.extensions = t.extensions;
  return out;
}

/** Byte order of UTF-8 strings (Go's string comparison), not JavaScript's UTF-16 order. */
function compareUtf8(a: string, b: string): number {
  const enc = new TextEncoder();
  const x = enc.encode(a);
  const y = enc.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] as number) - (y[i] as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

export interface SerializeMetaOptions {
  /**
   * 'prometheus': json.MarshalIndent, no trailing newline (what Prometheus's TSDB writes).
   * 'thanos': the same plus a newline (json.Encoder, what Thanos and Cortex upload).
   * Default: 'thanos' when the meta has a thanos section, else 'prometheus'.
   */
  style?: 'prometheus' | 'thanos';
}

/** meta.json text as Go writes it (tab indentation, Go's key order and escaping). */
export function serializeBlockMeta(meta: BlockMeta, opts: SerializeMetaOptions = {}): string {
  const style = opts.style ?? (meta.thanos !== undefined ? 'thanos' : 'prometheus');
  const text = goMarshalIndent(toGoShape(meta), '\t');
  return style === 'thanos' ? `${text}\n` : text;
}

/** Reads and parses `<blockDir>/meta.json`. */
export async function readBlockMeta(
  blockDir: string,
  deps: { fs: FileSystem },
): Promise<BlockMeta> {
  const bytes = await deps.fs.readFile(`${blockDir}/${META_FILENAME}`);
  try {
    return parseBlockMeta(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (err) {
    if (err instanceof BlockMetaError) {
      throw new BlockMetaError(`${blockDir}/${err.message}`);
    }
    throw new BlockMetaError(`${blockDir}/meta.json: ${(err as Error).message}`);
  }
}

/**
 * Writes `<blockDir>/meta.json` atomically, as Prometheus does: the text goes to
 * `meta.json.tmp`, is fsynced, renamed over meta.json, and the directory is synced.
 * Returns the number of bytes written.
 */
export async function writeBlockMeta(
  blockDir: string,
  meta: BlockMeta,
  deps: { fs: FileSystem },
  opts: SerializeMetaOptions = {},
): Promise<number> {
  return writeFileDurable(
    deps.fs,
    blockDir,
    META_FILENAME,
    new TextEncoder().encode(serializeBlockMeta(meta, opts)),
  );
}
