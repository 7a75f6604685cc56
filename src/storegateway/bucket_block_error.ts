/**
 * The one error a block in the bucket raises for its own faults: a missing object, bytes that
 * fail their format checks, or a bucket request that failed. It names tenant, block and the
 * object, so the store layer can count the failure against the block (and the operator can
 * find the object) without ever taking the process down.
 */
import { isAbortError, isObjectNotFound } from '../runtime/index.js';
import { ChunkPoolExhaustedError } from './chunk_pool.js';

/** `missing`: the object is not there; `corrupted`: its bytes are invalid; `io`: the read failed. */
export type BucketBlockErrorKind = 'missing' | 'corrupted' | 'io';

export class BucketBlockError extends Error {
  override readonly name = 'BucketBlockError';
  constructor(
    readonly kind: BucketBlockErrorKind,
    readonly tenant: string,
    readonly blockId: string,
    /** Bucket object name (or local index-header path) the fault is in. */
    readonly object: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `tenant ${JSON.stringify(tenant)} block ${blockId}: ${kindText(kind)} ${object}: ${detail}`,
      options,
    );
  }
}

function kindText(kind: BucketBlockErrorKind): string {
  switch (kind) {
    case 'missing':
      return 'missing object';
    case 'corrupted':
      return 'corrupted object';
    case 'io':
      return 'failed to read object';
  }
}

/** Errors that belong to the query rather than the block; they pass through unwrapped. */
export function isQueryError(err: unknown): boolean {
  return isAbortError(err) || err instanceof ChunkPoolExhaustedError;
}

/**
 * Wraps `err` raised while reading or decoding `object`: a missing object stays `missing`,
 * a failed bucket call is `io`, anything else (format checks, decoding) is `corrupted`.
 * Query errors and already wrapped errors are returned as they are.
 */
export function blockError(
  err: unknown,
  where: { tenant: string; blockId: string; object: string; reading: boolean },
): unknown {
  if (isQueryError(err) || err instanceof BucketBlockError) return err;
  const message = err instanceof Error ? err.message : String(err);
  let kind: BucketBlockErrorKind = 'corrupted';
  if (isObjectNotFound(err)) kind = 'missing';
  else if (where.reading) kind = 'io';
  return new BucketBlockError(kind, where.tenant, where.blockId, where.object, message, {
    cause: err,
  });
}
