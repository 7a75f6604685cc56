/**
 * Constants of Prometheus's WAL on-disk format (tsdb/wlog): segments are files named by an
 * 8-digit zero-padded index; a segment is a sequence of 32 KiB pages; a page holds record
 * fragments, each with a 7-byte header:
 *
 *   byte 0     [3 bits unused][1 bit zstd][1 bit snappy][3 bits fragment type]
 *   bytes 1-2  payload length, big endian
 *   bytes 3-6  CRC-32C (Castagnoli) of the payload, big endian
 *
 * A zero byte where a header would start means "the rest of this page is zero padding".
 */

export const PAGE_SIZE = 32 * 1024;
export const RECORD_HEADER_SIZE = 7;
/** Prometheus's default maximum segment size (128 MiB). */
export const DEFAULT_SEGMENT_SIZE = 128 * 1024 * 1024;
/** Largest payload one fragment can carry (a whole page minus its header). */
export const MAX_FRAGMENT_PAYLOAD = PAGE_SIZE - RECORD_HEADER_SIZE;

export const FRAGMENT_PAGE_TERM = 0;
export const FRAGMENT_FULL = 1;
export const FRAGMENT_FIRST = 2;
export const FRAGMENT_MIDDLE = 3;
export const FRAGMENT_LAST = 4;

export const SNAPPY_FLAG = 1 << 3;
export const ZSTD_FLAG = 1 << 4;
export const FRAGMENT_TYPE_MASK = SNAPPY_FLAG - 1;

const SEGMENT_NAME = /^\d+$/;

/** The file name of segment `index` (`00000000`, `00000001`, …). */
export function segmentName(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0)
    throw new RangeError(`WAL segment index must be a non-negative integer, got ${index}`);
  return String(index).padStart(8, '0');
}

/**
 * The segment index a file name stands for, or undefined for other files (checkpoints,
 * repair leftovers). Like Prometheus (strconv.Atoi), any all-digit name counts.
 */
export function parseSegmentName(name: string): number | undefined {
  if (!SEGMENT_NAME.test(name)) return undefined;
  const index = Number(name);
  return Number.isSafeInteger(index) ? index : undefined;
}

export function joinPath(dir: string, name: string): string {
  return dir.endsWith('/') ? `${dir}${name}` : `${dir}/${name}`;
}

export function fragmentTypeName(type: number): string {
  switch (type) {
    case FRAGMENT_PAGE_TERM:
      return 'zero';
    case FRAGMENT_FULL:
      return 'full';
    case FRAGMENT_FIRST:
      return 'first';
    case FRAGMENT_MIDDLE:
      return 'middle';
    case FRAGMENT_LAST:
      return 'last';
    default:
      return `<invalid ${type}>`;
  }
}
