/**
 * Deliberately broken ingesters for the mutation canaries (`broken_ingester`), built from
 * outside the product by wrapping the node's FileSystem or Transport: the real ingester runs
 * untouched underneath, and production code has no switch for any of this.
 */
import { decodeWriteRequest, encodeWriteRequest } from '../../../src/distributor/index.js';
import { INGESTER_PUSH, TENANT_RPC_HEADER } from '../../../src/ingester/index.js';
import type {
  CallOptions,
  FileSystem,
  Logger,
  RpcHandler,
  RpcRequest,
  RpcResponse,
  Transport,
} from '../../../src/runtime/index.js';
import { PAGE_SIZE } from '../../../src/tsdb/index.js';
import { ForwardingFileSystem } from './block_disk.js';

/** A WAL directory (`<tsdb dir>/<tenant>/wal`) and its segment files (8 digits). */
const WAL_DIR = /\/wal$/;
const SEGMENT = /^\d{8}$/;

/**
 * `broken_ingester: drop_last_wal_page`: a WAL replay that loses the newest segment's last
 * 32 KiB page. The first listing of each WAL directory in a process's life is the WAL
 * opening for replay (it starts a fresh segment only afterwards), so the wrapper cuts that
 * directory's newest segment back to the start of its last page right then, durably, before
 * the replay reads it. A first start finds no segment and loses nothing; every restart after
 * a crash loses what the ingester acknowledged since its last page boundary.
 */
export class DropLastWalPageFileSystem extends ForwardingFileSystem {
  private readonly listed = new Set<string>();

  constructor(
    inner: FileSystem,
    private readonly logger: Logger,
  ) {
    super(inner);
  }

  override async readdir(path: string): Promise<string[]> {
    const names = await this.inner.readdir(path);
    if (!WAL_DIR.test(path) || this.listed.has(path)) return names;
    this.listed.add(path);
    const newest = names
      .filter((n) => SEGMENT.test(n))
      .sort()
      .at(-1);
    if (newest === undefined) return names;
    const segment = `${path}/${newest}`;
    const handle = await this.inner.open(segment, 'r+');
    try {
      const size = await handle.size();
      if (size === 0) return names;
      const keep = Math.floor((size - 1) / PAGE_SIZE) * PAGE_SIZE;
      await handle.truncate(keep);
      await handle.sync();
      this.logger.warn('dropping the last WAL page before replay', { segment, size, keep });
    } finally {
      await handle.close();
    }
    return names;
  }
}

/**
 * `broken_ingester: double_apply_retry`: an ingester that does not recognise a push it has
 * already applied (a writer's retry, or a duplicated message) and applies it a second time
 * as new samples, one millisecond after the originals, the way an ingester that re-stamps
 * retried samples would. The original push is applied and answered as usual; the second
 * application's outcome is ignored.
 */
export class DoubleApplyRetryTransport implements Transport {
  private readonly seen = new Set<string>();

  constructor(
    private readonly inner: Transport,
    private readonly logger: Logger,
  ) {}

  get address(): string | undefined {
    return this.inner.address;
  }

  handle(method: string, handler: RpcHandler): void {
    if (method !== INGESTER_PUSH) {
      this.inner.handle(method, handler);
      return;
    }
    this.inner.handle(method, async (req: RpcRequest, signal: AbortSignal) => {
      const key = `${req.headers?.[TENANT_RPC_HEADER] ?? ''}\u0000${Buffer.from(req.body).toString('base64')}`;
      const retried = this.seen.has(key);
      this.seen.add(key);
      const res = await handler(req, signal);
      if (retried) {
        const again = shiftedPush(req.body, 1);
        if (again !== undefined) {
          this.logger.warn('applying a retried push a second time');
          await handler({ ...req, body: again }, signal).catch(() => undefined);
        }
      }
      return res;
    });
  }

  listen(): Promise<string> {
    return this.inner.listen();
  }

  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    return this.inner.call(address, req, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The push body with every sample `byMs` later; undefined when it does not decode. */
function shiftedPush(body: Uint8Array, byMs: number): Uint8Array | undefined {
  try {
    const data = decodeWriteRequest(body);
    const timestamps = data.timestamps.map((t) => t + byMs);
    return encodeWriteRequest({ ...data, timestamps }, { includeMetadata: false });
  } catch {
    return undefined;
  }
}
