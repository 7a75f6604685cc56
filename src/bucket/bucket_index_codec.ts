/**
 * The bytes of `<tenant>/bucket-index.json.gz`: Go's `json.Marshal` of Cortex's
 * `bucketindex.Index` inside a gzip member whose header carries the name
 * `bucket-index.json`, as Go's gzip.Writer writes it. Node's zlib cannot set the gzip FNAME
 * field, so the member is assembled here around a raw deflate stream. Only synchronous zlib
 * is used: the async API runs on the libuv thread pool and would let completion order leak
 * into a simulation. Reading accepts any valid gzip (Cortex's own, ours, `gzip -k`'s).
 */
import { crc32, deflateRawSync, gunzipSync } from 'node:zlib';
import {
  BucketDocumentError,
  goMarshal,
  parseJsonObject,
  type FieldReader,
} from './json_fields.js';
import { BUCKET_INDEX_FILE } from './layout.js';
import type { BucketIndex, BucketIndexBlock, BucketIndexDeletionMark } from './types.js';

/** The only bucket index version Cortex writes and reads. */
export const BUCKET_INDEX_VERSION_1 = 1;

/** No bucket index object exists for the tenant. */
export class BucketIndexNotFoundError extends Error {
  override readonly name = 'BucketIndexNotFoundError';
  constructor(readonly tenant: string) {
    super(`bucket index not found for tenant ${JSON.stringify(tenant)}`);
  }
}

/** The index exists but is not a readable version-1 index (bad gzip, JSON or version). */
export class BucketIndexCorruptedError extends Error {
  override readonly name = 'BucketIndexCorruptedError';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`bucket index corrupted: ${file}: ${reason}`);
  }
}

// Go's gzip.Writer header: magic, CM=deflate, FLG=FNAME, MTIME=0 (no ModTime set), XFL=0
// (default level), OS=255 (unknown). Then the Latin-1 name and a NUL.
const GZIP_MAGIC_1 = 0x1f;
const GZIP_MAGIC_2 = 0x8b;
const GZIP_CM_DEFLATE = 8;
export const GZIP_FLAG_FNAME = 0x08;
const GZIP_OS_UNKNOWN = 255;

/** A single gzip member with `name` in its header, byte-compatible with Go's gzip.Writer. */
export function gzipWithName(data: Uint8Array, name: string): Uint8Array {
  const nameBytes = latin1(name);
  const body = deflateRawSync(data);
  const out = new Uint8Array(10 + nameBytes.length + 1 + body.length + 8);
  out.set([GZIP_MAGIC_1, GZIP_MAGIC_2, GZIP_CM_DEFLATE, GZIP_FLAG_FNAME, 0, 0, 0, 0, 0]);
  out[9] = GZIP_OS_UNKNOWN;
  out.set(nameBytes, 10);
  let at = 10 + nameBytes.length + 1; // the NUL is already there
  out.set(body, at);
  at += body.length;
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  view.setUint32(at, crc32(data) >>> 0, true);
  view.setUint32(at + 4, data.length >>> 0, true);
  return out;
}

function latin1(name: string): Uint8Array {
  const out = new Uint8Array(name.length);
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    // Go refuses names outside Latin-1 and the NUL would end the field early.
    if (c === 0 || c > 0xff)
      throw new RangeError(`gzip header name ${JSON.stringify(name)}: not Latin-1`);
    out[i] = c;
  }
  return out;
}

function blockGoShape(b: BucketIndexBlock): Record<string, unknown> {
  const out: Record<string, unknown> = {
    block_id: b.block_id,
    min_time: b.min_time,
    max_time: b.max_time,
  };
  // omitempty, as the Go struct tags say.
  if (b.segments_format !== undefined && b.segments_format !== '') {
    out.segments_format = b.segments_format;
  }
  if (b.segments_num !== undefined && b.segments_num !== 0) out.segments_num = b.segments_num;
  if (b.series_max_size !== undefined && b.series_max_size !== 0) {
    out.series_max_size = b.series_max_size;
  }
  if (b.chunk_max_size !== undefined && b.chunk_max_size !== 0) {
    out.chunk_max_size = b.chunk_max_size;
  }
  out.uploaded_at = b.uploaded_at;
  return out;
}

/**
 * The index body as Cortex writes it. An empty block list is `null`: Cortex's updater starts
 * from a nil slice and appends, so an index without blocks marshals that way, while the
 * deletion marks start as an empty, non-nil slice and marshal as `[]`.
 */
export function serializeBucketIndexJson(index: BucketIndex): string {
  return goMarshal({
    version: index.version,
    blocks: index.blocks.length === 0 ? null : index.blocks.map(blockGoShape),
    block_deletion_marks: index.block_deletion_marks.map((m) => ({
      block_id: m.block_id,
      deletion_time: m.deletion_time,
    })),
    updated_at: index.updated_at,
  });
}

function parseBlock(r: FieldReader): BucketIndexBlock {
  const block: BucketIndexBlock = {
    block_id: r.ulid('block_id'),
    min_time: r.int('min_time'),
    max_time: r.int('max_time'),
    uploaded_at: r.int('uploaded_at'),
  };
  const format = r.str('segments_format');
  if (format !== '') block.segments_format = format;
  const num = r.int('segments_num', { min: 0 });
  if (num !== 0) block.segments_num = num;
  const seriesMax = r.int('series_max_size', { min: 0 });
  if (seriesMax !== 0) block.series_max_size = seriesMax;
  const chunkMax = r.int('chunk_max_size', { min: 0 });
  if (chunkMax !== 0) block.chunk_max_size = chunkMax;
  return block;
}

function parseMark(r: FieldReader): BucketIndexDeletionMark {
  return { block_id: r.ulid('block_id'), deletion_time: r.int('deletion_time') };
}

/** Parses the JSON body; a BucketDocumentError names the bad field. */
export function parseBucketIndexJson(data: Uint8Array | string, file: string): BucketIndex {
  const r = parseJsonObject(data, file);
  return {
    version: r.version('version', BUCKET_INDEX_VERSION_1),
    blocks: r.objects('blocks').map(parseBlock),
    block_deletion_marks: r.objects('block_deletion_marks').map(parseMark),
    updated_at: r.int('updated_at'),
  };
}

/** The bytes to upload as `bucket-index.json.gz`. */
export function encodeBucketIndex(index: BucketIndex): Uint8Array {
  return gzipWithName(new TextEncoder().encode(serializeBucketIndexJson(index)), BUCKET_INDEX_FILE);
}

/** Decodes `bucket-index.json.gz` bytes; anything unreadable is a BucketIndexCorruptedError. */
export function decodeBucketIndex(data: Uint8Array, file: string): BucketIndex {
  let json: Uint8Array;
  try {
    json = gunzipSync(data);
  } catch (err) {
    throw new BucketIndexCorruptedError(file, `not valid gzip: ${(err as Error).message}`);
  }
  try {
    return parseBucketIndexJson(json, file);
  } catch (err) {
    if (err instanceof BucketDocumentError) {
      throw new BucketIndexCorruptedError(file, err.detail);
    }
    throw err;
  }
}
