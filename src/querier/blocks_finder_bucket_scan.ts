/**
 * The blocks finder used when the bucket index is disabled (Cortex's
 * BucketScanBlocksFinder): every sync interval it lists the tenants, each tenant's block
 * directories and its `markers/`, and reads the meta.json of blocks it has not seen yet
 * (blocks are immutable, so a known block is never read again). A directory without
 * meta.json is a partial upload and skipped. Queries fail until the first scan completed.
 * Only active tenants are scanned (Cortex): a tenant marked for deletion has no blocks here
 * from the first scan after its mark appeared.
 */
import {
  BucketDocumentError,
  blockMetaPath,
  listGlobalMarks,
  scanTenants,
  readGlobalDeletionMark,
  type BucketIndexDeletionMark,
  type DeletionMark,
} from '../bucket/index.js';
import {
  isAbortError,
  isObjectNotFound,
  type Bucket,
  type Clock,
  type Logger,
} from '../runtime/index.js';
import { BasicService } from '../services/index.js';
import { isCanonicalUlid, parseBlockMeta } from '../tsdb/index.js';
import {
  BlocksFinderError,
  INVALID_BLOCKS_RANGE_MESSAGE,
  blockWithin,
  errorMessage,
  sleep,
  sortByMaxTimeDesc,
  type BlocksFinder,
  type FoundBlock,
  type FoundBlocks,
} from './blocks_finder.js';

export interface BucketScanBlocksFinderConfig {
  /** `-blocks-storage.bucket-store.sync-interval`: how often the bucket is scanned. */
  readonly scanIntervalMs: number;
  /** Delay before the first scan is retried after it failed. */
  readonly retryIntervalMs: number;
  /** `…bucket-store.ignore-deletion-marks-delay`: blocks marked longer ago are dropped. */
  readonly ignoreDeletionMarksDelayMs: number;
  /** `…bucket-store.tenant-sync-concurrency`: tenants scanned at once. */
  readonly tenantsConcurrency: number;
}

export interface BucketScanBlocksFinderDeps {
  readonly bucket: Bucket;
  readonly clock: Clock;
  readonly logger: Logger;
}

interface TenantBlocks {
  /** Max time descending. */
  readonly blocks: FoundBlock[];
  readonly deletionMarks: Map<string, BucketIndexDeletionMark>;
}

/** Attempts per tenant within one scan (Cortex retries a tenant's scan 3 times). */
const TENANT_SCAN_ATTEMPTS = 3;
const TENANT_SCAN_BACKOFF_MS = 1_000;

export class BucketScanBlocksFinder extends BasicService implements BlocksFinder {
  private tenants = new Map<string, TenantBlocks>();
  private scanned = false;

  constructor(
    private readonly config: BucketScanBlocksFinderConfig,
    private readonly deps: BucketScanBlocksFinderDeps,
  ) {
    super('bucket-scan-blocks-finder', {
      running: (signal) => this.run(signal),
      isReady: () =>
        this.scanned
          ? undefined
          : 'blocks discovery has not completed: the bucket is being scanned',
    });
  }

  getBlocks(tenant: string, minT: number, maxT: number): Promise<FoundBlocks> {
    // Answering before the first scan would silently skip every block.
    if (this.state !== 'Running' || !this.scanned) {
      return Promise.reject(new BlocksFinderError('bucket scan blocks finder is not running'));
    }
    if (maxT < minT) return Promise.reject(new BlocksFinderError(INVALID_BLOCKS_RANGE_MESSAGE));
    const known = this.tenants.get(tenant);
    if (known === undefined) return Promise.resolve({ blocks: [], deletionMarks: new Map() });
    const blocks: FoundBlock[] = [];
    const deletionMarks = new Map<string, BucketIndexDeletionMark>();
    for (const block of known.blocks) {
      if (blockWithin(block, minT, maxT)) {
        blocks.push(block);
        const mark = known.deletionMarks.get(block.block_id);
        if (mark !== undefined) deletionMarks.set(block.block_id, mark);
      }
      // Sorted by max time descending: every later block ends before the range.
      if (block.max_time <= minT) break;
    }
    return Promise.resolve({ blocks, deletionMarks });
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { clock } = this.deps;
    while (!signal.aborted) {
      let ok = false;
      try {
        await this.scan(signal);
        ok = true;
      } catch (err) {
        if (signal.aborted) return;
        this.deps.logger.error('failed to scan bucket storage to find blocks', {
          err: errorMessage(err),
        });
      }
      const wait = ok || this.scanned ? this.config.scanIntervalMs : this.config.retryIntervalMs;
      if (!(await sleep(clock, wait, signal))) return;
    }
  }

