import { compress } from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../server/index.js';
import {
  checkRemoteWriteHeaders,
  decodeRemoteWriteBody,
  decompressRemoteWriteBody,
} from './remote_write_body.js';
import { buildWriteRequest } from './write_request_build.js';
import { encodeWriteRequest } from './write_request_encode.js';

function thrown(f: () => unknown): HttpError {
  try {
    f();
  } catch (e) {
    if (e instanceof HttpError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

const req = buildWriteRequest({
  series: [
    {
      labels: [
        ['__name__', 'up'],
        ['job', 'x'],
      ],
      samples: [{ value: 1, timestamp: 1000 }],
    },
  ],
});
const raw = encodeWriteRequest(req);
const body = compress(raw);
const limits = { maxRecvMsgSize: 1 << 20 };

describe('remote write body', () => {
  it('decodes a snappy-compressed remote write 1.0 body', () => {
    const got = decodeRemoteWriteBody(
      body,
      { contentType: 'application/x-protobuf', contentEncoding: 'snappy' },
      limits,
    );
    expect(got.series[0]?.labels).toEqual(['__name__', 'up', 'job', 'x']);
    expect(Array.from(got.timestamps)).toEqual([1000]);
  });

  it('accepts missing headers and proto=prometheus.WriteRequest', () => {
    expect(() => checkRemoteWriteHeaders({})).not.toThrow();
    expect(() =>
      checkRemoteWriteHeaders({
        contentType: 'application/x-protobuf;proto=prometheus.WriteRequest',
      }),
    ).not.toThrow();
  });

  it('rejects remote write 2.0 with 415 and a clear message', () => {
    const err = thrown(() =>
      checkRemoteWriteHeaders({
        contentType: 'application/x-protobuf;proto=io.prometheus.write.v2.Request',
      }),
    );
    expect(err.status).toBe(415);
    expect(err.message).toBe(
      'remote write 2.0 (proto=io.prometheus.write.v2.Request) is not supported yet; send remote write 1.0 (proto=prometheus.WriteRequest)',
    );
  });

  it('rejects other content types and encodings with 415', () => {
    expect(thrown(() => checkRemoteWriteHeaders({ contentType: 'application/json' })).status).toBe(
      415,
    );
    expect(
      thrown(() =>
        checkRemoteWriteHeaders({ contentType: 'application/x-protobuf; proto=foo.Bar' }),
      ).message,
    ).toBe(
      'foo.Bar protobuf message is not accepted by this server; accepted [prometheus.WriteRequest]',
    );
    expect(thrown(() => checkRemoteWriteHeaders({ contentEncoding: 'gzip' })).status).toBe(415);
  });

  it('limits the compressed size, naming both sizes', () => {
    const err = thrown(() =>
      decompressRemoteWriteBody(body, { maxRecvMsgSize: 1000, maxCompressedSize: 5 }),
    );
    expect(err.status).toBe(400);
    expect(err.message).toBe(`received message larger than max (${body.length} vs 5)`);
  });

  it('limits the decompressed size before decompressing, naming both sizes', () => {
    const big = compress(new Uint8Array(10_000));
    const err = thrown(() => decompressRemoteWriteBody(big, { maxRecvMsgSize: 9_999 }));
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      `decompressed message larger than max (10000 vs 9999; compressed size ${big.length})`,
    );
  });

  it('answers 400 for bad snappy and for a malformed protobuf', () => {
    expect(
      thrown(() =>
        decompressRemoteWriteBody(Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), limits),
      ).message,
    ).toBe('snappy: corrupt input');
    expect(thrown(() => decompressRemoteWriteBody(Uint8Array.of(5, 0x00, 1), limits)).message).toBe(
      'snappy: corrupt input',
    );
    const garbage = compress(Uint8Array.of(0x0a, 0x7f, 0x01));
    const err = thrown(() => decodeRemoteWriteBody(garbage, {}, limits));
    expect(err.status).toBe(400);
    expect(err.message).toBe(
      'failed to decode remote write request: proto: length 127 runs past the end of its message at offset 1',
    );
  });
});
