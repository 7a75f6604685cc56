// Sources for Bucket.uploadStream and the checks every backend applies to them: a local file
// read a bounded piece at a time through the runtime's FileSystem (so the simulator's disk
// works too), bytes already in memory, and reading a source while holding it to its size.
import type { UploadSource } from './bucket.js';
import type { FileSystem } from './filesystem.js';

/** How much of a file one read takes when a file is uploaded; bounds the memory of an upload. */
export const DEFAULT_UPLOAD_CHUNK_BYTES = 1 << 20;

/** A source over bytes already in memory (tests, and small objects). */
export function bytesSource(data: Uint8Array): UploadSource {
  return {
    size: data.length,
    // eslint-disable-next-line @typescript-eslint/require-await -- an async generator is the simplest AsyncIterable
    async *open() {
      if (data.length > 0) yield data;
    },
  };
}

/**
 * A source over the local file `path` of `size` bytes (the caller has stat'ed it): every
 * `open()` opens the file again and reads it `chunkBytes` at a time. The handle is closed when
 * the reader finishes or stops early. A file that turns out shorter than `size` fails the read.
 */
export function fileSource(
  fs: FileSystem,
  path: string,
  size: number,
  chunkBytes = DEFAULT_UPLOAD_CHUNK_BYTES,
): UploadSource {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes <= 0) {
    throw new RangeError(`upload chunk size must be a positive integer, got ${chunkBytes}`);
  }
  return {
    size,
    async *open() {
      const handle = await fs.open(path, 'r');
      try {
        for (let at = 0; at < size;) {
          const piece = await handle.read(at, Math.min(chunkBytes, size - at));
          if (piece.length === 0) {
            throw new Error(`${path}: file ended at byte ${at}, expected ${size} bytes`);
          }
          at += piece.length;
          yield piece;
        }
      } finally {
        await handle.close();
      }
    },
  };
}

/**
 * The pieces of one `open()` of `source` for uploading `name`, failing when they add up to
 * anything but `source.size` (a file that changed under the upload must not be stored cut
 * short or padded). Empty pieces are skipped.
 */
export async function* readSource(name: string, source: UploadSource): AsyncIterable<Uint8Array> {
  const { size } = source;
  if (!Number.isSafeInteger(size) || size < 0) {
    throw new RangeError(`uploadStream ${name}: size must be a non-negative integer, got ${size}`);
  }
  let total = 0;
  for await (const piece of source.open()) {
    if (piece.length === 0) continue;
    total += piece.length;
    if (total > size) {
      throw new Error(`uploadStream ${name}: source yielded more than its size of ${size} bytes`);
    }
    yield piece;
  }
  if (total !== size) {
    throw new Error(
      `uploadStream ${name}: source yielded ${total} bytes, its size says ${size} bytes`,
    );
  }
}

/**
 * One `open()` of `source` as a single buffer, for backends that keep objects in memory
 * anyway (the inmemory bucket, the simulator's store). The pieces are copied.
 */
export async function collectSource(name: string, source: UploadSource): Promise<Uint8Array> {
  const out = new Uint8Array(Math.max(0, source.size));
  let at = 0;
  for await (const piece of readSource(name, source)) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}
