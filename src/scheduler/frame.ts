/**
 * The wire form of the frontend/scheduler/querier messages: a JSON envelope whose byte
 * arrays travel after it as raw bytes (the role protobuf `bytes` fields play in Cortex's
 * httpgrpc). A query's answer is its HTTP body, often megabytes of JSON; written as base64
 * inside the envelope it was encoded, escaped, parsed and decoded again on each hop.
 *
 * Layout: a 4-byte big-endian length of the envelope, the envelope (UTF-8 JSON), then the
 * attachments back to back. In the envelope each Uint8Array is replaced by
 * `{"$bytes":[offset,length]}`, its place among the attachments.
 */
/** A malformed frame: what is wrong with it. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export const FRAME_CONTENT_TYPE = 'application/vnd.strata.frame';

const HEADER_BYTES = 4;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `value` as a frame: its Uint8Arrays (at any depth) become attachments. */
export function frameBody(value: unknown): { body: Uint8Array; contentType: string } {
  const found: Attachments = { list: [], bytes: 0 };
  // Place holders are put in by a walk of our own, not a JSON.stringify replacer: a
  // replacer (and a reviver in parseFrame) sends every key of every message through a
  // call, a tenth of a small query's time on the event loop.
  const envelope = encoder.encode(JSON.stringify(withPlaceHolders(value, found)));
  const attachments = found.list;
  const attached = found.bytes;
  const body = new Uint8Array(HEADER_BYTES + envelope.byteLength + attached);
  new DataView(body.buffer).setUint32(0, envelope.byteLength);
  body.set(envelope, HEADER_BYTES);
  let at = HEADER_BYTES + envelope.byteLength;
  for (const a of attachments) {
    body.set(a, at);
    at += a.byteLength;
  }
  return { body, contentType: FRAME_CONTENT_TYPE };
}

interface Attachments {
  readonly list: Uint8Array[];
  bytes: number;
}

/**
 * `v` with each Uint8Array replaced by its place holder (appended to `found`), copied
 * only where something was replaced. What JSON.stringify would write of the rest is
 * unchanged: a Uint8Array goes as its bytes even when it has a toJSON (a Buffer), another
 * object with a toJSON is walked as what that gives.
 */
function withPlaceHolders(v: unknown, found: Attachments): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof Uint8Array) {
    const ref = { $bytes: [found.bytes, v.byteLength] };
    found.list.push(v);
    found.bytes += v.byteLength;
    return ref;
  }
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return withPlaceHolders(toJSON.call(v), found);
  if (Array.isArray(v)) {
    let out: unknown[] = v;
    for (let i = 0; i < v.length; i++) {
      const was: unknown = v[i];
      const now = withPlaceHolders(was, found);
      if (now === was) continue;
      if (out === v) out = v.slice();
      out[i] = now;
    }
    return out;
  }
  let out: Record<string, unknown> | undefined;
  const obj = v as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const was = obj[key];
    const now = withPlaceHolders(was, found);
    if (now === was) continue;
    out ??= { ...obj };
    out[key] = now; // an own key already (even `__proto__`): this sets it, not a prototype
  }
  return out ?? v;
}

/**
 * The value `frameBody` framed; its byte arrays are views into `body` (not copies). Throws
 * a FrameError naming what is wrong with a malformed frame.
 */
export function parseFrame<T>(body: Uint8Array): T {
  if (body.byteLength < HEADER_BYTES) {
    throw new FrameError(`frame of ${body.byteLength} bytes has no header`);
  }
  const envelopeBytes = new DataView(body.buffer, body.byteOffset).getUint32(0);
  const start = HEADER_BYTES + envelopeBytes;
  if (start > body.byteLength) {
    throw new FrameError(
      `frame envelope of ${envelopeBytes} bytes overruns the ${body.byteLength}-byte frame`,
    );
  }
  const attachments = body.subarray(start);
  const text = decoder.decode(body.subarray(HEADER_BYTES, start));
  const value: unknown = JSON.parse(text);
  // Without a place holder's key in the text (plainly, or spelt with escapes) there is
  // nothing to put back.
  const mayHold = text.includes('$bytes') || text.includes('\\');
  return (mayHold ? withAttachments(value, attachments) : value) as T;
}

/** `v` with each place holder replaced by its view into `attachments`, in place. */
function withAttachments(v: unknown, attachments: Uint8Array): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const ref = attachmentRef(v);
  if (ref !== undefined) {
    const [offset, length] = ref;
    if (offset + length > attachments.byteLength) {
      throw new FrameError(
        `frame attachment [${offset}, ${offset + length}) overruns its ${attachments.byteLength} bytes`,
      );
    }
    return attachments.subarray(offset, offset + length);
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = withAttachments(v[i], attachments);
    return v;
  }
  const obj = v as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    const was = obj[key];
    const now = withAttachments(was, attachments);
    if (now !== was) obj[key] = now;
  }
  return v;
}

/** `[offset, length]` when `v` is an attachment's place holder. */
function attachmentRef(v: unknown): [number, number] | undefined {
  if (typeof v !== 'object' || v === null || !('$bytes' in v)) return undefined;
  const ref = v.$bytes;
  if (
    !Array.isArray(ref) ||
    ref.length !== 2 ||
    !ref.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
  ) {
    throw new FrameError(`malformed frame attachment ${JSON.stringify(ref)}`);
  }
  return ref as [number, number];
}
