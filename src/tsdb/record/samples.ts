// Samples records (Prometheus record.Samples, the "V1" layout every Prometheus reads):
//
//   type byte (2) · first ref BE64 · first timestamp BE64 (int64)
//   · { ref − first ref varint · timestamp − first timestamp varint · value bits BE64 }*
//
// Both deltas are to the FIRST sample, not the previous one. An empty batch is the type byte
// alone. Refs are uint64 in Prometheus and timestamps int64; both must be safe integers
// here (refs are counters from 1 and timestamps are milliseconds, so real data always is).
import { DecBuf, EncBuf } from '../encoding/index.js';
import { RecordDecodeError, checkRef, checkType, finishDecode } from './errors.js';
import { HI, LO, SampleBatch } from './sample_batch.js';
import { RecordType } from './types.js';

/** Bytes per sample at least: one byte per varint and eight for the value. */
const MIN_SAMPLE_BYTES = 10;

/**
 * Encodes `batch` as a samples record. With `buf`, the result is a view into it, valid
 * until the buffer's next use; without, a fresh buffer is used.
 */
export function encodeSamples(batch: SampleBatch, buf: EncBuf = new EncBuf()): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.Samples);
  const n = batch.length;
  if (n === 0) return buf.get();
  const { refs, timestamps, valueWords: words } = batch;
  const firstRef = refs[0] as number;
  const firstT = timestamps[0] as number;
  checkRef(firstRef, 'sample ref');
  checkTimestamp(firstT);
  buf.putBE64(firstRef);
  buf.putBE64(firstT);
  for (let i = 0; i < n; i++) {
    const ref = refs[i] as number;
    const t = timestamps[i] as number;
    if (i > 0) {
      checkRef(ref, 'sample ref');
      checkTimestamp(t);
    }
    buf.putVarint(ref - firstRef);
    const dt = t - firstT;
    if (!Number.isSafeInteger(dt))
      throw new RangeError(
        `sample timestamp ${t} is too far from the record's first timestamp ${firstT}: their difference must be a safe integer`,
      );
    buf.putVarint(dt);
    buf.putBE32(words[2 * i + HI] as number);
    buf.putBE32(words[2 * i + LO] as number);
  }
  return buf.get();
}

/**
 * Decodes a samples record, appending to `into` (returned; a new batch when absent). Values
 * are copied as raw bits.
 */
export function decodeSamples(
  record: Uint8Array,
  into: SampleBatch = new SampleBatch(),
): SampleBatch {
  checkType(record, RecordType.Samples);
  const dec = new DecBuf(record);
  dec.skip(1);
  const start = into.length;
  if (dec.len() === 0) return into;
  const firstRef = dec.getBE64();
  const firstT = dec.getBE64Int();
  into.reserve(start + Math.floor(dec.len() / MIN_SAMPLE_BYTES));
  while (dec.len() > 0 && dec.err() === null) {
    const ref = firstRef + dec.getVarint();
    const t = firstT + dec.getVarint();
    const hi = dec.getBE32();
    const lo = dec.getBE32();
    if (dec.err() !== null) break;
    if (ref < 0 || !Number.isSafeInteger(ref) || !Number.isSafeInteger(t))
      throw new RecordDecodeError(
        'samples',
        dec.position(),
        `sample ${into.length - start} has ref ${ref} and timestamp ${t} (the ref must be a non-negative safe integer, the timestamp a safe integer)`,
      );
    into.pushBits(ref, t, hi, lo);
  }
  finishDecode(dec, 'samples', `after ${into.length - start} samples`);
  return into;
}

function checkTimestamp(t: number): void {
  if (!Number.isSafeInteger(t))
    throw new RangeError(`sample timestamp must be a safe integer, got ${t}`);
}
