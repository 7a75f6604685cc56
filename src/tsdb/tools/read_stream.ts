// Streams a file through the runtime FileSystem in fixed-size chunks, so tools can parse
// inputs larger than memory.
import type { FileSystem } from '../../runtime/index.js';

const READ_CHUNK_BYTES = 1 << 20;

/** Yields the bytes of `path` in order, at most `chunkBytes` at a time. */
export async function* readFileChunks(
  fs: FileSystem,
  path: string,
  chunkBytes: number = READ_CHUNK_BYTES,
): AsyncGenerator<Uint8Array> {
  const handle = await fs.open(path, 'r');
  try {
    const size = await handle.size();
    for (let pos = 0; pos < size;) {
      const chunk = await handle.read(pos, Math.min(chunkBytes, size - pos));
      if (chunk.length === 0) break;
      pos += chunk.length;
      yield chunk;
    }
  } finally {
    await handle.close();
  }
}