  /**
   * One pass over the bucket. Tenants that failed keep their previous blocks; tenants gone
   * from the bucket are forgotten only after a pass without errors (a listing hiccup must
   * not hide a tenant's blocks).
   */
  async scan(signal?: AbortSignal): Promise<void> {
    // Cortex's scan finder takes the active tenants of its users scanner only.
    const tenants = (await scanTenants(this.deps.bucket)).active;
    const found = new Map<string, TenantBlocks>();
    const errors: string[] = [];
    const concurrency = Math.max(1, this.config.tenantsConcurrency);
    for (let i = 0; i < tenants.length; i += concurrency) {
      await Promise.all(
        tenants.slice(i, i + concurrency).map(async (tenant) => {
          try {
            found.set(tenant, await this.scanTenantWithRetries(tenant, signal));
          } catch (err) {
            if (isAbortError(err)) throw err;
            errors.push(`tenant ${tenant}: ${errorMessage(err)}`);
          }
        }),
      );
    }
    const next = errors.length === 0 ? new Map<string, TenantBlocks>() : new Map(this.tenants);
    // Keep the listing's order so the map's iteration order does not depend on timing.
    for (const tenant of tenants) {
      const blocks = found.get(tenant);
      if (blocks !== undefined) next.set(tenant, blocks);
    }
    this.tenants = next;
    if (errors.length > 0) throw new Error(`scan failed for ${errors.join('; ')}`);
    this.scanned = true;
  }

  private async scanTenantWithRetries(tenant: string, signal?: AbortSignal): Promise<TenantBlocks> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.scanTenant(tenant);
      } catch (err) {
        if (isAbortError(err) || attempt >= TENANT_SCAN_ATTEMPTS || signal === undefined) throw err;
        await this.deps.clock.sleep(TENANT_SCAN_BACKOFF_MS * attempt, signal);
      }
    }
  }

  private async scanTenant(tenant: string): Promise<TenantBlocks> {
    const { bucket, clock } = this.deps;
    const previous = this.tenants.get(tenant);
    const known = new Map<string, FoundBlock>();
    for (const b of previous?.blocks ?? []) known.set(b.block_id, b);
    const entries = await bucket.list(`${tenant}/`);
    const ids = entries
      .filter((e) => e.endsWith('/'))
      .map((e) => e.slice(tenant.length + 1, -1))
      .filter(isCanonicalUlid);
    const blocks: FoundBlock[] = [];
    for (const id of ids) {
      const block = known.get(id) ?? (await this.readBlock(tenant, id));
      if (block !== undefined) blocks.push(block);
    }
    const marks = await this.readDeletionMarks(tenant, previous);
    const now = clock.now();
    const kept: FoundBlock[] = [];
    const deletionMarks = new Map<string, BucketIndexDeletionMark>();
    for (const block of blocks) {
      const mark = marks.get(block.block_id);
      if (mark !== undefined) {
        if (now - mark.deletion_time * 1000 > this.config.ignoreDeletionMarksDelayMs) continue;
        deletionMarks.set(block.block_id, mark);
      }
      kept.push(block);
    }
    return { blocks: sortByMaxTimeDesc(kept), deletionMarks };
  }

  /** The block's meta.json and upload time; undefined for a partial block (no meta.json). */
  private async readBlock(tenant: string, id: string): Promise<FoundBlock | undefined> {
    const { bucket } = this.deps;
    const path = blockMetaPath(tenant, id);
    let text: string;
    let lastModified: number;
    try {
      text = new TextDecoder().decode(await bucket.get(path));
      // meta.json is uploaded last and never rewritten: its time is the upload's end.
      lastModified = (await bucket.attributes(path)).lastModified;
    } catch (err) {
      if (isObjectNotFound(err)) return undefined;
      throw err;
    }
    let meta: ReturnType<typeof parseBlockMeta>;
    try {
      meta = parseBlockMeta(text);
    } catch (err) {
      // As Thanos's fetcher: a corrupted meta.json makes the block unusable, not the scan.
      this.deps.logger.warn('skipping block with corrupted meta.json', {
        user: tenant,
        block: id,
        err: errorMessage(err),
      });
      return undefined;
    }
    return {
      block_id: id,
      min_time: meta.minTime,
      max_time: meta.maxTime,
      uploaded_at: Math.floor(lastModified / 1000),
    };
  }

  /**
   * The deletion marks under `<tenant>/markers/` (the compactor writes a copy there for
   * every mark, so one listing replaces a read per block). Marks already known are reused.
   */
  private async readDeletionMarks(
    tenant: string,
    previous: TenantBlocks | undefined,
  ): Promise<Map<string, BucketIndexDeletionMark>> {
    const { bucket, logger } = this.deps;
    const marks = new Map<string, BucketIndexDeletionMark>();
    for (const id of (await listGlobalMarks(bucket, tenant)).deletion) {
      const known = previous?.deletionMarks.get(id);
      if (known !== undefined) {
        marks.set(id, known);
        continue;
      }
      let mark: DeletionMark | undefined;
      try {
        mark = await readGlobalDeletionMark(bucket, tenant, id);
      } catch (err) {
        if (!(err instanceof BucketDocumentError)) throw err;
        // As Thanos: an unreadable mark is ignored (the block stays queried), not fatal.
        logger.warn('ignoring unreadable deletion mark', {
          user: tenant,
          block: id,
          err: err.message,
        });
      }
      // Undefined when deleted between the listing and the read: the block is going away.
      if (mark !== undefined) marks.set(id, { block_id: id, deletion_time: mark.deletion_time });
    }
    return marks;
  }
}
