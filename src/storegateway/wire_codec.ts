/**
 * The binary encoding of a `storegateway.Series` answer. Series carry their chunks as
 * stored, so a query moves raw chunk bytes, never decoded samples; decoding hands out views
 * into the response body instead of copies.
 *
 * Layout (little endian): magic "SGS1"; u32 series count; per series u32 label count, each
 * name and value as u32 byte length + UTF-8, u32 chunk count, per chunk f64 minTime,
 * f64 maxTime, u8 encoding, u32 byte length + bytes; u32 queried block count, each as a
 * length-prefixed string; four f64 stats (bucket requests, bucket bytes, series, chunks).
 * Times are f64 because block times are ms values beyond 2^32 and may be negative.
 */
import { Labels } from '../model/index.js';
import { RpcError } from '../runtime/index.js';
import type { StoreChunk, StoreSeries } from './block_api.js';
import type { StoreSeriesResponse } from './wire.js';

const MAGIC = [0x53, 0x47, 0x53, 0x31]; // "SGS1"
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

class Writer {
  private buf: Uint8Array;
  private view: DataView;
  pos = 0;

  constructor(initial: number) {
    this.buf = new Uint8Array(Math.max(64, initial));
    this.view = new DataView(this.buf.buffer);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): void {
    this.ensure(1);
    this.view.setUint8(this.pos, v);
    this.pos += 1;
  }

  u32(v: number): void {
    this.ensure(4);
    this.view.setUint32(this.pos, v, true);
    this.pos += 4;
  }

  f64(v: number): void {
    this.ensure(8);
    this.view.setFloat64(this.pos, v, true);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.u32(b.length);
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(s: string): void {
    this.bytes(encoder.encode(s));
  }

  raw(b: readonly number[]): void {
    this.ensure(b.length);
    for (const x of b) this.buf[this.pos++] = x;
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}

/** Encodes a Series answer; chunk bytes are copied once, into the body. */
export function encodeStoreSeriesResponse(res: StoreSeriesResponse): Uint8Array {
  let estimate = 64;
  for (const s of res.series) {
    estimate += 8 + s.labels.length * 24;
    for (const c of s.chunks) estimate += 21 + c.data.length;
  }
  const w = new Writer(estimate);
  w.raw(MAGIC);
  w.u32(res.series.length);
  for (const s of res.series) {
    w.u32(s.labels.length);
    s.labels.forEach((name, value) => {
      w.string(name);
      w.string(value);
    });
    w.u32(s.chunks.length);
    for (const c of s.chunks) {
      w.f64(c.minTime);
      w.f64(c.maxTime);
      w.u8(c.encoding);
      w.bytes(c.data);
    }
  }
  w.u32(res.queriedBlocks.length);
  for (const b of res.queriedBlocks) w.string(b);
  w.f64(res.stats.bucketRequests);
  w.f64(res.stats.bucketBytes);
  w.f64(res.stats.seriesFetched);
  w.f64(res.stats.chunksFetched);
  return w.finish();
}

/**
 * Decodes a Series answer. Chunk data are views into `body` (the body must not be reused);
 * truncated or malformed input is an `internal` RpcError naming the byte offset.
 */
export function decodeStoreSeriesResponse(body: Uint8Array): StoreSeriesResponse {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  let pos = 0;
  const fail = (what: string): never => {
    throw new RpcError('internal', `store-gateway series response: ${what} at byte ${pos}`);
  };
  const need = (n: number): void => {
    if (pos + n > body.length) fail(`truncated (need ${n} bytes, have ${body.length - pos})`);
  };
  const u8 = (): number => {
    need(1);
    return view.getUint8(pos++);
  };
  const u32 = (): number => {
    need(4);
    const v = view.getUint32(pos, true);
    pos += 4;
    return v;
  };
  const f64 = (): number => {
    need(8);
    const v = view.getFloat64(pos, true);
    pos += 8;
    return v;
  };
  const bytes = (): Uint8Array => {
    const n = u32();
    need(n);
    const b = body.subarray(pos, pos + n);
    pos += n;
    return b;
  };
  const string = (): string => {
    try {
      return decoder.decode(bytes());
    } catch {
      return fail('invalid UTF-8 in a string');
    }
  };
  need(MAGIC.length);
  for (const m of MAGIC) if (body[pos++] !== m) fail('bad magic (not a store-gateway series body)');
  const seriesCount = u32();
  const series: StoreSeries[] = [];
  for (let i = 0; i < seriesCount; i++) {
    const n = u32();
    const flat: string[] = [];
    for (let j = 0; j < n * 2; j++) flat.push(string());
    let labels: Labels;
    try {
      labels = Labels.fromSortedFlat(flat);
    } catch (err) {
      return fail(`bad label set: ${(err as Error).message}`);
    }
    const chunkCount = u32();
    const chunks: StoreChunk[] = [];
    for (let j = 0; j < chunkCount; j++) {
      const minTime = f64();
      const maxTime = f64();
      const encoding = u8();
      chunks.push({ minTime, maxTime, encoding, data: bytes() });
    }
    series.push({ labels, chunks });
  }
  const blockCount = u32();
  const queriedBlocks: string[] = [];
  for (let i = 0; i < blockCount; i++) queriedBlocks.push(string());
  const stats = {
    bucketRequests: f64(),
    bucketBytes: f64(),
    seriesFetched: f64(),
    chunksFetched: f64(),
  };
  if (pos !== body.length) fail(`${body.length - pos} trailing bytes`);
  return { series, queriedBlocks, stats };
}
