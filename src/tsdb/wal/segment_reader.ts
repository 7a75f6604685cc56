import type { FileHandle, FileSystem } from '../../runtime/index.js';
import { crc32c } from '../encoding/index.js';
import { snappyDecode } from './compression.js';
import { CorruptionError, type CorruptionKind } from './corruption.js';
import {
  FRAGMENT_FIRST,
  FRAGMENT_FULL,
  FRAGMENT_LAST,
  FRAGMENT_MIDDLE,
  FRAGMENT_PAGE_TERM,
  FRAGMENT_TYPE_MASK,
  MAX_FRAGMENT_PAYLOAD,
  PAGE_SIZE,
  RECORD_HEADER_SIZE,
  SNAPPY_FLAG,
  ZSTD_FLAG,
  fragmentTypeName,
  joinPath,
  segmentName,
} from './format.js';

/** One decoded record and where its bytes lie in the segment. */
export interface SegmentRecord {
  /** The record as logged (decompressed). Owned by the caller. */
  record: Uint8Array;
  /** Offset just after the previous record (or 0): where a repair would cut before this one. */
  start: number;
  /** Offset just after this record's last fragment. */
  end: number;
}

/** Bytes read from disk per call; a multiple of the page size. */
const READ_WINDOW = 16 * PAGE_SIZE;

/** A sliding window over a segment file, so parsing never needs the whole file in memory. */
class SegmentWindow {
  private buf: Uint8Array = new Uint8Array(0);
  private start = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** Makes `[pos, pos + n)` (clipped to the file) addressable; returns its offset in `bytes`. */
  async at(pos: number, n: number): Promise<number> {
    const want = Math.min(n, this.size - pos);
    if (pos < this.start || pos + want > this.start + this.buf.length) {
      this.buf = await this.handle.read(pos, Math.max(READ_WINDOW, n));
      this.start = pos;
    }
    return pos - this.start;
  }

  get bytes(): Uint8Array {
    return this.buf;
  }
}

/**
 * Reads every record of one segment in order. Follows Prometheus's reader: zero bytes end a
 * page, fragments must come as full | first middle* last, every payload must match its CRC.
 * A segment may end anywhere between records (the active segment is not page aligned); it
 * may not end inside a fragment or between the fragments of one record.
 */
export async function* readSegment(
  fs: FileSystem,
  dir: string,
  index: number,
): AsyncGenerator<SegmentRecord> {
  const handle = await fs.open(joinPath(dir, segmentName(index)), 'r');
  try {
    const size = await handle.size();
    const win = new SegmentWindow(handle, size);
    let recordBuf: Uint8Array = new Uint8Array(PAGE_SIZE);
    let recordLen = 0;
    let fragments = 0;
    let recordFlags = 0;
    let recordStart = 0;
    let pos = 0;
    const fail = (kind: CorruptionKind, at: number, detail: string): CorruptionError =>
      new CorruptionError(dir, index, at, recordStart, kind, detail);

    while (pos < size) {
      const pageEnd = (Math.floor(pos / PAGE_SIZE) + 1) * PAGE_SIZE;
      let i = await win.at(pos, RECORD_HEADER_SIZE);
      let bytes = win.bytes;
      const head = bytes[i]!;
      const type = head & FRAGMENT_TYPE_MASK;

      if (type === FRAGMENT_PAGE_TERM) {
        // The rest of the page (or of the file, for a short segment) must be zeros.
        const padEnd = Math.min(pageEnd, size);
        i = await win.at(pos, padEnd - pos);
        bytes = win.bytes;
        for (let k = 1; k < padEnd - pos; k++) {
          if (bytes[i + k] !== 0)
            throw fail('malformed', pos + k, `non-zero byte ${bytes[i + k]} in page padding`);
        }
        pos = padEnd;
        continue;
      }

      if (pos + RECORD_HEADER_SIZE > size)
        throw fail('truncated', pos, `segment ends inside a fragment header (size ${size})`);
      const length = (bytes[i + 1]! << 8) | bytes[i + 2]!;
      const crc =
        ((bytes[i + 3]! << 24) | (bytes[i + 4]! << 16) | (bytes[i + 5]! << 8) | bytes[i + 6]!) >>>
        0;
      if (length > MAX_FRAGMENT_PAYLOAD)
        throw fail('malformed', pos, `fragment length ${length} exceeds ${MAX_FRAGMENT_PAYLOAD}`);
      const payloadStart = pos + RECORD_HEADER_SIZE;
      if (payloadStart + length > size)
        throw fail(
          'truncated',
          pos,
          `segment ends inside a ${length}-byte fragment payload (size ${size})`,
        );
      i = await win.at(pos, RECORD_HEADER_SIZE + length);
      bytes = win.bytes;
      const payload = bytes.subarray(i + RECORD_HEADER_SIZE, i + RECORD_HEADER_SIZE + length);
      const actual = crc32c(payload);
      if (actual !== crc)
        throw fail('checksum', pos, `fragment CRC32C is ${hex(actual)}, header says ${hex(crc)}`);

      const starts = type === FRAGMENT_FULL || type === FRAGMENT_FIRST;
      const continues = type === FRAGMENT_MIDDLE || type === FRAGMENT_LAST;
      if (!starts && !continues)
        throw fail('fragment-type', pos, `unknown fragment type ${type} (header byte ${head})`);
      if (starts !== (fragments === 0))
        throw fail(
          'fragment-type',
          pos,
          `unexpected ${fragmentTypeName(type)} fragment after ${fragments} fragment(s) of a record`,
        );
      const flags = head & (SNAPPY_FLAG | ZSTD_FLAG);
      if (fragments === 0) recordFlags = flags;
      else if (flags !== recordFlags)
        throw fail(
          'malformed',
          pos,
          `compression flags change within a record (header byte ${head})`,
        );

      if (recordLen + length > recordBuf.length) {
        const grown = new Uint8Array(Math.max(recordBuf.length * 2, recordLen + length));
        grown.set(recordBuf.subarray(0, recordLen));
        recordBuf = grown;
      }
      recordBuf.set(payload, recordLen);
      recordLen += length;
      fragments++;
      pos = payloadStart + length;

      if (type === FRAGMENT_FULL || type === FRAGMENT_LAST) {
        const record = decode(recordBuf.subarray(0, recordLen), recordFlags, fail, pos);
        yield { record, start: recordStart, end: pos };
        recordStart = pos;
        recordLen = 0;
        fragments = 0;
      }
    }
    if (fragments > 0)
      throw fail('truncated', pos, `segment ends after ${fragments} fragment(s) of a record`);
  } finally {
    await handle.close();
  }
}

function decode(
  data: Uint8Array,
  flags: number,
  fail: (kind: CorruptionKind, at: number, detail: string) => CorruptionError,
  end: number,
): Uint8Array {
  if (flags & ZSTD_FLAG) {
    // Not corruption: a Prometheus configured with zstd wrote it. Repairing would lose data.
    throw new Error(
      `WAL record ending at offset ${end} is zstd-compressed; only snappy is supported`,
    );
  }
  if (flags & SNAPPY_FLAG && data.length > 0) {
    try {
      return snappyDecode(data);
    } catch (err) {
      throw fail(
        'decompression',
        end,
        `snappy: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return data.slice();
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
