import type { IncomingMessage } from 'node:http';

/** Thrown when a body exceeds the configured limit; names the limit. */
export class BodyTooLargeError extends Error {
  override readonly name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`message body larger than the limit of ${limitBytes} bytes`);
  }
}

/**
 * Reads a whole request or response body, refusing to buffer more than `maxBytes`. An
 * oversized body is still read to its end (and dropped): closing a socket with unread data
 * makes TCP reset the connection, and the peer would lose our error response with it.
 */
export async function readBody(message: IncomingMessage, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(message.headers['content-length']);
  let tooLarge = Number.isFinite(declared) && declared > maxBytes;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of message as AsyncIterable<Buffer>) {
    if (tooLarge) continue;
    total += chunk.length;
    if (total > maxBytes) {
      tooLarge = true;
      chunks.length = 0;
      continue;
    }
    chunks.push(chunk);
  }
  if (tooLarge) throw new BodyTooLargeError(maxBytes);
  const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
