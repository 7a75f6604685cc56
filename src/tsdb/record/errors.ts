import { recordTypeName } from './types.js';

/**
 * A WAL record that cannot be decoded: wrong type byte, truncated or malformed content, or
 * trailing bytes. `offset` is the byte position within the record where decoding failed.
 */
export class RecordDecodeError extends Error {
  override readonly name = 'RecordDecodeError';
  constructor(
    /** The record type the decoder expected (Prometheus's name, e.g. `samples`). */
    readonly expected: string,
    readonly offset: number,
    detail: string,
  ) {
    super(`decode ${expected} record: ${detail}`);
  }
}

/** Throws unless the record starts with `type`. */
export function checkType(record: Uint8Array, type: number): void {
  const first = record[0];
  if (first !== type) {
    throw new RecordDecodeError(
      recordTypeName(type),
      0,
      first === undefined
        ? 'empty record'
        : `invalid record type ${first} (${recordTypeName(first)}), expected ${type}`,
    );
  }
}

/** Minimal view of DecBuf's sticky error, so this file does not depend on its class. */
interface StickyDecoder {
  err(): { message: string; offset: number } | null;
  len(): number;
  position(): number;
}

/**
 * Turns the decoder's sticky error, or bytes left over after the last entry, into a
 * RecordDecodeError. `decoded` says how far decoding got (e.g. "after 12 samples").
 */
export function finishDecode(dec: StickyDecoder, expected: string, decoded: string): void {
  const err = dec.err();
  if (err !== null) throw new RecordDecodeError(expected, err.offset, `${err.message} ${decoded}`);
  if (dec.len() > 0)
    throw new RecordDecodeError(
      expected,
      dec.position(),
      `unexpected ${dec.len()} bytes left in entry ${decoded}`,
    );
}

/** Refs are uint64 in Prometheus; here they must be non-negative safe integers. */
export function checkRef(ref: number, what: string): void {
  if (!Number.isSafeInteger(ref) || ref < 0)
    throw new RangeError(`${what} must be a non-negative safe integer, got ${ref}`);
}
