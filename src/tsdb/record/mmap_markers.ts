// Mmap-marker records of the out-of-order write-behind log: "every sample of series `ref` up
// to now is in the head chunk file at `mmapRef`".
//
//   type byte (5) · { ref BE64 · mmap ref BE64 }*
import { DecBuf, EncBuf } from '../encoding/index.js';
import { checkRef, checkType, finishDecode } from './errors.js';
import { RecordType } from './types.js';

export interface RefMmapMarker {
  readonly ref: number;
  /** A head chunk reference: file sequence in the high 32 bits, byte offset in the low 32. */
  readonly mmapRef: number;
}

export function encodeMmapMarkers(
  markers: readonly RefMmapMarker[],
  buf: EncBuf = new EncBuf(),
): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.MmapMarkers);
  for (const m of markers) {
    checkRef(m.ref, 'mmap marker series ref');
    checkRef(m.mmapRef, 'mmap marker chunk ref');
    buf.putBE64(m.ref);
    buf.putBE64(m.mmapRef);
  }
  return buf.get();
}

export function decodeMmapMarkers(record: Uint8Array, into: RefMmapMarker[] = []): RefMmapMarker[] {
  checkType(record, RecordType.MmapMarkers);
  const dec = new DecBuf(record);
  dec.skip(1);
  let decoded = 0;
  while (dec.len() > 0 && dec.err() === null) {
    const ref = dec.getBE64();
    const mmapRef = dec.getBE64();
    if (dec.err() !== null) break;
    into.push({ ref, mmapRef });
    decoded++;
  }
  finishDecode(dec, 'mmapmarkers', `after ${decoded} markers`);
  return into;
}
