/**
 * Reading a block index through its local index-header: a ByteSource over the index's byte
 * space that answers the symbol table, the postings offset table and the TOC from the local
 * file and every other range (postings lists, series) from the bucket. The unchanged
 * IndexReader runs on top of it, so a store-gateway resolves label names, values and postings
 * offsets locally and goes to the bucket only for the data a query needs.
 */
import { FileSystemError, isNotFound, type Bucket, type FileSystem } from '../runtime/index.js';
import { EncBuf } from '../tsdb/encoding/index.js';
import {
  INDEX_MAGIC,
  INDEX_TOC_LENGTH,
  IndexReader,
  openFileSource,
  type ByteSource,
  type FileByteSource,
} from '../tsdb/index/index.js';
import {
  INDEX_HEADER_PREFIX_LENGTH,
  INDEX_HEADER_TOC_LENGTH,
  IndexHeaderError,
  buildIndexHeader,
  decodeIndexHeaderLayout,
  type IndexHeaderBuildResult,
  type IndexHeaderLayout,
} from './index_header.js';

/** Reads `length` bytes at `offset` of the block's index in the bucket (exactly, or throws). */
export type RemoteIndexRead = (offset: number, length: number) => Promise<Uint8Array>;

/** An index opened through its index-header. */
export interface HeaderIndex {
  readonly layout: IndexHeaderLayout;
  /** The index reader; its symbol/table lookups stay local, postings and series hit `remote`. */
  readonly reader: IndexReader;
  /** The index's byte space as the reader sees it. */
  readonly source: ByteSource;
  close(): Promise<void>;
}

export interface OpenHeaderIndexOptions {
  fs: FileSystem;
  /** The local index-header file. */
  path: string;
  remote: RemoteIndexRead;
  /** Postings-table and symbol sampling of the IndexReader (default 32, as Thanos). */
  samplingFactor?: number;
}

/**
 * Opens the index-header at `path` and an IndexReader over it. A missing file, a damaged frame
 * or a symbol/postings table that fails its CRC raise IndexHeaderError (the caller rebuilds the
 * file from the bucket, as Thanos's NewBinaryReader does).
 */
export async function openHeaderIndex(opts: OpenHeaderIndexOptions): Promise<HeaderIndex> {
  let file: FileByteSource;
  try {
    file = await openFileSource(opts.fs, opts.path);
  } catch (err) {
    if (isNotFound(err)) throw new IndexHeaderError(opts.path, 'file does not exist');
    throw err;
  }
  try {
    const trailerLength = INDEX_TOC_LENGTH + INDEX_HEADER_TOC_LENGTH;
    const minSize = INDEX_HEADER_PREFIX_LENGTH + trailerLength;
    if (file.size < minSize) {
      throw new IndexHeaderError(opts.path, `too small: ${file.size} bytes, want >= ${minSize}`);
    }
    const layout = decodeIndexHeaderLayout(
      opts.path,
      file.size,
      await file.read(0, INDEX_HEADER_PREFIX_LENGTH),
      await file.read(file.size - trailerLength, trailerLength),
    );
    const source = headerBackedSource(layout, file, opts.remote);
    let reader: IndexReader;
    try {
      reader = await IndexReader.open(
        source,
        opts.samplingFactor === undefined ? {} : { samplingFactor: opts.samplingFactor },
      );
    } catch (err) {
      if (err instanceof FileSystemError) throw err;
      throw new IndexHeaderError(opts.path, (err as Error).message);
    }
    return { layout, reader, source, close: () => file.close() };
  } catch (err) {
    await file.close();
    throw err;
  }
}

/**
 * The index's byte space: [0, 5) is the index's own magic and version (synthesised),
 * [toc.symbols, toc.series) and [toc.postingsTable, end) come from the local copies, and any
 * range not wholly inside one of those goes to `remote`.
 */
export function headerBackedSource(
  layout: IndexHeaderLayout,
  file: ByteSource,
  remote: RemoteIndexRead,
): ByteSource {
  const { indexToc: toc, indexSize } = layout;
  const prefix = new EncBuf(5);
  prefix.putBE32(INDEX_MAGIC);
  prefix.putByte(layout.indexVersion);
  const indexPrefix = prefix.get().slice();
  return {
    size: indexSize,
    read(offset: number, length: number): Promise<Uint8Array> {
      const end = offset + length;
      if (
        !Number.isSafeInteger(offset) ||
        !Number.isSafeInteger(length) ||
        offset < 0 ||
        length < 0
      ) {
        return Promise.reject(
          new RangeError(`index read: invalid range offset=${offset} length=${length}`),
        );
      }
      if (end > indexSize) {
        return Promise.reject(
          new RangeError(
            `index read: range [${offset}, ${end}) is past the end (size ${indexSize})`,
          ),
        );
      }
      if (end <= indexPrefix.length) return Promise.resolve(indexPrefix.subarray(offset, end));
      if (offset >= toc.symbols && end <= toc.series) {
        return file.read(layout.symbolsStart + offset - toc.symbols, length);
      }
      if (offset >= toc.postingsTable) {
        return file.read(layout.postingsTableStart + offset - toc.postingsTable, length);
      }
      return remote(offset, length);
    },
  };
}

export interface EnsureIndexHeaderOptions {
  bucket: Bucket;
  fs: FileSystem;
  tenant: string;
  blockId: string;
  path: string;
  signal?: AbortSignal;
}

/**
 * Makes sure a valid index-header is at `path`: an existing readable one is kept (a restart
 * reuses it), a missing or damaged one is rebuilt from the bucket. Returns what a build cost,
 * with the reason, or undefined when the file was reused.
 */
export async function ensureIndexHeader(
  opts: EnsureIndexHeaderOptions,
): Promise<{ built: IndexHeaderBuildResult; reason: string } | undefined> {
  try {
    const existing = await openHeaderIndex({
      fs: opts.fs,
      path: opts.path,
      remote: () => Promise.reject(new Error('index-header check reads no remote range')),
    });
    await existing.close();
    return undefined;
  } catch (err) {
    if (!(err instanceof IndexHeaderError)) throw err;
    const built = await buildIndexHeader(
      opts.bucket,
      opts.tenant,
      opts.blockId,
      opts.fs,
      opts.path,
      opts.signal === undefined ? {} : { signal: opts.signal },
    );
    return { built, reason: err.message };
  }
}
