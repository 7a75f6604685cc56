/**
 * The index-header: Thanos's binary summary of a block index (pkg/block/indexheader), which a
 * store-gateway keeps on local disk so that it can look up symbols and postings offsets
 * without touching the bucket, and fetch only postings lists, series and chunks by range.
 * Byte for byte what Thanos and Cortex write, so either can reuse the other's files:
 *
 *   magic 0xBAAAD792 <4b> | format 1 <1b> | index version <1b> | BE64 index postings-table offset
 *   | index bytes [toc.symbols, toc.series)        (the symbol table, verbatim)
 *   | index bytes [toc.postingsTable, index end)   (postings offset table and the index TOC)
 *   | BE64 symbols offset | BE64 postings table offset | CRC32C of those 16 bytes
 *
 * Building it reads the index's TOC, symbol table and postings offset table by range, never
 * the whole index, and writes `<path>.tmp` that is fsynced and renamed into place.
 */
import { blockIndexPath } from '../bucket/layout.js';
import {
  mkdirAllDurable,
  parentOf,
  throwIfAborted,
  type Bucket,
  type FileSystem,
} from '../runtime/index.js';
import { DecBuf, EncBuf, crc32c } from '../tsdb/encoding/index.js';
import {
  INDEX_FORMAT_V2,
  INDEX_MAGIC,
  INDEX_TOC_LENGTH,
  IndexFormatError,
  decodeToc,
  type IndexToc,
} from '../tsdb/index/index.js';
import { blockError } from './bucket_block_error.js';

/** The file name Thanos and Cortex give it, in `<sync dir>/<tenant>/<block>/`. */
export const INDEX_HEADER_FILENAME = 'index-header';
export const INDEX_HEADER_MAGIC = 0xbaaad792;
export const INDEX_HEADER_FORMAT_V1 = 1;
/** Magic, format version, index version and the index's postings-table offset. */
export const INDEX_HEADER_PREFIX_LENGTH = 4 + 1 + 1 + 8;
/** Two BE64 offsets and their CRC32C. */
export const INDEX_HEADER_TOC_LENGTH = 2 * 8 + 4;
/** Magic and version at the start of an index. */
const INDEX_PREFIX_LENGTH = 5;

/** A local index-header file that is not a valid index-header; names the file. */
export class IndexHeaderError extends Error {
  override readonly name = 'IndexHeaderError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(`index-header ${path}: ${detail}`);
  }
}

/** What an index-header is made of. */
export interface IndexHeaderParts {
  indexVersion: number;
  /** toc.postingsTable of the index. */
  indexPostingsTable: number;
  /** Index bytes [toc.symbols, toc.series). */
  symbols: Uint8Array;
  /** Index bytes [toc.postingsTable, end of index), TOC included. */
  postingsTable: Uint8Array;
}

/** The pieces of the file, in order (written one after the other, never concatenated). */
export function encodeIndexHeader(parts: IndexHeaderParts): Uint8Array[] {
  const prefix = new EncBuf(INDEX_HEADER_PREFIX_LENGTH);
  prefix.putBE32(INDEX_HEADER_MAGIC);
  prefix.putByte(INDEX_HEADER_FORMAT_V1);
  prefix.putByte(parts.indexVersion);
  prefix.putBE64(parts.indexPostingsTable);
  const toc = new EncBuf(INDEX_HEADER_TOC_LENGTH);
  toc.putBE64(INDEX_HEADER_PREFIX_LENGTH);
  toc.putBE64(INDEX_HEADER_PREFIX_LENGTH + parts.symbols.length);
  toc.putBE32(crc32c(toc.get()));
  return [prefix.get().slice(), parts.symbols, parts.postingsTable, toc.get().slice()];
}

/** Where things are in an index-header file, and the TOC of the index it summarises. */
export interface IndexHeaderLayout {
  /** Size of the index-header file. */
  readonly size: number;
  readonly indexVersion: number;
  /** Size of the index it was built from. */
  readonly indexSize: number;
  readonly indexToc: IndexToc;
  /** File offset of the symbol table copy (index offset toc.symbols). */
  readonly symbolsStart: number;
  /** File offset of the postings table copy (index offset toc.postingsTable). */
  readonly postingsTableStart: number;
}

/**
 * Checks the frame of an index-header of `size` bytes from its first INDEX_HEADER_PREFIX_LENGTH
 * bytes and its last INDEX_TOC_LENGTH + INDEX_HEADER_TOC_LENGTH bytes (the copied index TOC
 * and the header's own TOC). Throws IndexHeaderError naming `path`.
 */
