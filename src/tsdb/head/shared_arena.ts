// Chunk bytes in shared memory. A query's evaluation runs on a worker thread; the chunks it
// reads cross to it by reference when their bytes live in a SharedArrayBuffer, and are
// copied when they do not. The head therefore keeps its completed chunks' bytes, and each
// select its snapshots of open chunks, in shared blocks: thousands of small chunks per
// block, so neither the copy per query nor an ArrayBuffer per chunk is paid.
//
// Bytes written here are never changed afterwards (a completed chunk receives no more
// samples; a snapshot is taken once), which is what makes reading them from another thread
// safe. A block lives as long as any chunk in it: the head's blocks fill with chunks cut
// at about the same time, which head truncation drops together.

/** Bytes per block of completed head chunks: ~100 chunks of a typical scrape series. */
export const COMPLETED_BLOCK_BYTES = 1 << 16;

/**
 * The first block's size; each next one doubles up to the arena's block size, so a head of
 * a few series (one of thousands of tenants) or a small select holds kilobytes, not 64 KiB.
 */
const FIRST_BLOCK_BYTES = 1 << 10;

/** Copies byte arrays into shared blocks of up to `blockBytes`, back to back. */
export class SharedArena {
  private block = new Uint8Array(new SharedArrayBuffer(0));
  private used = 0;
  private nextBlock: number;

  constructor(private readonly blockBytes: number) {
    this.nextBlock = Math.min(FIRST_BLOCK_BYTES, blockBytes);
  }

  /** A copy of `bytes` in shared memory. */
  copy(bytes: Uint8Array): Uint8Array {
    const n = bytes.length;
    if (this.used + n > this.block.length) {
      this.block = new Uint8Array(new SharedArrayBuffer(Math.max(this.nextBlock, n)));
      this.nextBlock = Math.min(2 * this.nextBlock, this.blockBytes);
      this.used = 0;
    }
    const at = this.used;
    this.block.set(bytes, at);
    this.used = at + n;
    return this.block.subarray(at, at + n);
  }
}
