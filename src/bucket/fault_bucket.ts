import {
  AbortError,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type ObjectAttributes,
  type UploadSource,
} from '../runtime/index.js';
import type { BucketOperation } from './bucket_operations.js';

/** What the next call of an operation does instead of (or before) reaching the real bucket. */
export type Fault =
  /** Rejects with this error. */
  | { kind: 'error'; error: Error }
  /** Never answers until the call's signal aborts (a stalled request). */
  | { kind: 'hang' };

/**
 * A bucket for tests of the wrappers: it forwards to another bucket, but the next calls of an
 * operation can be scripted to fail or stall, and it records every call it saw (operation,
 * object and whether its signal was aborted when the call ended).
 */
export class FaultBucket implements Bucket {
  readonly name: string;
  readonly calls: { op: BucketOperation; object: string; aborted: () => boolean }[] = [];
  private readonly faults = new Map<BucketOperation, Fault[]>();

  constructor(private readonly inner: Bucket) {
    this.name = `fault:${inner.name}`;
  }

  /** The next `faults.length` calls of `op` meet these faults, in order. */
  inject(op: BucketOperation, ...faults: Fault[]): this {
    this.faults.set(op, [...(this.faults.get(op) ?? []), ...faults]);
    return this;
  }

  /** Calls of `op` seen so far. */
  count(op: BucketOperation): number {
    return this.calls.filter((c) => c.op === op).length;
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.run('get', name, opts, () => this.inner.get(name));
  }

  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.run('get_range', name, opts, () => this.inner.getRange(name, offset, length));
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.run('exists', name, opts, () => this.inner.exists(name));
  }

  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.run('upload', name, opts, () => this.inner.upload(name, data));
  }

  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.run('upload', name, opts, () => this.inner.uploadStream(name, source));
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.run('delete', name, opts, () => this.inner.delete(name));
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    const recursive = opts?.recursive ?? false;
    return this.run('iter', dir, opts, () => this.inner.list(dir, { recursive }));
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.run('attributes', name, opts, () => this.inner.attributes(name));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private run<T>(
    op: BucketOperation,
    object: string,
    opts: BucketCallOptions | undefined,
    forward: () => Promise<T>,
  ): Promise<T> {
    const signal = opts?.signal;
    this.calls.push({ op, object, aborted: () => signal?.aborted ?? false });
    const fault = this.faults.get(op)?.shift();
    if (fault === undefined) return forward();
    if (fault.kind === 'error') return Promise.reject(fault.error);
    return new Promise<T>((_, reject) => {
      signal?.addEventListener('abort', () => reject(new AbortError()), { once: true });
    });
  }
}
