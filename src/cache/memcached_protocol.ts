/**
 * The memcached binary protocol, as much of it as the cache client speaks: GetK/GetKQ
 * (a pipelined multi-get ended by Noop), Set with flags and expiration extras, Delete and
 * Noop. Frames are a 24-byte header (big-endian) followed by extras, key and value.
 * `ResponseParser` turns a byte stream cut at arbitrary points into whole response frames
 * and rejects anything that is not one (bad magic, absurd lengths).
 */
export const REQUEST_MAGIC = 0x80;
export const RESPONSE_MAGIC = 0x81;
export const HEADER_BYTES = 24;

export const Opcode = {
  Get: 0x00,
  Set: 0x01,
  Delete: 0x04,
  Noop: 0x0a,
  GetQ: 0x09,
  GetK: 0x0c,
  GetKQ: 0x0d,
} as const;

export const Status = {
  NoError: 0x0000,
  KeyNotFound: 0x0001,
  KeyExists: 0x0002,
  ValueTooLarge: 0x0003,
  InvalidArguments: 0x0004,
  ItemNotStored: 0x0005,
  UnknownCommand: 0x0081,
  OutOfMemory: 0x0082,
} as const;

/** Memcached treats expirations above 30 days as absolute Unix times. */
export const MAX_RELATIVE_EXPIRATION_S = 30 * 24 * 3600;

/** Longest key memcached accepts. */
export const MAX_KEY_BYTES = 250;

export interface Request {
  opcode: number;
  opaque: number;
  key?: Uint8Array;
  extras?: Uint8Array;
  value?: Uint8Array;
}

export interface Response {
  opcode: number;
  status: number;
  opaque: number;
  cas: bigint;
  extras: Uint8Array;
  key: Uint8Array;
  value: Uint8Array;
}

/** Thrown by the parser on bytes that cannot be a response; the connection must be dropped. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}

export function encodeRequest(req: Request): Uint8Array {
  const extras = req.extras ?? new Uint8Array(0);
  const key = req.key ?? new Uint8Array(0);
  const value = req.value ?? new Uint8Array(0);
  const body = extras.length + key.length + value.length;
  const out = new Uint8Array(HEADER_BYTES + body);
  const v = new DataView(out.buffer);
  v.setUint8(0, REQUEST_MAGIC);
  v.setUint8(1, req.opcode);
  v.setUint16(2, key.length);
  v.setUint8(4, extras.length);
  // Byte 5 data type (raw) and bytes 6-7 vbucket stay 0; so does the CAS (16-23).
  v.setUint32(8, body);
  v.setUint32(12, req.opaque >>> 0);
  out.set(extras, HEADER_BYTES);
  out.set(key, HEADER_BYTES + extras.length);
  out.set(value, HEADER_BYTES + extras.length + key.length);
  return out;
}

/** A GetKQ per key (opaque = its index) and a closing Noop (opaque = keys.length), in one buffer. */
export function encodeGetMulti(keys: readonly Uint8Array[], opaqueBase = 0): Uint8Array {
  const frames = keys.map((key, i) =>
    encodeRequest({ opcode: Opcode.GetKQ, opaque: opaqueBase + i, key }),
  );
  frames.push(encodeRequest({ opcode: Opcode.Noop, opaque: opaqueBase + keys.length }));
  return concat(frames);
}

/** Set with 8 bytes of extras: flags (4) and expiration in seconds (4; 0 = never). */
export function encodeSet(
  key: Uint8Array,
  value: Uint8Array,
  opts: { flags?: number; expiration: number; opaque: number },
): Uint8Array {
  const extras = new Uint8Array(8);
  const v = new DataView(extras.buffer);
  v.setUint32(0, (opts.flags ?? 0) >>> 0);
  v.setUint32(4, opts.expiration >>> 0);
  return encodeRequest({ opcode: Opcode.Set, opaque: opts.opaque, key, extras, value });
}

export function encodeDelete(key: Uint8Array, opaque: number): Uint8Array {
  return encodeRequest({ opcode: Opcode.Delete, opaque, key });
}

/**
 * The expiration field for a TTL in milliseconds: whole seconds rounded up, relative up to
 * 30 days, absolute (from `nowMs`) beyond, 0 (never expire) for a TTL of 0 or less.
 */
