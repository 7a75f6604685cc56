import type { FileSystem } from '../../runtime/index.js';
import { readSegment } from './segment_reader.js';
import { listSegments } from './segments.js';

export interface ReadRecordsOptions {
  /** First segment to read (inclusive); from the oldest when absent. */
  fromSegment?: number;
  /** Last segment to read (inclusive); to the newest when absent. */
  toSegment?: number;
}

export interface ReadRecordsDeps {
  fs: FileSystem;
}

/**
 * Yields every record of the WAL in `dir`, decompressed, in log order across segments.
 * Throws a `CorruptionError` (segment, offset) at the first unreadable byte — a bad CRC, an
 * impossible fragment sequence, or a segment that ends inside a record (a torn write);
 * everything yielded before it is intact. `WAL.replay` turns that into a repair.
 */
export async function* readRecords(
  dir: string,
  opts: ReadRecordsOptions,
  deps: ReadRecordsDeps,
): AsyncGenerator<Uint8Array> {
  for (const ref of await listSegments(deps.fs, dir)) {
    if (opts.fromSegment !== undefined && ref.index < opts.fromSegment) continue;
    if (opts.toSegment !== undefined && ref.index > opts.toSegment) break;
    for await (const { record } of readSegment(deps.fs, dir, ref.index)) yield record;
  }
}
