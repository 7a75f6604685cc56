// Streamed uploads to S3 as a multipart upload driven by hand over the minio client's calls:
// the source is cut into parts of PART_BYTES, each part is the only thing held in memory, and
// a failure aborts the upload so no parts are left behind (S3 bills for them).
import type { Client } from 'minio';
import type { UploadSource } from '../bucket.js';
import { readSource } from '../upload_source.js';

/**
 * Part size: S3's minimum is 5 MiB (except the last part) and at most 10,000 parts make an
 * object, so 16 MiB parts cover 160 GiB, far above a 512 MiB chunk segment. It is also the
 * most memory one streamed upload holds.
 */
export const PART_BYTES = 16 << 20;
const MAX_PARTS = 10_000;

/** Uploads `source` as object `name`: one PUT when it fits one part, multipart above. */
export async function putMultipart(
  client: Client,
  bucket: string,
  name: string,
  source: UploadSource,
): Promise<void> {
  const partBytes = Math.max(PART_BYTES, Math.ceil(source.size / MAX_PARTS));
  const parts = cutParts(readSource(name, source), partBytes);
  const first = await parts.next();
  const firstPart = first.done === true ? Buffer.alloc(0) : first.value;
  if (firstPart.length < partBytes) {
    // The whole object fits one part (readSource has checked its size): a single PUT.
    await client.putObject(bucket, name, firstPart, firstPart.length);
    return;
  }
  const uploadId = await client.initiateNewMultipartUpload(bucket, name, {});
  try {
    const etags: { part: number; etag: string }[] = [];
    let part = firstPart;
    for (let number = 1; ; number++) {
      const res = await client.uploadPart(
        {
          bucketName: bucket,
          objectName: name,
          uploadID: uploadId,
          partNumber: number,
          headers: {},
        },
        part,
      );
      etags.push({ part: number, etag: res.etag });
      const next = await parts.next();
      if (next.done === true) break;
      part = next.value;
    }
    await client.completeMultipartUpload(bucket, name, uploadId, etags);
  } catch (err) {
    await parts.return(undefined);
    // Best effort: parts of an upload nobody completes are invisible, and a bucket lifecycle
    // rule (or the next abort) removes what this one could not.
    await client.abortMultipartUpload(bucket, name, uploadId).catch(() => undefined);
    throw err;
  }
}

/** Regroups the source's pieces into buffers of exactly `partBytes` (the last one shorter). */
async function* cutParts(
  pieces: AsyncIterable<Uint8Array>,
  partBytes: number,
): AsyncGenerator<Buffer, void, undefined> {
  let part = Buffer.allocUnsafe(partBytes);
  let filled = 0;
  for await (const piece of pieces) {
    let at = 0;
    while (at < piece.length) {
      const n = Math.min(partBytes - filled, piece.length - at);
      part.set(piece.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === partBytes) {
        yield part;
        part = Buffer.allocUnsafe(partBytes);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield part.subarray(0, filled);
}