export function expirationFor(ttlMs: number, nowMs: number): number {
  if (!(ttlMs > 0)) return 0;
  const seconds = Math.ceil(ttlMs / 1000);
  if (seconds <= MAX_RELATIVE_EXPIRATION_S) return seconds;
  return Math.ceil((nowMs + ttlMs) / 1000);
}

/**
 * Reassembles response frames from chunks. `push` returns the frames completed by a chunk
 * and throws ProtocolError on a frame that is not a response or is longer than
 * `maxBodyBytes` (a garbage length must not make the client buffer gigabytes).
 */
export class ResponseParser {
  private buf: Uint8Array = new Uint8Array(0);

  constructor(private readonly maxBodyBytes: number) {}

  /** Bytes received and not yet part of a whole frame. */
  get pendingBytes(): number {
    return this.buf.length;
  }

  push(chunk: Uint8Array): Response[] {
    this.buf = this.buf.length === 0 ? chunk : concat([this.buf, chunk]);
    const frames: Response[] = [];
    let at = 0;
    while (this.buf.length - at >= HEADER_BYTES) {
      const v = new DataView(this.buf.buffer, this.buf.byteOffset + at, HEADER_BYTES);
      const magic = v.getUint8(0);
      if (magic !== RESPONSE_MAGIC) {
        throw new ProtocolError(`bad magic 0x${magic.toString(16)} in response`);
      }
      const keyLen = v.getUint16(2);
      const extrasLen = v.getUint8(4);
      const bodyLen = v.getUint32(8);
      if (bodyLen > this.maxBodyBytes) {
        throw new ProtocolError(`response body of ${bodyLen} bytes exceeds ${this.maxBodyBytes}`);
      }
      if (keyLen + extrasLen > bodyLen) {
        throw new ProtocolError(
          `response key (${keyLen}) and extras (${extrasLen}) exceed its body (${bodyLen})`,
        );
      }
      if (this.buf.length - at < HEADER_BYTES + bodyLen) break;
      const body = at + HEADER_BYTES;
      // Copies: the frame outlives the receive buffer, and callers hand values out.
      frames.push({
        opcode: v.getUint8(1),
        status: v.getUint16(6),
        opaque: v.getUint32(12),
        cas: v.getBigUint64(16),
        extras: this.buf.slice(body, body + extrasLen),
        key: this.buf.slice(body + extrasLen, body + extrasLen + keyLen),
        value: this.buf.slice(body + extrasLen + keyLen, body + bodyLen),
      });
      at = body + bodyLen;
    }
    this.buf = at === 0 ? this.buf : this.buf.slice(at);
    return frames;
  }
}

/** A response frame as a server would send it (the fake server and tests use this). */
export function encodeResponse(res: Partial<Response> & { opcode: number }): Uint8Array {
  const extras = res.extras ?? new Uint8Array(0);
  const key = res.key ?? new Uint8Array(0);
  const value = res.value ?? new Uint8Array(0);
  const out = new Uint8Array(HEADER_BYTES + extras.length + key.length + value.length);
  const v = new DataView(out.buffer);
  v.setUint8(0, RESPONSE_MAGIC);
  v.setUint8(1, res.opcode);
  v.setUint16(2, key.length);
  v.setUint8(4, extras.length);
  v.setUint16(6, res.status ?? Status.NoError);
  v.setUint32(8, extras.length + key.length + value.length);
  v.setUint32(12, (res.opaque ?? 0) >>> 0);
  v.setBigUint64(16, res.cas ?? 0n);
  out.set(extras, HEADER_BYTES);
  out.set(key, HEADER_BYTES + extras.length);
  out.set(value, HEADER_BYTES + extras.length + key.length);
  return out;
}

/** As gomemcache: at most 250 bytes, no spaces or control characters. */
export function legalKey(key: string): boolean {
  if (key.length === 0 || key.length > MAX_KEY_BYTES) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c <= 0x20 || c === 0x7f) return false;
  }
  return keyEncoder.encode(key).length <= MAX_KEY_BYTES;
}

const keyEncoder = new TextEncoder();

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
