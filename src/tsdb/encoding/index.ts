/**
 * Byte-level codecs shared by every TSDB format (chunks, index, WAL, tombstones): Go-style
 * varints and big-endian integers over growable buffers, and CRC-32 Castagnoli. Pure
 * functions over typed arrays; this module must never do IO.
 */
export {
  DecBuf,
  DecodeError,
  EncBuf,
  putUvarintAt,
  putUvarintBigAt,
  putVarintAt,
  putVarintBigAt,
  uvarintSize,
} from './buffers.js';
export { Crc32c, crc32c } from './crc32c.js';
