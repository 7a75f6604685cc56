import { compress, uncompress } from 'snappyjs';

/**
 * Snappy block compression of whole WAL records (Go's snappy.Encode/Decode format, which
 * Prometheus uses for `wal_compression_enabled`).
 */
export function snappyEncode(record: Uint8Array): Uint8Array {
  return compress(record);
}

/** Throws an Error naming the problem when `data` is not a valid Snappy block. */
export function snappyDecode(data: Uint8Array): Uint8Array {
  return uncompress(data);
}
