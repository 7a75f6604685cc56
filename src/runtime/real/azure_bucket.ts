import { Readable } from 'node:stream';
import {
  BlobServiceClient,
  StorageSharedKeyCredential,
  type ContainerClient,
} from '@azure/storage-blob';
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
import { asBuffers, errorCode, readAll, storeError } from './objstore_common.js';

export interface AzureBucketConfig {
  accountName: string;
  accountKey: string;
  containerName: string;
  /** See `azureServiceUrl`. */
  endpointSuffix: string;
}

const DEFAULT_ENDPOINT_SUFFIX = 'blob.core.windows.net';
/**
 * Streamed uploads stage blocks of this size, this many in flight: what one streamed upload
 * holds in memory (the SDK's buffers) is their product.
 */
const STREAM_BLOCK_BYTES = 8 << 20;
const STREAM_CONCURRENCY = 2;
/** Blob-level "missing" codes; ContainerNotFound is a configuration error and stays one. */
const NOT_FOUND_CODES = new Set(['BlobNotFound', 'ResourceNotFound']);
/** An IP literal or localhost, with an optional port: where emulators such as azurite listen. */
const EMULATOR_HOST = /^(localhost|\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\])(:\d+)?$/;

/**
 * The service URL of an account. The reference forms the host as `<account>.<endpoint_suffix>`
 * (https). An IP address or `localhost` cannot carry the account in its name, so there the
 * emulator form `http://<endpoint_suffix>/<account>` applies — the same rule the Azure SDK
 * uses to read IP-style URLs, and what azurite serves (`endpoint_suffix: 127.0.0.1:10000`).
 */
export function azureServiceUrl(accountName: string, endpointSuffix: string): string {
  const suffix = endpointSuffix.trim() === '' ? DEFAULT_ENDPOINT_SUFFIX : endpointSuffix.trim();
  if (suffix.includes('://') || suffix.includes('/')) {
    throw new Error(
      `azure account ${JSON.stringify(accountName)}: endpoint_suffix ${JSON.stringify(endpointSuffix)} ` +
        `must be a host name suffix (or host:port), without scheme or path`,
    );
  }
  if (EMULATOR_HOST.test(suffix)) return `http://${suffix}/${accountName}`;
  return `https://${accountName}.${suffix}`;
}

/**
 * The `azure` bucket backend over @azure/storage-blob (block blobs in one container). The
 * SDK's retries are off (one try per call): the retrying wrapper retries, with the Env clock
 * and the bucket's `max_retries`. Every call passes the caller's abort signal to the SDK.
 */
export class AzureBucket implements Bucket {
  readonly name: string;
  private readonly container: ContainerClient;
  private readonly store: string;

  constructor(config: AzureBucketConfig) {
    const url = azureServiceUrl(config.accountName, config.endpointSuffix);
    this.name = `azure:${config.accountName}/${config.containerName}`;
    this.store = `azure container ${JSON.stringify(config.containerName)} at ${url}`;
    let credential: StorageSharedKeyCredential;
    try {
      credential = new StorageSharedKeyCredential(config.accountName, config.accountKey);
    } catch (err) {
      throw new Error(
        `${this.store}: invalid account_key for account ${JSON.stringify(config.accountName)} (must be base64)`,
        { cause: err },
      );
    }
    const service = new BlobServiceClient(url, credential, { retryOptions: { maxTries: 1 } });
    this.container = service.getContainerClient(config.containerName);
  }

  get(name: string, opts?: BucketCallOptions): Promise<Uint8Array> {
    return this.call('get', name, opts, (abortSignal) =>
      this.download(name, 0, undefined, abortSignal),
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
      async (abortSignal) => {
        // The SDK reads a count of 0 as "to the end"; an empty range still has to see the blob.
        if (length === 0) {
          await this.container.getBlobClient(name).getProperties(withSignal(abortSignal));
          return new Uint8Array(0);
        }
        try {
          return await this.download(name, offset, length === -1 ? undefined : length, abortSignal);
        } catch (err) {
          // 416: the range starts at or past the end of an existing blob.
          if (statusOf(err) === 416) return new Uint8Array(0);
          throw err;
        }
      },
      check,
    );
  }

