import { AsyncLocalStorage } from 'node:async_hooks';
import * as http from 'node:http';
import * as https from 'node:https';
import { Client } from 'minio';
import {
  ObjectNotFoundError,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type ObjectAttributes,
  type UploadSource,
} from '../bucket.js';
import { checkObjectName, checkRange, compareCodeUnits, dirPrefix } from '../memory/index.js';
import { asBuffer, errorCode, readAll, storeError } from './objstore_common.js';
import { putMultipart } from './s3_multipart.js';
import { listObjectsV2Page } from './s3_list.js';

export interface S3BucketConfig {
  /** `host` or `host:port`, without scheme (the reference's `endpoint`). */
  endpoint: string;
  bucketName: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Plain http instead of https. */
  insecure: boolean;
}

/** S3 answers these codes for a missing object (HEAD has no body, so only the status). */
const NOT_FOUND_CODES = new Set(['NoSuchKey', 'NotFound']);
/** A range starting at or past the end of the object: the contract answers empty bytes. */
const INVALID_RANGE = 'InvalidRange';

/**
 * The `s3` bucket backend over the minio client (S3 and S3-compatible stores such as MinIO).
 * The client's own retries are off: the retrying wrapper is the one place that decides what
 * is retried, with the Env clock. The client cannot take an abort signal per call, so its
 * transport picks the signal of the call it serves from an AsyncLocalStorage and hands it to
 * the HTTP request: an aborted attempt tears its connection down.
 */
export class S3Bucket implements Bucket {
  readonly name: string;
  private readonly client: Client;
  private readonly bucket: string;
  /** For error messages: which bucket at which endpoint. */
  private readonly store: string;
  private readonly signals = new AsyncLocalStorage<AbortSignal | undefined>();

  constructor(config: S3BucketConfig) {
    const { host, port } = parseEndpoint(config.endpoint, config.bucketName);
    const scheme = config.insecure ? 'http' : 'https';
    this.bucket = config.bucketName;
    this.name = `s3:${config.endpoint}/${config.bucketName}`;
    this.store = `s3 bucket ${JSON.stringify(config.bucketName)} at ${scheme}://${config.endpoint}`;
    const base = config.insecure ? http : https;
    const transport = {
      request: (options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) => {
        const signal = this.signals.getStore();
        return base.request(signal === undefined ? options : { ...options, signal }, callback);
      },
    };
    try {
      this.client = new Client({
        endPoint: host,
        ...(port === undefined ? {} : { port }),
        useSSL: !config.insecure,
        accessKey: config.accessKeyId,
        secretKey: config.secretAccessKey,
        transport: transport as unknown as typeof http,
        retryOptions: { disableRetry: true },
      });
    } catch (err) {
      throw new Error(
        `s3 bucket ${JSON.stringify(config.bucketName)}: invalid endpoint ${JSON.stringify(config.endpoint)} or settings: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.call('get', name, opts, async () => {
      const stream = await this.client.getObject(this.bucket, name);
      return readAll(stream, opts?.signal);
    });
  }

  getRange(
    name: string,
    offset: number,
    length: number,
    opts?: BucketCallOptions,
  ): Promise<Uint8Array> {
    const check = (): void => checkRange(name, offset, length);
    return this.call(
      'get_range',
      name,
      opts,
      async () => {
        // minio reads "length 0" as "to the end"; an empty range still has to see the object.
        if (length === 0) {
          await this.client.statObject(this.bucket, name);
          return new Uint8Array(0);
        }
        try {
          const stream = await this.client.getPartialObject(
            this.bucket,
            name,
            offset,
            length === -1 ? undefined : length,
          );
          return await readAll(stream, opts?.signal);
        } catch (err) {
          if (errorCode(err) === INVALID_RANGE) return new Uint8Array(0);
          throw err;
        }
      },
      check,
    );
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.call('exists', name, opts, async () => {
      try {
        await this.client.statObject(this.bucket, name);
        return true;
      } catch (err) {
        if (NOT_FOUND_CODES.has(errorCode(err) ?? '')) return false;
        throw err;
      }
    });
  }

  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    const check = (): void => checkObjectName(name);
    return this.call(
      'upload',
      name,
      opts,
      async () => {
        // One PUT below the part size, a multipart upload above it: both appear at once.
        await this.client.putObject(this.bucket, name, asBuffer(data), data.length);
      },
      check,
    );
  }

  /**
   * A multipart upload, one part buffered at a time (see putMultipart); the object appears
   * when the upload completes. The minio client's own stream upload is not used: it resumes
   * other writers' unfinished uploads and leaves an erroring source's stream unhandled.
   */
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    const check = (): void => checkObjectName(name);
    return this.call(
      'upload',
      name,
      opts,
      () => putMultipart(this.client, this.bucket, name, source),
      check,
    );
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    // S3 answers 204 for a missing key too: deletes are idempotent without extra work.
    return this.call('delete', name, opts, () => this.client.removeObject(this.bucket, name));
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    const prefix = dirPrefix(dir);
    const recursive = opts?.recursive ?? false;
    return this.call('iter', prefix, opts, async () => {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await listObjectsV2Page(
          this.client,
          this.bucket,
          prefix,
          recursive ? '' : '/',
          token,
          opts?.signal,
        );
        for (const entry of page.entries) if (entry !== prefix) out.push(entry);
        token = page.next;
      } while (token !== undefined);
      return out.sort(compareCodeUnits);
    });
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.call('attributes', name, opts, async () => {
      const stat = await this.client.statObject(this.bucket, name);
      return { size: stat.size, lastModified: stat.lastModified.getTime() };
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Runs one SDK call with the caller's signal in scope and its failures mapped. */
  private async call<T>(
    op: string,
    object: string,
    opts: BucketCallOptions | undefined,
    run: () => Promise<T>,
    /** Argument checks: their errors reject as they are, not as store failures. */
    check?: () => void,
  ): Promise<T> {
    check?.();
    const signal = opts?.signal;
    try {
      signal?.throwIfAborted();
      return await this.signals.run(signal, run);
    } catch (err) {
      const code = errorCode(err);
      if (code !== undefined && NOT_FOUND_CODES.has(code) && !signal?.aborted) {
        throw new ObjectNotFoundError(object);
      }
      throw storeError(this.store, op, object, err, { code, signal });
    }
  }
}

/** `host`, `host:port` or `[v6]:port` into the minio client's separate host and port. */
function parseEndpoint(
  endpoint: string,
  bucket: string,
): { host: string; port: number | undefined } {
  const m = /^(\[[^\]]+\]|[^:/[\]]+)(?::(\d+))?$/.exec(endpoint);
  if (m === null) {
    throw new Error(
      `s3 bucket ${JSON.stringify(bucket)}: invalid endpoint ${JSON.stringify(endpoint)}: ` +
        `want host or host:port, without scheme or path`,
    );
  }
  const host = (m[1] ?? '').replace(/^\[|\]$/g, '');
  return { host, port: m[2] === undefined ? undefined : Number(m[2]) };
}
