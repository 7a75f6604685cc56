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
  const attachments: Uint8Array[] = [];
  let attached = 0;
  const envelope = encoder.encode(
    // The holder's own value: a Buffer would already have gone through its toJSON.
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, json: unknown) {
      const v = this[key];
      if (!(v instanceof Uint8Array)) return json;
      attachments.push(v);
      const ref = { $bytes: [attached, v.byteLength] };
      attached += v.byteLength;
      return ref;
    }),
  );
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
  return JSON.parse(text, (_key, v: unknown) => {
    const ref = attachmentRef(v);
    if (ref === undefined) return v;
    const [offset, length] = ref;
    if (offset + length > attachments.byteLength) {
      throw new FrameError(
        `frame attachment [${offset}, ${offset + length}) overruns its ${attachments.byteLength} bytes`,
      );
    }
    return attachments.subarray(offset, offset + length);
  }) as T;
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