export function decodeIndexHeaderLayout(
  path: string,
  size: number,
  prefix: Uint8Array,
  trailer: Uint8Array,
): IndexHeaderLayout {
  try {
    return decodeLayout(path, size, prefix, trailer);
  } catch (err) {
    // Offsets too large to be numbers and the like: the file is damaged all the same.
    if (err instanceof IndexHeaderError) throw err;
    throw new IndexHeaderError(path, (err as Error).message);
  }
}

function decodeLayout(
  path: string,
  size: number,
  prefix: Uint8Array,
  trailer: Uint8Array,
): IndexHeaderLayout {
  const minSize = INDEX_HEADER_PREFIX_LENGTH + INDEX_TOC_LENGTH + INDEX_HEADER_TOC_LENGTH;
  if (size < minSize)
    throw new IndexHeaderError(path, `too small: ${size} bytes, want >= ${minSize}`);
  const p = new DecBuf(prefix);
  const magic = p.getBE32();
  const version = p.getByte();
  const indexVersion = p.getByte();
  const indexPostingsTable = p.getBE64();
  p.throwIfError();
  if (magic !== INDEX_HEADER_MAGIC) {
    throw new IndexHeaderError(
      path,
      `invalid magic number 0x${magic.toString(16)}, want 0xbaaad792`,
    );
  }
  if (version !== INDEX_HEADER_FORMAT_V1) {
    throw new IndexHeaderError(path, `unknown index-header format version ${version} (want 1)`);
  }
  if (indexVersion !== INDEX_FORMAT_V2) {
    throw new IndexHeaderError(path, `unsupported index format version ${indexVersion} (want 2)`);
  }
  const ownToc = trailer.subarray(INDEX_TOC_LENGTH);
  // The checksum first: a torn or truncated file must not be read as offsets.
  if (crc32c(ownToc.subarray(0, 16)) !== new DecBuf(ownToc.subarray(16)).getBE32()) {
    throw new IndexHeaderError(path, 'TOC checksum mismatch');
  }
  const t = new DecBuf(ownToc);
  const symbolsStart = t.getBE64();
  const postingsTableStart = t.getBE64();
  t.throwIfError();
  const tableEnd = size - INDEX_HEADER_TOC_LENGTH;
  if (
    symbolsStart !== INDEX_HEADER_PREFIX_LENGTH ||
    postingsTableStart < symbolsStart ||
    postingsTableStart + INDEX_TOC_LENGTH > tableEnd
  ) {
    throw new IndexHeaderError(
      path,
      `TOC offsets out of range: symbols ${symbolsStart}, postings table ${postingsTableStart}, file size ${size}`,
    );
  }
  const indexSize = indexPostingsTable + (tableEnd - postingsTableStart);
  let indexToc: IndexToc;
  try {
    indexToc = decodeToc(trailer.subarray(0, INDEX_TOC_LENGTH), indexSize - INDEX_TOC_LENGTH);
  } catch (err) {
    throw new IndexHeaderError(path, `copied index TOC: ${(err as Error).message}`);
  }
  if (
    indexToc.postingsTable !== indexPostingsTable ||
    indexToc.series - indexToc.symbols !== postingsTableStart - symbolsStart
  ) {
    throw new IndexHeaderError(path, 'copied index TOC does not match the header offsets');
  }
  return { size, indexVersion, indexSize, indexToc, symbolsStart, postingsTableStart };
}

/** What building an index-header cost and produced. */
export interface IndexHeaderBuildResult {
  /** Size of the written index-header file. */
  headerBytes: number;
  /** Size of the block's index in the bucket. */
  indexBytes: number;
  bucketRequests: number;
  bucketBytes: number;
}

/**
 * Builds the index-header of `<tenant>/<blockId>/index` at `localPath` from four bucket calls
 * (attributes, the TOC, the index prefix with the symbol table, the postings offset table to
 * the end). Both copied sections are checked (length and CRC) before anything is written.
 * Bucket and format faults raise BucketBlockError naming the index object.
 */
