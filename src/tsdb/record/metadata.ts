// Metadata records: a series' metric type, unit and help text.
//
//   type byte (6) · { ref uvarint · metric type byte · field count uvarint
//                     · { field name uvarint-str · field value uvarint-str }* }*
//
// Prometheus writes exactly two fields, UNIT then HELP, and skips fields it does not know
// when reading (room for future fields); so do we.
import { DecBuf, EncBuf } from '../encoding/index.js';
import { checkRef, checkType, finishDecode } from './errors.js';
import { RecordType } from './types.js';

const UNIT_FIELD = 'UNIT';
const HELP_FIELD = 'HELP';

export interface RefMetadata {
  readonly ref: number;
  /** A `MetricType` byte; other values are kept as they are. */
  readonly type: number;
  readonly unit: string;
  readonly help: string;
}

export function encodeMetadata(
  metadata: readonly RefMetadata[],
  buf: EncBuf = new EncBuf(),
): Uint8Array {
  buf.reset();
  buf.putByte(RecordType.Metadata);
  for (const m of metadata) {
    checkRef(m.ref, 'metadata ref');
    if (!Number.isInteger(m.type) || m.type < 0 || m.type > 255)
      throw new RangeError(`metadata metric type must be a byte, got ${m.type}`);
    buf.putUvarint(m.ref);
    buf.putByte(m.type);
    buf.putUvarint(2);
    buf.putUvarintStr(UNIT_FIELD);
    buf.putUvarintStr(m.unit);
    buf.putUvarintStr(HELP_FIELD);
    buf.putUvarintStr(m.help);
  }
  return buf.get();
}

export function decodeMetadata(record: Uint8Array, into: RefMetadata[] = []): RefMetadata[] {
  checkType(record, RecordType.Metadata);
  const dec = new DecBuf(record);
  dec.skip(1);
  let decoded = 0;
  while (dec.len() > 0 && dec.err() === null) {
    const ref = dec.getUvarint();
    const type = dec.getByte();
    const fields = dec.getUvarint();
    let unit = '';
    let help = '';
    for (let i = 0; i < fields && dec.err() === null; i++) {
      const name = dec.getUvarintStr();
      const value = dec.getUvarintStr();
      if (name === UNIT_FIELD) unit = value;
      else if (name === HELP_FIELD) help = value;
    }
    if (dec.err() !== null) break;
    into.push({ ref, type, unit, help });
    decoded++;
  }
  finishDecode(dec, 'metadata', `after ${decoded} metadata entries`);
  return into;
}
