// One tenant's shipper (Thanos shipper.Shipper as a Cortex ingester runs it): `sync` walks
// the tenant's local blocks oldest first and uploads each one the bucket does not have yet,
// then records what is in the bucket in `thanos.shipper.json`. The record is what lets the
// ingester delete local blocks at all: a block not in it is never deleted.
import { blockMetaPath, uploadBlock } from '../bucket/index.js';
import type { Bucket, FileSystem, Logger } from '../runtime/index.js';
import {
  BlockSource,
  compareUlids,
  isCanonicalUlid,
  META_FILENAME,
  readBlockMeta,
  type BlockMeta,
} from '../tsdb/index.js';
import { readShipperMeta, writeShipperMeta } from './shipper_meta.js';
import type { ShipperMetrics } from './shipper_metrics.js';

export interface ShipperConfig {
  readonly tenant: string;
  /** The tenant's TSDB directory (`<tsdb dir>/<tenant>`). */
  readonly dir: string;
  /** External labels put into the uploaded meta.json (`__org_id__`, `__ingester_id__`). */
  readonly labels: Readonly<Record<string, string>>;
  /**
   * Ship blocks of compaction level > 1 too (Cortex `-ingester.upload-compacted-blocks-enabled`,
   * default true). The ingester only cuts level-1 blocks; this matters for data directories
   * whose blocks were compacted locally.
   */
  readonly uploadCompacted: boolean;
}

export interface ShipperDeps {
  readonly fs: FileSystem;
  readonly bucket: Bucket;
  readonly logger: Logger;
  readonly metrics: ShipperMetrics;
}

/** What one sync did. */
export interface SyncResult {
  /** Blocks uploaded by this sync. */
  readonly uploaded: number;
  /** Blocks that should have shipped and did not (retried by the next sync). */
  readonly failed: number;
  /** Block directories whose meta.json could not be read. */
  readonly corrupted: number;
}

export class Shipper {
  /** ULIDs recorded as being in the bucket; replaced (never mutated) after each sync. */
  private shipped: ReadonlySet<string> = new Set();

  constructor(
    private readonly config: ShipperConfig,
    private readonly deps: ShipperDeps,
  ) {}

  get tenant(): string {
    return this.config.tenant;
  }

  /**
   * Loads the record of shipped blocks (Cortex's cached shipped blocks, read when the
   * tenant's database opens). An unreadable file is logged and counts as empty: blocks are
   * then kept locally until a sync finds them in the bucket and records them again.
   */
  async load(): Promise<void> {
    this.shipped = new Set(await this.readRecord());
  }

  /** Whether `ulid` is recorded as shipped (retention may delete it once it aged). */
  isShipped(ulid: string): boolean {
    return this.shipped.has(ulid);
  }

  /** The ULIDs recorded as shipped. */
  shippedBlocks(): ReadonlySet<string> {
    return this.shipped;
  }

  /**
   * Ships every local block the bucket does not have, oldest first (Thanos Shipper.Sync with
   * out-of-order uploads allowed, as Cortex runs it): blocks already recorded are kept in the
   * record (if still on disk), empty blocks and (unless configured) compacted ones are
   * skipped, a block whose meta.json is already in the bucket is recorded without uploading
   * it again, any other is uploaded. A failed upload is counted and logged and does not stop
   * later blocks; the next sync retries it. Then the record is rewritten.
   */
  async sync(): Promise<SyncResult> {
    const { tenant, dir } = this.config;
    const before = new Set(await this.readRecord());
    const record: string[] = [];
    let uploaded = 0;
    let failed = 0;
    const { metas, corrupted } = await this.localBlocks();
    for (const meta of metas) {
      if (before.has(meta.ulid)) {
        record.push(meta.ulid);
        continue;
      }
      if (meta.stats.numSamples === 0) continue;
      if (meta.compaction.level > 1 && !this.config.uploadCompacted) continue;
      try {
        if (await this.deps.bucket.exists(blockMetaPath(tenant, meta.ulid))) {
          record.push(meta.ulid);
          continue;
        }
      } catch (err) {
        // Thanos gives up the whole sync here; going on keeps the blocks after this one
        // moving, and this one is asked about again next time.
        failed++;
        this.deps.logger.warn('shipper: checking whether the block is in the bucket failed', {
          tenant,
          block: meta.ulid,
          err: errorText(err),
        });
        continue;
      }
      try {
        this.deps.logger.info('shipper: uploading new block', { tenant, block: meta.ulid });
        await uploadBlock(
          this.deps.bucket,
          tenant,
          `${dir}/${meta.ulid}`,
          { labels: this.config.labels, source: BlockSource.Receive },
          { fs: this.deps.fs, logger: this.deps.logger },
        );
      } catch (err) {
        failed++;
        this.deps.metrics.uploadFailures.inc();
        this.deps.logger.error('shipper: shipping failed', {
          tenant,
          block: meta.ulid,
          err: errorText(err),
        });
        continue;
      }
      record.push(meta.ulid);
      uploaded++;
      this.deps.metrics.uploads.inc();
    }
    try {
      await writeShipperMeta(this.deps.fs, dir, record);
      // Only what is durably recorded counts as shipped: a crash must not make retention
      // believe in a block the record does not list (the bucket still has it either way).
      this.shipped = new Set(record);
    } catch (err) {
      failed++;
      this.deps.logger.warn('shipper: updating the shipper meta file failed', {
        tenant,
        err: errorText(err),
      });
    }
    this.deps.metrics.dirSyncs.inc();
    if (failed > 0 || corrupted > 0) this.deps.metrics.dirSyncFailures.inc();
    return { uploaded, failed, corrupted };
  }

  /** The record on disk; empty when missing, and when unreadable (logged: it is rewritten). */
  private async readRecord(): Promise<readonly string[]> {
    try {
      return (await readShipperMeta(this.deps.fs, this.config.dir))?.uploaded ?? [];
    } catch (err) {
      this.deps.logger.warn('shipper: reading the shipper meta file failed, will override it', {
        tenant: this.config.tenant,
        err: errorText(err),
      });
      return [];
    }
  }

  /**
   * The metas of the block directories in the tenant's directory, oldest (min time) first.
   * A directory without a readable meta.json is counted as corrupted and left alone (Thanos
   * with skipped corrupted blocks); one that vanished meanwhile (retention) is not.
   */
  private async localBlocks(): Promise<{ metas: BlockMeta[]; corrupted: number }> {
    const { fs } = this.deps;
    const metas: BlockMeta[] = [];
    let corrupted = 0;
    for (const name of await fs.readdir(this.config.dir)) {
      if (!isCanonicalUlid(name)) continue;
      const path = `${this.config.dir}/${name}`;
      if ((await fs.stat(path))?.isDirectory !== true) continue;
      try {
        metas.push(await readBlockMeta(path, { fs }));
      } catch (err) {
        if (!(await fs.exists(`${path}/${META_FILENAME}`)) && !(await fs.exists(path))) continue;
        corrupted++;
        this.deps.metrics.corruptedBlocks.inc();
        this.deps.logger.error('shipper: block meta.json unreadable, not shipping the block', {
          tenant: this.config.tenant,
          block: name,
          err: errorText(err),
        });
      }
    }
    // Same min time (never for one tenant's level-1 blocks): the ULID decides, so the order
    // never depends on the directory listing.
    metas.sort((a, b) => a.minTime - b.minTime || compareUlids(a.ulid, b.ulid));
    return { metas, corrupted };
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
