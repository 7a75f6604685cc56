// Series records: for each new series, its reference and its label set.
//
//   type byte (1) · { ref BE64 · label count uvarint · { name uvarint-str · value uvarint-str }* }*
import { DecBuf, EncBuf } from '../encoding/index.js';
import { Labels } from '../../model/index.js';
import { RecordDecodeError, checkRef, checkType, finishDecode } from './errors.js';
import { RecordType } from './types.js';

/** A series as the WAL records it: its head reference and labels. */
export interface RefSeries {
  readonly ref: number;
  readonly labels: Labels;
}

/** Writes the labels as a uvarint count and length-prefixed names and values, in label order. */
export function encodeLabels(buf: EncBuf, labels: Labels): void {
  const n = labels.length;
  buf.putUvarint(n);
  for (let i = 0; i < n; i++) {
    buf.putUvarintStr(labels.nameAt(i));
    buf.putUvarintStr(labels.valueAt(i));
  }
}

/**
 * Reads labels written by `encodeLabels`. Prometheus writes them sorted and reads them back
 * without sorting; we verify the order instead of trusting it, so a malformed record cannot
 * produce a label set that breaks lookups later. Returns undefined after a decode error
 * (left in `dec`).
 */
export function decodeLabels(dec: DecBuf, expected: string): Labels | undefined {
  const start = dec.position();
  const n = dec.getUvarint();
  // Each label takes at least two bytes, so a count beyond that is malformed: refuse it before
  // allocating anything for it.
  if (n * 2 > dec.len()) {
    if (dec.err() === null)
      throw new RecordDecodeError(
        expected,
        start,
        `label count ${n} exceeds the ${dec.len()} bytes left`,
      );
    return undefined;
  }
  const names = new Array<string>(n);
  const values = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    names[i] = dec.getUvarintStr();
    values[i] = dec.getUvarintStr();
  }
  if (dec.err() !== null) return undefined;
  try {
    return Labels.fromSorted(names, values);
  } catch (err) {
    throw new RecordDecodeError(
      expected,
      start,
      `bad label set: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * Encodes a series record. With `buf`, the result is a view into it, valid until the
 * buffer's next use; without, a fresh buffer is used.
 */
export function encodeSeries(series: readonly RefSeries[], buf: EncBuf = new EncBuf()): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.Series);
  for (const s of series) {
    checkRef(s.ref, 'series ref');
    buf.putBE64(s.ref);
    encodeLabels(buf, s.labels);
  }
  return buf.get();
}

/** Decodes a series record, appending to `into` (returned). */
export function decodeSeries(record: Uint8Array, into: RefSeries[] = []): RefSeries[] {
  checkType(record, RecordType.Series);
  const dec = new DecBuf(record);
  dec.skip(1);
  let decoded = 0;
  while (dec.len() > 0 && dec.err() === null) {
    const ref = dec.getBE64();
    const labels = decodeLabels(dec, 'series');
    if (labels === undefined) break;
    into.push({ ref, labels });
    decoded++;
  }
  finishDecode(dec, 'series', `after ${decoded} series`);
  return into;
}
