import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Storage, type Bucket as GcsSdkBucket, type StorageOptions } from '@google-cloud/storage';
import {
  ObjectNotFoundError,
  type Bucket,
  type BucketCallOptions,
  type BucketListOptions,
  type ObjectAttributes,
  type UploadSource,
} from '../bucket.js';
import { checkObjectName, checkRange, compareCodeUnits, dirPrefix } from '../memory/index.js';
import { readSource } from '../upload_source.js';
import { asBuffer, asBuffers, errorMessage, readAll, storeError } from './objstore_common.js';

export interface GcsBucketConfig {
  bucketName: string;
  /** Service-account or client-credentials JSON; empty: Google's default credential lookup. */
  serviceAccount: string;
  /**
   * The emulator/API host, e.g. `http://127.0.0.1:4443`; defaults to the
   * `STORAGE_EMULATOR_HOST` environment variable the Google SDKs honour, then Google's API.
   * An emulator endpoint talks without credentials.
   */
  emulatorHost?: string;
}

const LIST_PAGE = 1000;
/**
 * Operations whose 404 can mean a missing object. Elsewhere (upload, list, delete with
 * ignoreNotFound, exists) a 404 is about the bucket: a configuration error.
 */
const READS = new Set(['get', 'get_range', 'attributes']);

/**
 * The `gcs` bucket backend over @google-cloud/storage. The SDK's retries are off (the retrying
 * wrapper decides, with the Env clock). Reads and uploads go through streams so an aborted
 * call destroys its request; metadata calls cannot be cancelled and are left to finish.
 */
export class GcsBucket implements Bucket {
  readonly name: string;
  private readonly bucket: GcsSdkBucket;
  private readonly store: string;

  constructor(config: GcsBucketConfig) {
    const emulator = config.emulatorHost ?? process.env['STORAGE_EMULATOR_HOST'];
    this.name = `gcs:${config.bucketName}`;
    this.store = `gcs bucket ${JSON.stringify(config.bucketName)}${emulator === undefined ? '' : ` at ${emulator}`}`;
    const options: StorageOptions = { retryOptions: { autoRetry: false, maxRetries: 0 } };
    if (config.serviceAccount.trim() !== '') {
      let credentials: Record<string, unknown>;
      try {
        credentials = JSON.parse(config.serviceAccount) as Record<string, unknown>;
      } catch {
        // The JSON holds a private key, and JSON.parse's messages quote their input: say
        // only that it failed.
        throw new Error(
          `gcs bucket ${JSON.stringify(config.bucketName)}: service_account is not valid JSON`,
        );
      }
      options.credentials = credentials;
      if (typeof credentials['project_id'] === 'string')
        options.projectId = credentials['project_id'];
    }
    const origin =
      emulator === undefined || emulator === ''
        ? undefined
        : emulatorOrigin(emulator, config.bucketName);
    if (origin !== undefined) options.apiEndpoint = origin;
    const storage = new Storage(options);
    // With STORAGE_EMULATOR_HOST set, the SDK sends JSON-API calls to the variable's value
    // as is, without the `/storage/v1` root that uploads and emulators (and the Go SDK's
    // reading of the same variable) assume: pin the root so both spellings work.
    if (origin !== undefined) storage.baseUrl = `${origin}/storage/v1`;
    this.bucket = storage.bucket(config.bucketName);
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.call('get', name, opts, () =>
      readAll(this.bucket.file(name).createReadStream(), opts?.signal),
    );
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
        const file = this.bucket.file(name);
        if (length === 0) {
          await file.getMetadata();
          return new Uint8Array(0);
        }
        const range =
          length === -1 ? { start: offset } : { start: offset, end: offset + length - 1 };
        try {
          return await readAll(file.createReadStream(range), opts?.signal);
        } catch (err) {
          // 416: the range starts at or past the end of an existing object.
          if (statusOf(err) === 416) return new Uint8Array(0);
          throw err;
        }
      },
      check,
    );
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.call('exists', name, opts, async () => {
      const [found] = await this.bucket.file(name).exists();
      return found;
    });
  }

  upload(name: string, data: Uint8Array, opts?: BucketCallOptions): Promise<void> {
    return this.put('upload', name, () => Readable.from([asBuffer(data)]), opts);
  }

  /** The same single request, its body streamed from the source as the socket drains. */
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    return this.put('upload', name, () => Readable.from(asBuffers(readSource(name, source))), opts);
  }

  private put(
    op: string,
    name: string,
    body: () => Readable,
    opts: BucketCallOptions | undefined,
  ): Promise<void> {
    const check = (): void => checkObjectName(name);
    return this.call(
      op,
      name,
      opts,
      async () => {
        // A single-request (non-resumable) upload: the object appears whole or not at all
        // (a body that fails midway aborts the request).
        const sink = this.bucket.file(name).createWriteStream({
          resumable: false,
          contentType: 'application/octet-stream',
        });
        await pipeline(body(), sink, opts?.signal === undefined ? {} : { signal: opts.signal });
      },
      check,
    );
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.call('delete', name, opts, async () => {
      await this.bucket.file(name).delete({ ignoreNotFound: true });
    });
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    const prefix = dirPrefix(dir);
    const recursive = opts?.recursive ?? false;
    return this.call('iter', prefix, opts, async () => {
      const out: string[] = [];
      let pageToken: string | undefined;
      do {
        const [files, next, response] = await this.bucket.getFiles({
          prefix,
          autoPaginate: false,
          maxResults: LIST_PAGE,
          ...(recursive ? {} : { delimiter: '/' }),
          ...(pageToken === undefined ? {} : { pageToken }),
        });
        for (const f of files) if (f.name !== prefix) out.push(f.name);
        const prefixes = (response as { prefixes?: unknown } | undefined)?.prefixes;
        if (Array.isArray(prefixes)) for (const p of prefixes) out.push(String(p));
        pageToken = (next as { pageToken?: string } | null | undefined)?.pageToken;
      } while (pageToken !== undefined && pageToken !== '');
      return out.sort(compareCodeUnits);
    });
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.call('attributes', name, opts, async () => {
      const [meta] = await this.bucket.file(name).getMetadata();
      const updated = meta.updated ?? meta.timeCreated;
      return {
        size: Number(meta.size ?? 0),
        lastModified: updated === undefined ? 0 : Date.parse(updated),
      };
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

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
      return await run();
    } catch (err) {
      const status = statusOf(err);
      if (status === 404 && READS.has(op) && !signal?.aborted && !isBucketMissing(err)) {
        throw new ObjectNotFoundError(object);
      }
      throw storeError(this.store, op, object, err, { status, signal });
    }
  }
}

/** `http://host:port` of an emulator given as `http://host:port[/storage/v1]` or `host:port`. */
function emulatorOrigin(emulator: string, bucket: string): string {
  const withScheme = emulator.includes('://') ? emulator : `http://${emulator}`;
  try {
    return new URL(withScheme).origin;
  } catch (err) {
    throw new Error(
      `gcs bucket ${JSON.stringify(bucket)}: invalid emulator host ${JSON.stringify(emulator)} ` +
        `(STORAGE_EMULATOR_HOST): want http://host:port`,
      { cause: err },
    );
  }
}

/** The HTTP status of an SDK ApiError (its numeric `code`). */
function statusOf(err: unknown): number | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** A 404 about the bucket itself is a configuration error, not a missing object. */
function isBucketMissing(err: unknown): boolean {
  return /bucket/i.test(errorMessage(err)) && !/object/i.test(errorMessage(err));
}
