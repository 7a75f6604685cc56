/**
 * Object storage as components see it (the Thanos objstore contract): flat names with `/`
 * as the directory separator, whole-object uploads, byte-range reads, prefix listing.
 */
export interface Bucket {
  /** A short description for logs and metrics, e.g. `filesystem:/data/blocks`. */
  readonly name: string;
  /** Rejects with ObjectNotFoundError when missing. */
  get(name: string): Promise<Uint8Array>;
  /** `length` bytes from `offset` (fewer at the end of the object); -1 reads to the end. */
  getRange(name: string, offset: number, length: number): Promise<Uint8Array>;
  exists(name: string): Promise<boolean>;
  /** Creates or replaces the object atomically (readers see the old or the new, never a mix). */
  upload(name: string, data: Uint8Array): Promise<void>;
  /** Rejects with ObjectNotFoundError when missing. */
  delete(name: string): Promise<void>;
  /**
   * Entries directly under `dir` ('' for the root), sorted: objects by full name and
   * "directories" with a trailing `/`. With `recursive`, every object below `dir`, no dirs.
   */
  list(dir: string, opts?: { recursive?: boolean }): Promise<string[]>;
  /** Rejects with ObjectNotFoundError when missing. */
  attributes(name: string): Promise<ObjectAttributes>;
  close(): Promise<void>;
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
      endpointSuffix: string;
      maxRetries: number;
    };
