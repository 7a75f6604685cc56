/**
 * The `ingester.QueryStream` answer: series with their chunks still encoded (Cortex's
 * QueryStream with chunk streaming), so an ingester copies chunk bytes instead of decoding
 * and re-encoding samples, and the querier decodes only what the query window needs.
 *
 * Layout (little endian): u32 series count; per series u32 label count, each name and value
 * as u32 byte length + UTF-8, u32 chunk count, per chunk f64 min time, f64 max time,
 * u8 encoding, u32 byte length and the chunk's bytes.
 */
import type { Pause } from '../model/index.js';
import type { RawChunk, SeriesChunks } from '../tsdb/index.js';
import { WireReader, writeUtf8 } from './wire.js';

const CHUNK_HEADER = 8 + 8 + 1 + 4;

/**
 * The answer's bytes. With `pause` the writing lets other work run between series (an
 * ingester's event loop serves pushes while it answers a select of thousands of series).
 */
export async function encodeSeriesChunks(
  series: readonly SeriesChunks[],
  pause?: Pause,
): Promise<Uint8Array> {
  // An upper bound first (3 UTF-8 bytes per UTF-16 unit), then one pass writing.
  let bound = 4;
  for (const s of series) {
    bound += 8;
    for (let i = 0; i < s.labels.length; i++)
      bound += 8 + 3 * (s.labels.nameAt(i).length + s.labels.valueAt(i).length);
    for (const c of s.chunks) bound += CHUNK_HEADER + c.data.length;
  }
  const out = new Uint8Array(bound);
  const view = new DataView(out.buffer);
  let pos = 0;
  const u32 = (v: number): void => {
    view.setUint32(pos, v, true);
    pos += 4;
  };
  const str = (s: string): void => {
    const written = writeUtf8(out, pos + 4, s);
    view.setUint32(pos, written, true);
    pos += 4 + written;
  };
  u32(series.length);
  for (const s of series) {
    if (pause?.due() === true) await pause.yield();
    u32(s.labels.length);
    for (let i = 0; i < s.labels.length; i++) {
      str(s.labels.nameAt(i));
      str(s.labels.valueAt(i));
    }
    u32(s.chunks.length);
    for (const c of s.chunks) {
      view.setFloat64(pos, c.minTime, true);
      view.setFloat64(pos + 8, c.maxTime, true);
      out[pos + 16] = c.encoding;
      view.setUint32(pos + 17, c.data.length, true);
      pos += CHUNK_HEADER;
      out.set(c.data, pos);
      pos += c.data.length;
    }
  }
  return pos === bound ? out : out.subarray(0, pos);
}

/**
 * Inverse of encodeSeriesChunks; chunk bytes are views into `bytes` (not copied). Truncated
 * or malformed input is an `internal` RpcError.
 */
export function decodeSeriesChunks(bytes: Uint8Array): SeriesChunks[] {
  const r = new WireReader(bytes, 'chunk series response');
  const count = r.u32();
  const out: SeriesChunks[] = [];
  for (let i = 0; i < count; i++) {
    const labels = r.labels();
    const nChunks = r.u32();
    const chunks: RawChunk[] = [];
    for (let j = 0; j < nChunks; j++) {
      r.need(CHUNK_HEADER);
      const at = r.pos;
      const minTime = r.view.getFloat64(at, true);
      const maxTime = r.view.getFloat64(at + 8, true);
      const encoding = bytes[at + 16] as number;
      const len = r.view.getUint32(at + 17, true);
      r.pos += CHUNK_HEADER;
      r.need(len);
      chunks.push({ minTime, maxTime, encoding, data: bytes.subarray(r.pos, r.pos + len) });
      r.pos += len;
    }
    out.push({ labels, chunks });
  }
  r.end();
  return out;
}
