// Exemplars records, laid out like samples records plus each exemplar's labels:
//
//   type byte (4) · first ref BE64 · first timestamp BE64
//   · { ref − first ref varint · timestamp − first timestamp varint · value bits BE64 · labels }*
import { DecBuf, EncBuf } from '../encoding/index.js';
import type { Labels } from '../../model/index.js';
import { RecordDecodeError, checkRef, checkType, finishDecode } from './errors.js';
import { decodeLabels, encodeLabels } from './series.js';
import { RecordType } from './types.js';

export interface RefExemplar {
  readonly ref: number;
  readonly t: number;
  /**
   * The value as a number. Exemplars are rare and never carry the stale marker, so unlike
   * samples they are not kept as raw bits; an exotic NaN payload may not survive.
   */
  readonly value: number;
  readonly labels: Labels;
}

export function encodeExemplars(
  exemplars: readonly RefExemplar[],
  buf: EncBuf = new EncBuf(),
): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.Exemplars);
  const first = exemplars[0];
  if (first === undefined) return buf.get();
  checkRef(first.ref, 'exemplar ref');
  buf.putBE64(first.ref);
  buf.putBE64(first.t);
  const view = new DataView(new ArrayBuffer(8));
  for (const e of exemplars) {
    checkRef(e.ref, 'exemplar ref');
    buf.putVarint(e.ref - first.ref);
    buf.putVarint(e.t - first.t);
    view.setFloat64(0, e.value);
    buf.putBE32(view.getUint32(0));
    buf.putBE32(view.getUint32(4));
    encodeLabels(buf, e.labels);
  }
  return buf.get();
}

export function decodeExemplars(record: Uint8Array, into: RefExemplar[] = []): RefExemplar[] {
  checkType(record, RecordType.Exemplars);
  const dec = new DecBuf(record);
  dec.skip(1);
  if (dec.len() === 0) return into;
  const firstRef = dec.getBE64();
  const firstT = dec.getBE64Int();
  const view = new DataView(new ArrayBuffer(8));
  let decoded = 0;
  while (dec.len() > 0 && dec.err() === null) {
    const ref = firstRef + dec.getVarint();
    const t = firstT + dec.getVarint();
    view.setUint32(0, dec.getBE32());
    view.setUint32(4, dec.getBE32());
    const labels = decodeLabels(dec, 'exemplars');
    if (labels === undefined || dec.err() !== null) break;
    if (ref < 0 || !Number.isSafeInteger(ref) || !Number.isSafeInteger(t))
      throw new RecordDecodeError(
        'exemplars',
        dec.position(),
        `exemplar ${decoded} has ref ${ref} and timestamp ${t} (the ref must be a non-negative safe integer, the timestamp a safe integer)`,
      );
    into.push({ ref, t, value: view.getFloat64(0), labels });
    decoded++;
  }
  finishDecode(dec, 'exemplars', `after ${decoded} exemplars`);
  return into;
}
