/**
 * Object storage as components see it (the Thanos objstore contract): flat names with `/`
 * as the directory separator, whole-object uploads (from bytes or from a re-readable stream),
 * byte-range reads, prefix listing.
 *
 * Every call takes an optional `signal`: when it aborts, the backend cancels its request where
 * it can (the retrying wrapper aborts an attempt that outlived its timeout, so a stalled upload
 * cannot land after a later write of the same object). Backends that cannot cancel ignore it.
 */
export interface Bucket {
  /** A short description for logs and metrics, e.g. `filesystem:/data/blocks`. */
  readonly name: string;
  /** Rejects with ObjectNotFoundError when missing. */
  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array>;
  /** `length` bytes from `offset` (fewer at the end of the object); -1 reads to the end. */
  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array>;
  exists(name: string, opts?: BucketCallOptions): Promise<boolean>;
  /** Creates or replaces the object atomically (readers see the old or the new, never a mix). */
  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void>;
  /**
   * Like `upload`, from a source read piece by piece (a block's chunk segment of up to
   * 512 MiB), so the whole object never has to sit in memory. Each call opens the source
   * afresh; a failed call leaves the previous object, if any, unchanged. Rejects when the
   * source yields a byte count other than its `size`.
   */
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void>;
  /**
   * Removes the object. Deleting a missing object succeeds (S3's and the filesystem's
   * semantics in Thanos objstore), so a retried or repeated delete is harmless.
   */
  delete(name: string, opts?: BucketCallOptions): Promise<void>;
  /**
   * Entries directly under `dir` ('' for the root), sorted: objects by full name and
   * "directories" with a trailing `/`. With `recursive`, every object below `dir`, no dirs.
   */
  list(dir: string, opts?: BucketListOptions): Promise<string[]>;
  /** Rejects with ObjectNotFoundError when missing. */
  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes>;
  close(): Promise<void>;
}

/**
 * The bytes of a streamed upload. A factory rather than a one-shot stream: every `open()`
 * yields the same bytes from the first one, so a retry re-reads the source (a local file)
 * instead of anyone keeping what was already sent.
 */
export interface UploadSource {
  /** How many bytes every `open()` yields. */
  readonly size: number;
  open(): AsyncIterable<Uint8Array>;
}

export interface BucketCallOptions {
  /** Abandons the call; see Bucket. */
  signal?: AbortSignal;
}

export interface BucketListOptions extends BucketCallOptions {
  recursive?: boolean;
}

export interface ObjectAttributes {
  size: number;
  /** Milliseconds since epoch. */
  lastModified: number;
}

export class ObjectNotFoundError extends Error {
  override readonly name = 'ObjectNotFoundError';
  constructor(readonly object: string) {
    super(`object not found: ${object}`);
  }
}

export function isObjectNotFound(err: unknown): boolean {
  return err instanceof ObjectNotFoundError;
}

/**
 * A failed call to a remote object store other than "not found": the message names the store
 * (backend, bucket or container, endpoint), the operation and the object; `retryable` says
 * whether trying again may help (server errors, throttling, timeouts, dropped connections)
 * or cannot (bad credentials, a missing bucket, a rejected request).
 */
export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  readonly retryable: boolean;
  /** The HTTP status when the store answered. */
  readonly status: number | undefined;
  /** The store's or the network's error code, e.g. `SlowDown`, `AuthorizationFailure`, `ECONNREFUSED`. */
  readonly code: string | undefined;

  constructor(
    message: string,
    details: { retryable: boolean; status?: number; code?: string; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.retryable = details.retryable;
    this.status = details.status;
    this.code = details.code;
  }
}

/** Which backend to open; mirrors the `-experimental.tsdb.backend` choice and its block. */
export type BucketSpec =
  | { backend: 'filesystem'; dir: string }
  | { backend: 'inmemory' }
  | {
      backend: 's3';
      endpoint: string;
      bucketName: string;
      accessKeyId: string;
      secretAccessKey: string;
      insecure: boolean;
    }
  | { backend: 'gcs'; bucketName: string; serviceAccount: string }
  | {
      backend: 'azure';
      accountName: string;
      accountKey: string;
      containerName: string;
      /**
       * Host name suffix; the account name is prefixed to form the host. An IP address or
       * `localhost` (with an optional port) selects the emulator form
       * `http://<suffix>/<account>` instead, as azurite expects. Empty: `blob.core.windows.net`.
       */
      endpointSuffix: string;
      /** Retries of recoverable errors (the retrying wrapper's budget for this bucket). */
      maxRetries: number;
    };
