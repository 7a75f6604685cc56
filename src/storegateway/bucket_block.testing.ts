/**
 * Test support for the block layer: a bucket wrapper that records every call (to count range
 * requests and bytes), shipping a locally written block into a bucket the way Cortex's
 * shipper lays it out, and flattening query answers into comparable sample keys. Imported by
 * tests only.
 */
import { blockChunkPath, blockIndexPath, blockMetaPath } from '../bucket/layout.js';
import type { Matcher } from '../model/index.js';
import type {
  Bucket,
  BucketCallOptions,
  UploadSource,
  BucketListOptions,
  FileSystem,
  ObjectAttributes,
} from '../runtime/index.js';
import { ChunkSeriesIterator, type BlockReader } from '../tsdb/block/index.js';
import { ValueType, chunkFromData, type Chunk } from '../tsdb/chunkenc/index.js';
import type { StoreSeries } from './block_api.js';

export interface BucketCall {
  readonly op: string;
  readonly name: string;
  readonly offset?: number;
  readonly length?: number;
  /** Bytes returned. */
  readonly bytes: number;
}

/** Passes every call through to `inner` and records it. */
export class CountingBucket implements Bucket {
  readonly calls: BucketCall[] = [];

  constructor(readonly inner: Bucket) {}

  get name(): string {
    return `counting:${this.inner.name}`;
  }

  reset(): void {
    this.calls.length = 0;
  }

  /** Recorded calls whose object name contains `part` (all with ''). */
  callsTo(part: string, op?: string): BucketCall[] {
    return this.calls.filter((c) => c.name.includes(part) && (op === undefined || c.op === op));
  }

  bytesRead(): number {
    return this.calls.reduce((sum, c) => sum + c.bytes, 0);
  }

  async get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    const bytes = await this.inner.get(name, opts);
    this.calls.push({ op: 'get', name, bytes: bytes.length });
    return bytes;
  }

  async getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    const bytes = await this.inner.getRange(name, offset, length, opts);
    this.calls.push({ op: 'getRange', name, offset, length, bytes: bytes.length });
    return bytes;
  }

  async exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    this.calls.push({ op: 'exists', name, bytes: 0 });
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

  async attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    this.calls.push({ op: 'attributes', name, bytes: 0 });
    return this.inner.attributes(name, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * Uploads the block in `<dir>/<blockId>` to `<tenant>/<blockId>/` (chunk segments, index, then
 * meta.json last; tombstones stay local, as Cortex's shipper does). Returns the bytes shipped.
 */
export async function shipBlock(
  fs: FileSystem,
  dir: string,
  blockId: string,
  bucket: Bucket,
  tenant: string,
): Promise<number> {
  const local = `${dir}/${blockId}`;
  let total = 0;
  const segments = (await fs.readdir(`${local}/chunks`)).filter((n) => /^\d{6}$/.test(n));
  for (const name of segments) {
    const data = await fs.readFile(`${local}/chunks/${name}`);
    await bucket.upload(blockChunkPath(tenant, blockId, Number(name)), data);
    total += data.length;
  }
  const index = await fs.readFile(`${local}/index`);
  await bucket.upload(blockIndexPath(tenant, blockId), index);
  const meta = await fs.readFile(`${local}/meta.json`);
  await bucket.upload(blockMetaPath(tenant, blockId), meta);
  return total + index.length + meta.length;
}

/** Every sample of `series` inside [mint, maxt] as `labels t bits` keys, in answer order. */
export function storeSeriesSamples(
  series: readonly StoreSeries[],
  mint: number,
  maxt: number,
): string[] {
  const out: string[] = [];
  for (const s of series) {
    const chunks: Chunk[] = s.chunks.map((c) => chunkFromData(c.encoding, c.data));
    collect(out, s.labels.toString(), new ChunkSeriesIterator(chunks, mint, maxt, []));
  }
  return out;
}

/** The same keys from a local BlockReader (the reference answer). */
export async function blockReaderSamples(
  reader: BlockReader,
  matchers: readonly Matcher[],
  mint: number,
  maxt: number,
): Promise<string[]> {
  const out: string[] = [];
  for await (const s of reader.select(matchers, mint, maxt)) {
    collect(out, s.labels.toString(), s.iterator());
  }
  return out;
}

function collect(
  out: string[],
  labels: string,
  it: { next(): ValueType; atT(): number; atF(): number; err(): Error | null },
): void {
  const bits = new DataView(new ArrayBuffer(8));
  while (it.next() === ValueType.Float) {
    bits.setFloat64(0, it.atF());
    out.push(`${labels} ${it.atT()} ${bits.getBigUint64(0)}`);
  }
  const err = it.err();
  if (err !== null) throw err;
}
