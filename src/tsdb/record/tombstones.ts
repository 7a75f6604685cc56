// Tombstones records: deleted time ranges of series, one entry per interval.
//
//   type byte (3) · { ref BE64 · mint varint · maxt varint }*
import { DecBuf, EncBuf } from '../encoding/index.js';
import { checkRef, checkType, finishDecode } from './errors.js';
import { RecordType } from './types.js';

/** Samples of series `ref` with mint <= t <= maxt are deleted. */
export interface TombstoneEntry {
  readonly ref: number;
  readonly mint: number;
  readonly maxt: number;
}

/**
 * Encodes a tombstones record. Prometheus groups a series' intervals in memory but writes
 * one (ref, mint, maxt) entry per interval, as this flat form does.
 */
export function encodeTombstones(
  tombstones: readonly TombstoneEntry[],
  buf: EncBuf = new EncBuf(),
): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.Tombstones);
  for (const s of tombstones) {
    checkRef(s.ref, 'tombstone ref');
    buf.putBE64(s.ref);
    buf.putVarint(s.mint);
    buf.putVarint(s.maxt);
  }
  return buf.get();
}

/** Decodes a tombstones record, appending to `into` (returned). */
export function decodeTombstones(
  record: Uint8Array,
  into: TombstoneEntry[] = [],
): TombstoneEntry[] {
  checkType(record, RecordType.Tombstones);
  const dec = new DecBuf(record);
  dec.skip(1);
  let decoded = 0;
  while (dec.len() > 0 && dec.err() === null) {
    const ref = dec.getBE64();
    const mint = dec.getVarint();
    const maxt = dec.getVarint();
    if (dec.err() !== null) break;
    into.push({ ref, mint, maxt });
    decoded++;
  }
  finishDecode(dec, 'tombstones', `after ${decoded} tombstones`);
  return into;
}
