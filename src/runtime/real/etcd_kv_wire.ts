/**
 * The JSON shapes of etcd's v3 gRPC gateway (etcd 3.4, paths `/v3/...`): bytes are base64,
 * int64 fields are decimal strings, and fields at their zero value are omitted (an empty
 * value, `succeeded: false`, a PUT event's `type`).
 */

export interface EtcdKeyValue {
  key: string;
  create_revision?: string;
  mod_revision?: string;
  version?: string;
  value?: string;
}

export interface EtcdResponseHeader {
  revision?: string;
}

export interface EtcdRangeResponse {
  header?: EtcdResponseHeader;
  kvs?: EtcdKeyValue[];
}

export interface EtcdTxnResponse {
  header?: EtcdResponseHeader;
  succeeded?: boolean;
}

export interface EtcdEvent {
  type?: 'PUT' | 'DELETE';
  kv?: EtcdKeyValue;
}

export interface EtcdWatchResult {
  header?: EtcdResponseHeader;
  created?: boolean;
  canceled?: boolean;
  cancel_reason?: string;
  compact_revision?: string;
  events?: EtcdEvent[];
}

const utf8 = new TextEncoder();

export function toBase64(bytes: Uint8Array | string): string {
  const b = typeof bytes === 'string' ? utf8.encode(bytes) : bytes;
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');
}

/** A fresh Uint8Array (not a Buffer view of a shared pool) the caller may keep or mutate. */
export function fromBase64(b64: string | undefined): Uint8Array {
  return new Uint8Array(Buffer.from(b64 ?? '', 'base64'));
}

export function keyFromBase64(b64: string): string {
  return Buffer.from(b64, 'base64').toString('utf8');
}

export function revision(s: string | undefined): number {
  return s === undefined ? 0 : Number(s);
}

/**
 * The `key`/`range_end` pair covering every key that starts with `prefix`: etcd's range end
 * is the prefix with its last byte incremented (trailing 0xff bytes dropped first); "\0"
 * means "to the end", and an empty key is spelled "\0" as etcd rejects empty keys.
 */
export function prefixRange(prefix: string): { key: string; range_end: string } {
  const bytes = utf8.encode(prefix);
  if (bytes.length === 0)
    return { key: toBase64(new Uint8Array([0])), range_end: toBase64(new Uint8Array([0])) };
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0xff) end--;
  if (end === 0) return { key: toBase64(bytes), range_end: toBase64(new Uint8Array([0])) };
  const rangeEnd = bytes.slice(0, end);
  rangeEnd[end - 1]! += 1;
  return { key: toBase64(bytes), range_end: toBase64(rangeEnd) };
}
