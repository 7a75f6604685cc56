import { joinPath, segmentName } from './format.js';

/** What made a segment unreadable. */
export type CorruptionKind =
  /** A fragment's payload does not match its CRC. */
  | 'checksum'
  /** A fragment type that cannot appear here (unknown, or out of first/middle/last order). */
  | 'fragment-type'
  /** A length larger than a page allows, or non-zero bytes inside page padding. */
  | 'malformed'
  /** The segment ends inside a fragment or between the fragments of a record (torn write). */
  | 'truncated'
  /** A compressed record that does not decompress. */
  | 'decompression';

/**
 * A WAL segment that cannot be read past `offset`. Everything before `recordStart` (the
 * start of the record being read when the problem was found) is intact, which is where
 * `WAL.repair` cuts the segment.
 */
export class CorruptionError extends Error {
  override readonly name = 'CorruptionError';

  constructor(
    readonly dir: string,
    readonly segment: number,
    /** Byte offset in the segment where the bad data was detected. */
    readonly offset: number,
    /** Byte offset in the segment of the record that could not be read. */
    readonly recordStart: number,
    readonly kind: CorruptionKind,
    readonly detail: string,
  ) {
    super(
      `WAL corruption in segment ${joinPath(dir, segmentName(segment))} at offset ${offset} ` +
        `(record starting at ${recordStart}): ${kind}: ${detail}`,
    );
  }
}
