/**
 * The byte budget for chunk data a store-gateway holds for queries in flight
 * (`max_chunk_pool_bytes`, one pool per tenant, default 2 GiB). A query reserves the bytes of
 * every chunk range before fetching it and gives them back once its response is built; a
 * reservation beyond the budget fails the query instead of letting one tenant's heavy queries
 * exhaust the process's memory. Plain accounting: no buffers are pooled or reused.
 */

/** The reference's default `max_chunk_pool_bytes`: 2 GiB. */
export const DEFAULT_MAX_CHUNK_POOL_BYTES = 2 * 1024 * 1024 * 1024;

/** Code for the store layer's error table (gRPC ResourceExhausted / HTTP 422 in Cortex). */
export const RESOURCE_EXHAUSTED = 'resource_exhausted';

/** A query asked for more chunk bytes than the pool has left. */
export class ChunkPoolExhaustedError extends Error {
  override readonly name = 'ChunkPoolExhaustedError';
  readonly code = RESOURCE_EXHAUSTED;
  constructor(
    readonly tenant: string,
    readonly requested: number,
    readonly inUse: number,
    readonly maxBytes: number,
  ) {
    super(
      `resource exhausted: chunk pool of tenant ${JSON.stringify(tenant)} cannot take ${requested} more bytes ` +
        `(${inUse} in use by queries in flight, limit max_chunk_pool_bytes=${maxBytes})`,
    );
  }
}

export interface ChunkPoolConfig {
  /** `max_chunk_pool_bytes`; 0 or less means no limit. */
  maxBytes: number;
  /** For error messages. */
  tenant: string;
}

export class ChunkPool {
  private used = 0;

  constructor(private readonly config: ChunkPoolConfig) {
    if (!Number.isFinite(config.maxBytes)) {
      throw new RangeError(`max_chunk_pool_bytes must be a finite number, got ${config.maxBytes}`);
    }
  }

  /** Bytes reserved by queries in flight. */
  get inUse(): number {
    return this.used;
  }

  get maxBytes(): number {
    return this.config.maxBytes;
  }

  /** Reserves `bytes` or throws ChunkPoolExhaustedError (reserving nothing). */
  acquire(bytes: number): void {
    checkBytes(bytes);
    const max = this.config.maxBytes;
    if (max > 0 && this.used + bytes > max) {
      throw new ChunkPoolExhaustedError(this.config.tenant, bytes, this.used, max);
    }
    this.used += bytes;
  }

  /** Gives back `bytes` reserved earlier. */
  release(bytes: number): void {
    checkBytes(bytes);
    if (bytes > this.used) {
      throw new RangeError(`chunk pool: releasing ${bytes} bytes but only ${this.used} are in use`);
    }
    this.used -= bytes;
  }

  /** A reservation scope for one query: everything it acquires is released at once. */
  lease(): ChunkPoolLease {
    return new ChunkPoolLease(this);
  }
}

export class ChunkPoolLease {
  private held = 0;

  constructor(private readonly pool: ChunkPool) {}

  get bytes(): number {
    return this.held;
  }

  acquire(bytes: number): void {
    this.pool.acquire(bytes);
    this.held += bytes;
  }

  /** Releases everything this lease holds; safe to call more than once. */
  releaseAll(): void {
    const n = this.held;
    this.held = 0;
    if (n > 0) this.pool.release(n);
  }
}

function checkBytes(bytes: number): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(`chunk pool: byte count must be a non-negative integer, got ${bytes}`);
  }
}
