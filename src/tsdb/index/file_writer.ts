/**
 * Buffered sequential writer over a runtime FileHandle that tracks the logical file position,
 * pads to alignments and patches earlier bytes (the index writer back-fills section lengths).
 */
import type { FileHandle } from '../../runtime/index.js';

const FLUSH_THRESHOLD = 1 << 20;

export class IndexFileWriter {
  private pending: Uint8Array = new Uint8Array(FLUSH_THRESHOLD);
  private pendingLength = 0;
  /** Bytes already handed to the file handle. */
  private flushed = 0;

  constructor(private readonly handle: FileHandle) {}

  /** Logical end of the file, including buffered bytes. */
  get position(): number {
    return this.flushed + this.pendingLength;
  }

  async write(bytes: Uint8Array): Promise<void> {
    if (this.pendingLength + bytes.length > this.pending.length) await this.flush();
    if (bytes.length > this.pending.length) {
      await this.handle.append(bytes.slice());
      this.flushed += bytes.length;
      return;
    }
    this.pending.set(bytes, this.pendingLength);
    this.pendingLength += bytes.length;
  }

  /** Writes zero bytes until the position is a multiple of `alignment`. */
  async pad(alignment: number): Promise<void> {
    const rest = this.position % alignment;
    if (rest !== 0) await this.write(new Uint8Array(alignment - rest));
  }

  /** Overwrites bytes at an earlier position (which must already be written). */
  async writeAt(position: number, bytes: Uint8Array): Promise<void> {
    if (position + bytes.length > this.position) {
      throw new RangeError(
        `writeAt [${position}, ${position + bytes.length}) is past the end of the written data (${this.position})`,
      );
    }
    if (position >= this.flushed) {
      this.pending.set(bytes, position - this.flushed);
      return;
    }
    await this.flush();
    await this.handle.write(position, bytes.slice());
  }

  /** Reads back bytes already written (flushing first so the handle has them). */
  async readBack(position: number, length: number): Promise<Uint8Array> {
    await this.flush();
    const bytes = await this.handle.read(position, length);
    if (bytes.length !== length) {
      throw new Error(
        `short read of ${this.handle.path}: ${bytes.length} of ${length} bytes at ${position}`,
      );
    }
    return bytes;
  }

  async flush(): Promise<void> {
    if (this.pendingLength === 0) return;
    await this.handle.append(this.pending.slice(0, this.pendingLength));
    this.flushed += this.pendingLength;
    this.pendingLength = 0;
  }

  /** Flushes, fsyncs and closes the handle. */
  async close(): Promise<void> {
    await this.flush();
    await this.handle.sync();
    await this.handle.close();
  }
}
