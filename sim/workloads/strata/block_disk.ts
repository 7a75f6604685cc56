import { TMP_FOR_CREATION_SUFFIX } from '../../../src/tsdb/index.js';
import type {
  FileHandle,
  FileStat,
  FileSystem,
  Logger,
  OpenMode,
} from '../../../src/runtime/index.js';
import { TSDB_DIR } from './node_paths.js';

/** `<tsdb dir>/<tenant>/<ULID>`: a block directory under its final name. */
const BLOCK_PATH = new RegExp(`^${TSDB_DIR}/([^/]+)/([0-9A-HJKMNP-TV-Z]{26})$`);
/** `<tsdb dir>/<tenant>`. */
const TENANT_DIR = new RegExp(`^${TSDB_DIR}/([^/]+)$`);

/** A block an ingester cut, as its disk showed it. */
export interface CutBlock {
  node: string;
  tenant: string;
  ulid: string;
  /** When the block directory got its final name (harness time). */
  cutAt: number;
  /** When the process renamed it away or removed it (retention, or a broken shipper). */
  deletedAt?: number;
}

export function blockPathOf(path: string): { tenant: string; ulid: string } | undefined {
  const m = BLOCK_PATH.exec(path);
  return m === null ? undefined : { tenant: m[1] as string, ulid: m[2] as string };
}

/**
 * Every block the ingesters cut and every local deletion of one, recorded by the harness
 * from the file system calls the processes make (outside the product, like the ledger), so
 * `blocks_shipped` can compare it with the bucket's history.
 */
export class BlockDiskLog {
  private readonly byKey = new Map<string, CutBlock>();

  get blocks(): readonly CutBlock[] {
    return [...this.byKey.values()];
  }

  cut(node: string, tenant: string, ulid: string, at: number): void {
    const key = `${node}/${tenant}/${ulid}`;
    if (!this.byKey.has(key)) this.byKey.set(key, { node, tenant, ulid, cutAt: at });
  }

  deleted(node: string, tenant: string, ulid: string, at: number): void {
    const block = this.byKey.get(`${node}/${tenant}/${ulid}`);
    if (block !== undefined && block.deletedAt === undefined) block.deletedAt = at;
  }
}

/** A FileSystem that forwards every call; subclasses intercept some. */
export class ForwardingFileSystem implements FileSystem {
  constructor(protected readonly inner: FileSystem) {}
  open(path: string, mode: OpenMode): Promise<FileHandle> {
    return this.inner.open(path, mode);
  }
  readFile(path: string): Promise<Uint8Array> {
    return this.inner.readFile(path);
  }
  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return this.inner.writeFile(path, data);
  }
  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.mkdir(path, opts);
  }
  readdir(path: string): Promise<string[]> {
    return this.inner.readdir(path);
  }
  stat(path: string): Promise<FileStat | undefined> {
    return this.inner.stat(path);
  }
  exists(path: string): Promise<boolean> {
    return this.inner.exists(path);
  }
  rename(from: string, to: string): Promise<void> {
    return this.inner.rename(from, to);
  }
  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.inner.remove(path, opts);
  }
  syncDir(path: string): Promise<void> {
    return this.inner.syncDir(path);
  }
}

/**
 * An ingester node's FileSystem as the harness watches it: a rename to a block path is a
 * cut (TSDB writes blocks under a temporary name and renames them last), a rename away from
 * one or its removal is a local deletion. Only completed operations count.
 */
export class ObservedFileSystem extends ForwardingFileSystem {
  constructor(
    inner: FileSystem,
    private readonly node: string,
    private readonly log: BlockDiskLog,
    private readonly now: () => number,
  ) {
    super(inner);
  }

  override async rename(from: string, to: string): Promise<void> {
    await this.inner.rename(from, to);
    const gone = blockPathOf(from);
    if (gone !== undefined) this.log.deleted(this.node, gone.tenant, gone.ulid, this.now());
    const cut = blockPathOf(to);
    if (cut !== undefined) this.log.cut(this.node, cut.tenant, cut.ulid, this.now());
  }

  override async remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    await this.inner.remove(path, opts);
    const gone = blockPathOf(path);
    if (gone !== undefined) this.log.deleted(this.node, gone.tenant, gone.ulid, this.now());
  }
}

/**
 * The deliberately broken shipper of `broken_ingester: delete_before_ship`, built from
 * outside the product: the FileSystem under an ingester remembers each block directory
 * freshly renamed into place, and when the tenant's directory is next listed (the shipper
 * lists it to find blocks to upload) it removes those blocks first. The database keeps the
 * block's files open, so the ingester still answers from them until it restarts; the
 * bucket never gets them.
 */
export class DeleteBeforeShipFileSystem extends ForwardingFileSystem {
  private readonly fresh = new Set<string>();

  constructor(
    inner: FileSystem,
    private readonly logger: Logger,
  ) {
    super(inner);
  }

  override async rename(from: string, to: string): Promise<void> {
    await this.inner.rename(from, to);
    if (from.endsWith(TMP_FOR_CREATION_SUFFIX) && blockPathOf(to) !== undefined) this.fresh.add(to);
  }

  override async readdir(path: string): Promise<string[]> {
    if (TENANT_DIR.test(path))
      for (const block of [...this.fresh]) {
        if (!block.startsWith(`${path}/`)) continue;
        this.fresh.delete(block);
        this.logger.warn('deleting a block before shipping it', { block });
        await this.inner.remove(block, { recursive: true });
      }
    return this.inner.readdir(path);
  }
}
