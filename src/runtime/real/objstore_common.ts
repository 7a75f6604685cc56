/**
 * What the S3, GCS and Azure clients share: turning an SDK failure into the runtime's errors
 * (ObjectNotFoundError stays the caller's business; everything else becomes an
 * ObjectStoreError that names the store and says whether a retry may help), and reading a
 * response stream into one buffer while honouring the caller's abort signal.
 */
import type { Readable } from 'node:stream';
import { ObjectStoreError } from '../bucket.js';
import { AbortError } from '../clock.js';

/**
 * Store error codes that mean "try again later" (minio-go's retryable S3 codes, Azure's
 * ServerBusy/OperationTimedOut, GCS's rateLimitExceeded), and the network failures of a
 * request that may well succeed on a fresh connection.
 */
const RETRYABLE_CODES = new Set([
  'SlowDown',
  'SlowDownRead',
  'SlowDownWrite',
  'Throttling',
  'ThrottlingException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestTimeout',
  'InternalError',
  'ServiceUnavailable',
  'XMinioServerNotInitialized',
  'ServerBusy',
  'OperationTimedOut',
  'rateLimitExceeded',
  'backendError',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ERR_STREAM_PREMATURE_CLOSE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** 408 request timeout, 429 too many requests, 499 client closed, and every server error. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status === 499 || status >= 500;
}

/** The first string `code` on the error or its cause chain (SDKs wrap Node's socket errors). */
export function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function errorMessage(err: unknown): string {
  if (err instanceof AggregateError && err.errors.length > 0) {
    // Node's connect failures across several addresses arrive as an AggregateError with an
    // empty message; the first inner error says what happened.
    return err.message || errorMessage(err.errors[0]);
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * Wraps an SDK failure of `op` on `object` as an ObjectStoreError naming `store`, or as an
 * AbortError when the caller's signal aborted the call.
 */
export function storeError(
  store: string,
  op: string,
  object: string,
  err: unknown,
  details: {
    status?: number | undefined;
    code?: string | undefined;
    signal?: AbortSignal | undefined;
  } = {},
): Error {
  if (details.signal?.aborted) {
    return new AbortError(`${op} ${JSON.stringify(object)} on ${store}: aborted`);
  }
  if (err instanceof ObjectStoreError) return err;
  const code = details.code ?? errorCode(err);
  const status = details.status;
  const retryable =
    (status !== undefined && isRetryableStatus(status)) ||
    (code !== undefined && RETRYABLE_CODES.has(code));
  const what = [status, code].filter((v) => v !== undefined).join(' ');
  // Answers without a body (HEAD) leave SDK errors with an empty message.
  const reason = errorMessage(err) || 'no error message';
  return new ObjectStoreError(
    `${op} ${JSON.stringify(object)} on ${store} failed${what === '' ? '' : ` (${what})`}: ${reason}`,
    {
      retryable,
      ...(status === undefined ? {} : { status }),
      ...(code === undefined ? {} : { code }),
      cause: err,
    },
  );
}

/** Reads a whole response body; aborting `signal` destroys the stream (and its request). */
export async function readAll(
  stream: Readable | NodeJS.ReadableStream,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const readable = stream as Readable;
  const onAbort = (): void => {
    readable.destroy(new AbortError());
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (signal?.aborted) onAbort();
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of readable) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      chunks.push(buf);
      total += buf.length;
    }
    const out = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** `Buffer` view of `data` without a copy (SDKs want Buffers; the caller's bytes are sent as is). */
export function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The pieces as Buffer views (no copy): SDK stream consumers (Azure's block buffering) call
 * Buffer methods on what a Readable yields, and sources yield plain Uint8Arrays.
 */
export async function* asBuffers(pieces: AsyncIterable<Uint8Array>): AsyncIterable<Buffer> {
  for await (const piece of pieces) yield asBuffer(piece);
}
