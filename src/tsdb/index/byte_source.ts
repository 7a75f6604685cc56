/**
 * Random-access byte sources the index reader reads through: an in-memory buffer, a local
 * file via the runtime FileSystem, or (later) an object-store byte range.
 */
import type { FileHandle, FileSystem } from '../../runtime/index.js';

export interface ByteSource {
  /** Total size in bytes. */
  readonly size: number;
  /** Exactly `length` bytes from `offset`; rejects when the range is outside the source. */
  read(offset: number, length: number): Promise<Uint8Array>;
}

function checkRange(what: string, size: number, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new RangeError(`${what}: invalid range offset=${offset} length=${length}`);
  }
  if (offset + length > size) {
    throw new RangeError(
      `${what}: range [${offset}, ${offset + length}) is past the end (size ${size})`,
    );
  }
}

/** A source over bytes already in memory (reads return views, no copies). */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return {
    size: bytes.length,
    read(offset: number, length: number): Promise<Uint8Array> {
      checkRange('bytes source', bytes.length, offset, length);
      return Promise.resolve(bytes.subarray(offset, offset + length));
    },
  };
}

/** A source over a local file, opened read-only through the runtime FileSystem. */
export interface FileByteSource extends ByteSource {
  close(): Promise<void>;
}

export async function openFileSource(fs: FileSystem, path: string): Promise<FileByteSource> {
  const handle: FileHandle = await fs.open(path, 'r');
  const size = await handle.size();
  return {
    size,
    async read(offset: number, length: number): Promise<Uint8Array> {
      checkRange(path, size, offset, length);
      const bytes = await handle.read(offset, length);
      if (bytes.length !== length) {
        throw new Error(`short read of ${path}: ${bytes.length} of ${length} bytes at ${offset}`);
      }
      return bytes;
    },
    close: () => handle.close(),
  };
}
