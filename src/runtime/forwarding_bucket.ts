// A Bucket that passes every call to another one: the base of wrappers that watch or change
// a few calls (test doubles, benchmark probes, the simulator's deliberate bugs) and leave
// the rest alone.
import type {
  Bucket,
  BucketCallOptions,
  BucketListOptions,
  ObjectAttributes,
  UploadSource,
} from './bucket.js';

export class ForwardingBucket implements Bucket {
  constructor(protected readonly inner: Bucket) {}
  get name(): string {
    return this.inner.name;
  }
  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.inner.get(name, opts);
  }
  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.inner.getRange(name, offset, length, opts);
  }
  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.inner.exists(name, opts);
  }
  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.inner.upload(name, data, opts);
  }
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.inner.uploadStream(name, source, opts);
  }
  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.inner.delete(name, opts);
  }
  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    return this.inner.list(dir, opts);
  }
  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.inner.attributes(name, opts);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
