// A chunk as queries hand it on: its time bounds, encoding byte and encoded bytes. This is
// the unit of the chunk-streaming read contract (Cortex's QueryStream chunks and the
// store-gateway's Series chunks): readers pass chunks on undecoded and the querier decodes
// only what the query window needs.
import { Encoding } from './encoding.js';
import { XorChunk } from './xor.js';

/** An encoded chunk with the inclusive ms bounds of its samples. */
export interface RawChunk {
  readonly minTime: number;
  readonly maxTime: number;
  /** The encoding byte (Encoding: 1 = XOR). */
  readonly encoding: number;
  /** The chunk's encoded bytes, header included (no length prefix, encoding byte or CRC). */
  readonly data: Uint8Array;
}

/** The sample count an XOR chunk's header holds (big-endian uint16), 0 when too short. */
export function rawChunkSamples(chunk: RawChunk): number {
  const d = chunk.data;
  return d.length < 2 ? 0 : ((d[0] as number) << 8) | (d[1] as number);
}

/**
 * Samples (timestamps ascending) as XOR chunks of at most `perChunk` samples each: how
 * samples that do not live in chunks (re-encoded survivors of a deletion, a test's data)
 * travel through chunk-streaming reads.
 */
export function rawChunksFromSamples(
  timestamps: ArrayLike<number>,
  values: ArrayLike<number>,
  perChunk = 120,
): RawChunk[] {
  const out: RawChunk[] = [];
  for (let from = 0; from < timestamps.length; from += perChunk) {
    const to = Math.min(from + perChunk, timestamps.length);
    const chunk = new XorChunk();
    const app = chunk.appender();
    for (let i = from; i < to; i++) app.append(timestamps[i] as number, values[i] as number);
    out.push({
      minTime: timestamps[from] as number,
      maxTime: timestamps[to - 1] as number,
      encoding: Encoding.XOR,
      data: chunk.bytes(),
    });
  }
  return out;
}