  exists(name: string, opts?: BucketCallOptions): Promise<boolean> {
    return this.call('exists', name, opts, async (abortSignal) => {
      try {
        await this.container.getBlobClient(name).getProperties(withSignal(abortSignal));
        return true;
      } catch (err) {
        if (NOT_FOUND_CODES.has(azureCode(err) ?? '')) return false;
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
      async (abortSignal) => {
        // One Put Blob up to the SDK's single-shot limit, staged blocks plus a commit above it:
        // either way the new content appears at once.
        await this.container.getBlockBlobClient(name).uploadData(data, withSignal(abortSignal));
      },
      check,
    );
  }

  /**
   * Staged blocks committed at the end (the SDK's uploadStream): the blob changes only at the
   * commit, so a failure midway leaves the previous content.
   */
  uploadStream(name: string, source: UploadSource, opts?: BucketCallOptions): Promise<void> {
    const check = (): void => checkObjectName(name);
    return this.call(
      'upload',
      name,
      opts,
      async (abortSignal) => {
        await this.container
          .getBlockBlobClient(name)
          .uploadStream(
            Readable.from(asBuffers(readSource(name, source))),
            STREAM_BLOCK_BYTES,
            STREAM_CONCURRENCY,
            withSignal(abortSignal),
          );
      },
      check,
    );
  }

  delete(name: string, opts?: BucketCallOptions): Promise<void> {
    return this.call('delete', name, opts, async (abortSignal) => {
      await this.container.getBlobClient(name).deleteIfExists(withSignal(abortSignal));
    });
  }

  list(dir: string, opts?: BucketListOptions): Promise<string[]> {
    const prefix = dirPrefix(dir);
    const recursive = opts?.recursive ?? false;
    return this.call('iter', prefix, opts, async (abortSignal) => {
      const out: string[] = [];
      const options = { prefix, ...withSignal(abortSignal) };
      if (recursive) {
        for await (const blob of this.container.listBlobsFlat(options))
          if (blob.name !== prefix) out.push(blob.name);
      } else {
        for await (const item of this.container.listBlobsByHierarchy('/', options))
          if (item.name !== prefix) out.push(item.name);
      }
      return out.sort(compareCodeUnits);
    });
  }

  attributes(name: string, opts?: BucketCallOptions): Promise<ObjectAttributes> {
    return this.call('attributes', name, opts, async (abortSignal) => {
      const props = await this.container.getBlobClient(name).getProperties(withSignal(abortSignal));
      return { size: props.contentLength ?? 0, lastModified: props.lastModified?.getTime() ?? 0 };
    });
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private async download(
    name: string,
    offset: number,
    count: number | undefined,
    abortSignal: AbortSignal | undefined,
  ): Promise<Uint8Array> {
    const res = await this.container
      .getBlobClient(name)
      .download(offset, count, withSignal(abortSignal));
    const body = res.readableStreamBody;
    return body === undefined ? new Uint8Array(0) : readAll(body, abortSignal);
  }

  private async call<T>(
    op: string,
    object: string,
    opts: BucketCallOptions | undefined,
    run: (abortSignal: AbortSignal | undefined) => Promise<T>,
    /** Argument checks: their errors reject as they are, not as store failures. */
    check?: () => void,
  ): Promise<T> {
    check?.();
    const signal = opts?.signal;
    try {
      signal?.throwIfAborted();
      return await run(signal);
    } catch (err) {
      const code = azureCode(err);
      if (code !== undefined && NOT_FOUND_CODES.has(code) && !signal?.aborted) {
        throw new ObjectNotFoundError(object);
      }
      throw storeError(this.store, op, object, err, { status: statusOf(err), code, signal });
    }
  }
}

/**
 * The storage error code: answers without a body (HEAD) carry it only in the
 * `x-ms-error-code` header, which the SDK puts in `details.errorCode`.
 */
function azureCode(err: unknown): string | undefined {
  const details = (err as { details?: { errorCode?: unknown } } | null)?.details;
  const fromHeader = details?.errorCode;
  return typeof fromHeader === 'string' && fromHeader !== '' ? fromHeader : errorCode(err);
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** SDK options carrying the signal only when there is one (exact optional properties). */
function withSignal(abortSignal: AbortSignal | undefined): { abortSignal?: AbortSignal } {
  return abortSignal === undefined ? {} : { abortSignal };
}
