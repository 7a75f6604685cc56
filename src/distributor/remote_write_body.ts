import { BadDataError, UnsupportedMediaTypeError } from '../server/index.js';
import { ProtoDecodeError } from './proto_reader.js';
import { snappyDecode, snappyDecodedLength } from './snappy_block.js';
import type { WriteRequestData } from './write_request.js';
import type { SeriesLabelsCache } from './series_labels_cache.js';
import { decodeWriteRequest } from './write_request_decode.js';

/** Cortex's `-distributor.max-recv-msg-size` default: 100 MiB. */
export const DEFAULT_MAX_RECV_MSG_SIZE = 100 << 20;

export const REMOTE_WRITE_V1_MESSAGE = 'prometheus.WriteRequest';
export const REMOTE_WRITE_V2_MESSAGE = 'io.prometheus.write.v2.Request';

export interface RemoteWriteBodyLimits {
  /** Largest decompressed message accepted (`-distributor.max-recv-msg-size`). */
  maxRecvMsgSize: number;
  /** Largest compressed body accepted; Cortex applies max-recv-msg-size to it too. */
  maxCompressedSize?: number;
}

export interface RemoteWriteHeaders {
  contentType?: string | undefined;
  contentEncoding?: string | undefined;
}

/**
 * Checks the remote-write headers: 1.0 (`application/x-protobuf`, optionally with
 * `proto=prometheus.WriteRequest`, or no Content-Type at all) is accepted; remote write 2.0
 * and anything else is refused with 415, as Prometheus's receiver does for messages it does
 * not serve. The body must be snappy-compressed (no Content-Encoding, or `snappy`).
 */
export function checkRemoteWriteHeaders(headers: RemoteWriteHeaders): void {
  const encoding = headers.contentEncoding?.trim().toLowerCase() ?? '';
  if (encoding !== '' && encoding !== 'snappy') {
    throw new UnsupportedMediaTypeError(
      `unsupported Content-Encoding ${JSON.stringify(headers.contentEncoding)}: remote write bodies must be snappy-compressed`,
    );
  }
  const contentType = headers.contentType?.trim() ?? '';
  if (contentType === '') return;
  const [mediaType = '', ...params] = contentType.split(';');
  if (mediaType.trim().toLowerCase() !== 'application/x-protobuf') {
    throw new UnsupportedMediaTypeError(
      `unsupported Content-Type ${JSON.stringify(contentType)}: remote write expects application/x-protobuf`,
    );
  }
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'proto') continue;
    const message = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (message === REMOTE_WRITE_V1_MESSAGE) return;
    if (message === REMOTE_WRITE_V2_MESSAGE) {
      throw new UnsupportedMediaTypeError(
        `remote write 2.0 (proto=${REMOTE_WRITE_V2_MESSAGE}) is not supported yet; send remote write 1.0 (proto=${REMOTE_WRITE_V1_MESSAGE})`,
      );
    }
    throw new UnsupportedMediaTypeError(
      `${message} protobuf message is not accepted by this server; accepted [${REMOTE_WRITE_V1_MESSAGE}]`,
    );
  }
}

/**
 * Snappy block decompression with both size limits checked before anything is allocated:
 * the compressed size first, then the decompressed size announced in the snappy header.
 */
export function decompressRemoteWriteBody(
  body: Uint8Array,
  limits: RemoteWriteBodyLimits,
): Uint8Array {
  const maxCompressed = limits.maxCompressedSize ?? limits.maxRecvMsgSize;
  if (body.length > maxCompressed) {
    throw new BadDataError(`received message larger than max (${body.length} vs ${maxCompressed})`);
  }
  const decodedLen = snappyDecodedLength(body)?.length;
  if (decodedLen === undefined) throw new BadDataError('snappy: corrupt input');
  if (decodedLen > limits.maxRecvMsgSize) {
    throw new BadDataError(
      `decompressed message larger than max (${decodedLen} vs ${limits.maxRecvMsgSize}; compressed size ${body.length})`,
    );
  }
  try {
    return snappyDecode(body);
  } catch (err) {
    throw new BadDataError('snappy: corrupt input', { cause: err });
  }
}

/** Headers check, decompression and decoding of one remote-write 1.0 push body. */
export function decodeRemoteWriteBody(
  body: Uint8Array,
  headers: RemoteWriteHeaders,
  limits: RemoteWriteBodyLimits,
  labelsCache?: SeriesLabelsCache,
): WriteRequestData {
  checkRemoteWriteHeaders(headers);
  const raw = decompressRemoteWriteBody(body, limits);
  try {
    return decodeWriteRequest(raw, labelsCache);
  } catch (err) {
    if (err instanceof ProtoDecodeError) {
      throw new BadDataError(`failed to decode remote write request: ${err.message}`, {
        cause: err,
      });
    }
    throw err;
  }
}
