import {
  ObjectNotFoundError,
  type Bucket,
  type ObjectAttributes,
  type UploadSource,
} from '../bucket.js';
import type { Clock } from '../clock.js';
import { listObjectNames } from './bucket_listing.js';
import { collectSource } from '../upload_source.js';
import { settle } from './settle.js';

interface StoredObject {
  readonly data: Uint8Array;
  readonly lastModified: number;
}

/**
 * A bucket held in process memory (the `inmemory` backend, and the base the simulator wraps
 * with latency and faults). Data is copied on the way in and out: a caller mutating a buffer
 * after upload, or a buffer it got back, must never change what is stored. Every operation
 * completes within one call (no interleaving point), so uploads are trivially atomic.
 */
export class MemoryBucket implements Bucket {
  readonly name: string;
  private readonly objects = new Map<string, StoredObject>();

  constructor(
    private readonly deps: { clock: Clock },
    name = 'inmemory',
  ) {
    this.name = name;
  }

  get(name: string): Promise<Uint8Array> {
    return settle(() => this.mustGet(name).data.slice());
  }

  getRange(name: string, offset: number, length: number): Promise<Uint8Array> {
    return settle(() => {
      checkRange(name, offset, length);
      const data = this.mustGet(name).data;
      const end = length === -1 ? data.length : Math.min(data.length, offset + length);
      return data.slice(Math.min(offset, data.length), end);
    });
  }

  exists(name: string): Promise<boolean> {
    return settle(() => this.objects.has(name));
  }

  upload(name: string, data: Uint8Array): Promise<void> {
    return settle(() => {
      checkObjectName(name);
      this.objects.set(name, { data: data.slice(), lastModified: this.deps.clock.now() });
    });
  }

  /** The object lives in memory anyway; it is stored once the source was read in full. */
  async uploadStream(name: string, source: UploadSource): Promise<void> {
    checkObjectName(name);
    const data = await collectSource(name, source);
    this.objects.set(name, { data, lastModified: this.deps.clock.now() });
  }

  /** Deleting a missing object succeeds, as the Bucket contract says. */
  delete(name: string): Promise<void> {
    return settle(() => {
      this.objects.delete(name);
    });
  }

  list(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    return settle(() => listObjectNames(this.objects.keys(), dir, opts?.recursive ?? false));
  }

  attributes(name: string): Promise<ObjectAttributes> {
    return settle(() => {
      const obj = this.mustGet(name);
      return { size: obj.data.length, lastModified: obj.lastModified };
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private mustGet(name: string): StoredObject {
    const obj = this.objects.get(name);
    if (obj === undefined) throw new ObjectNotFoundError(name);
    return obj;
  }
}

/** Names every bucket backend can store: non-empty, not a "directory" (trailing `/`). */
export function checkObjectName(name: string): void {
  if (name === '' || name.endsWith('/')) {
    throw new Error(
      `invalid object name ${JSON.stringify(name)}: must be non-empty and not end with "/"`,
    );
  }
}

/** The argument rule of `Bucket.getRange`, shared so every backend rejects the same calls. */
export function checkRange(name: string, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`getRange ${name}: offset must be a non-negative integer, got ${offset}`);
  }
  if (!Number.isSafeInteger(length) || length < -1) {
    throw new RangeError(
      `getRange ${name}: length must be -1 or a non-negative integer, got ${length}`,
    );
  }
}