export async function buildIndexHeader(
  bucket: Bucket,
  tenant: string,
  blockId: string,
  fs: FileSystem,
  localPath: string,
  opts: { signal?: AbortSignal } = {},
): Promise<IndexHeaderBuildResult> {
  const object = blockIndexPath(tenant, blockId);
  const result: IndexHeaderBuildResult = {
    headerBytes: 0,
    indexBytes: 0,
    bucketRequests: 0,
    bucketBytes: 0,
  };
  const where = { tenant, blockId, object };
  const callOpts = opts.signal === undefined ? {} : { signal: opts.signal };
  const fetch = async (offset: number, length: number): Promise<Uint8Array> => {
    throwIfAborted(opts.signal);
    result.bucketRequests++;
    let bytes: Uint8Array;
    try {
      bytes = await bucket.getRange(object, offset, length, callOpts);
    } catch (err) {
      throw blockError(err, { ...where, reading: true });
    }
    result.bucketBytes += bytes.length;
    if (bytes.length !== length) {
      throw new IndexFormatError(
        `short read: ${bytes.length} of ${length} bytes at offset ${offset} (index truncated?)`,
      );
    }
    return bytes;
  };

  let parts: IndexHeaderParts;
  try {
    throwIfAborted(opts.signal);
    result.bucketRequests++;
    let size: number;
    try {
      size = (await bucket.attributes(object, callOpts)).size;
    } catch (err) {
      throw blockError(err, { ...where, reading: true });
    }
    result.indexBytes = size;
    if (size < INDEX_PREFIX_LENGTH + INDEX_TOC_LENGTH) {
      throw new IndexFormatError(`index too small: ${size} bytes`);
    }
    const toc = decodeToc(
      await fetch(size - INDEX_TOC_LENGTH, INDEX_TOC_LENGTH),
      size - INDEX_TOC_LENGTH,
    );
    checkTocOrder(toc, size);
    const head = await fetch(0, toc.series);
    const d = new DecBuf(head);
    const magic = d.getBE32();
    const version = d.getByte();
    if (magic !== INDEX_MAGIC) {
      throw new IndexFormatError(`invalid index magic number 0x${magic.toString(16)}`);
    }
    if (version !== INDEX_FORMAT_V2) {
      throw new IndexFormatError(`unsupported index format version ${version} (want 2)`);
    }
    const symbols = head.subarray(toc.symbols, toc.series);
    checkSection(symbols, toc.symbols, 'symbol table');
    const postingsTable = await fetch(toc.postingsTable, size - toc.postingsTable);
    checkSection(postingsTable, toc.postingsTable, 'postings offset table');
    parts = {
      indexVersion: version,
      indexPostingsTable: toc.postingsTable,
      symbols,
      postingsTable,
    };
  } catch (err) {
    throw blockError(err, { ...where, reading: false });
  }

  result.headerBytes = await writeHeaderFile(fs, localPath, encodeIndexHeader(parts));
  return result;
}

/** Sections must come in the v2 order and leave room for the TOC. */
function checkTocOrder(toc: IndexToc, size: number): void {
  const tocStart = size - INDEX_TOC_LENGTH;
  const ok =
    toc.symbols >= INDEX_PREFIX_LENGTH &&
    toc.symbols + 12 <= toc.series &&
    toc.series <= toc.postingsTable &&
    toc.postingsTable + 12 <= tocStart;
  if (!ok) {
    throw new IndexFormatError(
      `index TOC offsets out of order or past the end (${tocStart}): symbols ${toc.symbols}, series ${toc.series}, postings table ${toc.postingsTable}`,
    );
  }
}

/** `bytes` starts with a `len <4b> | body | CRC32C <4b>` section that fits in it. */
function checkSection(bytes: Uint8Array, offset: number, what: string): void {
  const d = new DecBuf(bytes, offset);
  const length = d.getBE32();
  d.throwIfError();
  if (8 + length > bytes.length) {
    throw new IndexFormatError(
      `${what} at offset ${offset} claims ${length} bytes, more than the ${bytes.length - 8} available`,
    );
  }
  const stored = new DecBuf(bytes.subarray(4 + length, 8 + length)).getBE32();
  if (crc32c(bytes.subarray(4, 4 + length)) !== stored) {
    throw new IndexFormatError(`${what} at offset ${offset}: checksum mismatch`);
  }
}

/** Writes the pieces to `<path>.tmp`, fsyncs, renames over `path` and syncs the directory. */
async function writeHeaderFile(
  fs: FileSystem,
  path: string,
  pieces: readonly Uint8Array[],
): Promise<number> {
  const dir = parentOf(path);
  await mkdirAllDurable(fs, dir);
  const tmp = `${path}.tmp`;
  const f = await fs.open(tmp, 'w');
  let position = 0;
  try {
    for (const piece of pieces) {
      await f.write(position, piece);
      position += piece.length;
    }
    await f.sync();
  } finally {
    await f.close();
  }
  await fs.rename(tmp, path);
  await fs.syncDir(dir);
  return position;
}
