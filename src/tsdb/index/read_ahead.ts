/**
 * Read-ahead for walks that visit a file front to back in small steps (a compaction or a
 * verification reading every series entry of an index and every chunk of a segment in order):
 * a miss fetches a whole window (1 MiB by default) from the requested offset, and the small
 * reads that follow are answered from it, so a chunk or a series entry costs no file read of
 * its own. Only one window is held per source; a read at least as large as the window goes
 * straight through. Random access gains nothing from it, so it is opt-in per walk.
 *
 * Windows are never reused in place: a returned view (a chunk's bytes kept by a series
 * iterator) stays valid after the next window is fetched.
 */
import type { ByteSource } from './byte_source.js';

export const DEFAULT_READ_AHEAD_BYTES = 1 << 20;

/** One file's window over `fetch(offset, length)`, which may return fewer bytes at EOF. */
export class ReadAheadWindow {
  private window: Uint8Array = new Uint8Array(0);
  private start = 0;
  /** The window ends where the file does (a fetch came back short). */
  private atEof = false;

  constructor(
    private readonly fetch: (offset: number, length: number) => Promise<Uint8Array>,
    private readonly windowBytes: number = DEFAULT_READ_AHEAD_BYTES,
  ) {
    if (!Number.isSafeInteger(windowBytes) || windowBytes < 1) {
      throw new RangeError(`read-ahead window must be a positive integer, got ${windowBytes}`);
    }
  }

  /** Up to `length` bytes at `offset`; fewer only where `fetch` returns fewer (end of file). */
  async read(offset: number, length: number): Promise<Uint8Array> {
    const held = this.window;
    const end = this.start + held.length;
    // A window that reaches the end of the file answers reads running past it, short.
    if (offset >= this.start && (offset + length <= end || (this.atEof && offset <= end))) {
      return held.subarray(offset - this.start, Math.min(end, offset + length) - this.start);
    }
    if (length >= this.windowBytes) return this.fetch(offset, length);
    const fetched = await this.fetch(offset, this.windowBytes);
    this.window = fetched;
    this.start = offset;
    this.atEof = fetched.length < this.windowBytes;
    return fetched.subarray(0, Math.min(length, fetched.length));
  }
}

/** A ByteSource answering in-order small reads from a read-ahead window over `source`. */
export function readAheadSource(
  source: ByteSource,
  windowBytes: number = DEFAULT_READ_AHEAD_BYTES,
): ByteSource {
  const window = new ReadAheadWindow(
    (offset, length) => source.read(offset, Math.min(length, source.size - offset)),
    windowBytes,
  );
  return {
    size: source.size,
    read(offset: number, length: number): Promise<Uint8Array> {
      if (
        !Number.isSafeInteger(offset) ||
        !Number.isSafeInteger(length) ||
        offset < 0 ||
        length < 0 ||
        offset + length > source.size
      ) {
        // The underlying source words the error (some throw it rather than reject).
        try {
          return source.read(offset, length);
        } catch (err) {
          return Promise.reject(err instanceof Error ? err : new Error(String(err)));
        }
      }
      return window.read(offset, length);
    },
  };
}
