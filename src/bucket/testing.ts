/**
 * Test support for code that works on a blocks bucket: blocks written object by object as
 * an ingester's shipper leaves them, deterministic ULIDs, and a bucket wrapper that records
 * every call and can fail chosen ones. Only tests import this file.
 */
import {
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type ObjectAttributes,
  type UploadSource,
} from '../runtime/index.js';
import { serializeBlockMeta, ulidFromParts, type BlockMeta } from '../tsdb/index.js';
import { blockChunkPath, blockIndexPath, blockMetaPath } from './layout.js';

/** A canonical ULID for time `ms` whose entropy is `n` (distinct n, distinct IDs). */
export function testUlid(ms: number, n: number): string {
  const entropy = new Uint8Array(10);
  new DataView(entropy.buffer).setUint32(6, n);
  return ulidFromParts(ms, entropy);
}

export interface TestBlockOptions {
  minTime?: number;
  maxTime?: number;
  segments?: number;
  /** Leave meta.json out (a partial block). */
  partial?: boolean;
  /** meta.json text to upload instead of a valid one. */
  metaText?: string;
  seriesMaxSize?: number;
}

export function testBlockMeta(
  tenant: string,
  block: string,
  opts: TestBlockOptions = {},
): BlockMeta {
  const segments = opts.segments ?? 1;
  const files = [];
  for (let i = 1; i <= segments; i++) {
    files.push({ rel_path: `chunks/${String(i).padStart(6, '0')}`, size_bytes: 100 });
  }
  files.push({ rel_path: 'index', size_bytes: 200 }, { rel_path: 'meta.json' });
  return {
    ulid: block,
    minTime: opts.minTime ?? 0,
    maxTime: opts.maxTime ?? 7_200_000,
    stats: { numSamples: 10, numSeries: 1, numChunks: 1, numTombstones: 0 },
    compaction: { level: 1, sources: [block] },
    version: 1,
    thanos: {
      labels: { __org_id__: tenant },
      downsample: { resolution: 0 },
      source: 'receive',
      files,
      index_stats: { series_max_size: opts.seriesMaxSize ?? 0, chunk_max_size: 0 },
    },
  };
}

/** Uploads a block the way the shipper does: chunks, index, then meta.json last. */
export async function uploadTestBlock(
  bucket: Bucket,
  tenant: string,
  block: string,
  opts: TestBlockOptions = {},
): Promise<void> {
  const bytes = new Uint8Array([1, 2, 3]);
  for (let i = 1; i <= (opts.segments ?? 1); i++) {
    await bucket.upload(blockChunkPath(tenant, block, i), bytes);
  }
  await bucket.upload(blockIndexPath(tenant, block), bytes);
  if (opts.partial === true) return;
  const text = opts.metaText ?? serializeBlockMeta(testBlockMeta(tenant, block, opts));
  await bucket.upload(blockMetaPath(tenant, block), new TextEncoder().encode(text));
}

/** What a RecordingBucket call chosen to fail rejects with. */
export class InjectedBucketError extends Error {
  override readonly name = 'InjectedBucketError';
}

export interface BucketCall {
  op: 'get' | 'getRange' | 'exists' | 'upload' | 'delete' | 'list' | 'attributes';
  name: string;
  /** An upload made with `uploadStream` (it is recorded, and fails, as an upload). */
  streamed?: boolean;
}

/** Wraps a bucket, recording calls; `failWhen` makes chosen calls reject with ObjectStoreError. */
export class RecordingBucket implements Bucket {
  readonly name: string;
  readonly calls: BucketCall[] = [];
  failWhen: ((call: BucketCall) => boolean) | undefined;

  constructor(private readonly inner: Bucket) {
    this.name = `recording:${inner.name}`;
  }

  /** The names of the recorded calls of one kind, in order. */
  names(op: BucketCall['op']): string[] {
    return this.calls.filter((c) => c.op === op).map((c) => c.name);
  }

  private async call<T>(call: BucketCall, run: () => Promise<T>): Promise<T> {
    this.calls.push(call);
    if (this.failWhen?.(call) === true) {
      throw new InjectedBucketError(`injected failure: ${call.op} ${call.name}`);
    }
    return run();
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.call({ op: 'get', name }, () => this.inner.get(name, opts));
  }
  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    return this.call({ op: 'getRange', name }, () =>
      this.inner.getRange(name, offset, length, opts),
    );
  }
  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.call({ op: 'exists', name }, () => this.inner.exists(name, opts));
  }
  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.call({ op: 'upload', name }, () => this.inner.upload(name, data, opts));
  }
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.call({ op: 'upload', name, streamed: true }, () =>
      this.inner.uploadStream(name, source, opts),
    );
  }
  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.call({ op: 'delete', name }, () => this.inner.delete(name, opts));
  }
  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    return this.call({ op: 'list', name: dir }, () => this.inner.list(dir, opts));
  }
  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.call({ op: 'attributes', name }, () => this.inner.attributes(name, opts));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
