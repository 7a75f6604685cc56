/**
 * Builds a tenant's next bucket index from the previous one and the bucket (Cortex's
 * `bucketindex.Updater`). Blocks and marks are immutable, so entries of the old index are
 * reused and only new block directories and new global marks are read. Partial blocks (no
 * meta.json) and blocks whose meta.json cannot be read are left out of the index and
 * reported, never fatal; any other bucket error fails the update.
 */
import {
  isObjectNotFound,
  throwIfAborted,
  type Bucket,
  type Clock,
  type Logger,
} from '../runtime/index.js';
import { isCanonicalUlid, parseBlockMeta } from '../tsdb/index.js';
import { BUCKET_INDEX_VERSION_1 } from './bucket_index_codec.js';
import { blockFromMeta } from './bucket_index.js';
import { BucketDocumentError } from './json_fields.js';
import { blockDir, blockMetaPath } from './layout.js';
import {
  getIfExists,
  listGlobalMarks,
  readDeletionMark,
  readGlobalDeletionMark,
} from './markers.js';
import type { BucketIndex, BucketIndexBlock, BucketIndexDeletionMark } from './types.js';

/** A block directory that is not in the index. */
export interface PartialBlock {
  block: string;
  /**
   * `missing-meta`: no meta.json (an upload in progress or a deletion under way; the cleaner
   * may delete it). `corrupted-meta`: meta.json exists but cannot be read (left alone).
   */
  reason: 'missing-meta' | 'corrupted-meta';
  /** What was wrong with meta.json (`corrupted-meta` only). */
  error?: string;
  /** Every object under the block directory (`missing-meta` only). */
  objects: string[];
  /** The newest last-modified time of those objects in ms; 0 when none was found. */
  lastModifiedMs: number;
}

export interface BucketIndexUpdate {
  index: BucketIndex;
  /** Sorted by block ID. */
  partials: PartialBlock[];
  /** Global no-compact marks found (not indexed, only counted, as Cortex). */
  noCompactMarks: number;
  /** Blocks whose deletion mark was found only beside the block; their global copy is missing. */
  legacyDeletionMarks: string[];
  /** Global deletion marks whose block no longer exists; left out of the index. */
  orphanDeletionMarks: string[];
}

export interface BucketIndexUpdaterConfig {
  tenant: string;
}

export interface BucketIndexUpdaterDeps {
  bucket: Bucket;
  clock: Clock;
  logger: Logger;
}

export class BucketIndexUpdater {
  private readonly logger: Logger;

  constructor(
    private readonly config: BucketIndexUpdaterConfig,
    private readonly deps: BucketIndexUpdaterDeps,
  ) {
    this.logger = deps.logger.child({ user: config.tenant });
  }

  /** The updated index (not written); `old` undefined builds it from scratch. */
  async update(old: BucketIndex | undefined, signal?: AbortSignal): Promise<BucketIndexUpdate> {
    const { bucket } = this.deps;
    const tenant = this.config.tenant;
    const globalMarks = await listGlobalMarks(bucket, tenant);
    const blockDirs = await this.listBlockDirs();
    const existing = new Set(blockDirs);
    const markedGlobally = new Set(globalMarks.deletion);

    const marks = await this.updateMarks(
      old?.block_deletion_marks ?? [],
      globalMarks.deletion,
      existing,
      signal,
    );
    const orphanDeletionMarks = globalMarks.deletion.filter((b) => !existing.has(b));

    const blocks: BucketIndexBlock[] = [];
    const toRead = new Set(blockDirs);
    const oldMarked = new Set((old?.block_deletion_marks ?? []).map((m) => m.block_id));
    for (const b of old?.blocks ?? []) {
      if (!existing.has(b.block_id)) continue;
      // A mark that vanished while its block is still listed usually means the block was
      // deleted and the listing lags: trust the bucket, not the old entry (Cortex skips it).
      if (oldMarked.has(b.block_id) && !markedGlobally.has(b.block_id)) {
        this.logger.warn('block lost its global deletion mark; reading its meta.json again', {
          block: b.block_id,
        });
        continue;
      }
      blocks.push(b);
      toRead.delete(b.block_id);
    }

    const partials: PartialBlock[] = [];
    const legacyDeletionMarks: string[] = [];
    const indexedMarks = new Set(marks.map((m) => m.block_id));
    for (const block of toRead) {
      throwIfAborted(signal);
      const entry = await this.readBlock(block);
      if ('reason' in entry) {
        partials.push(entry);
        continue;
      }
      blocks.push(entry);
      if (indexedMarks.has(block) || markedGlobally.has(block)) continue;
      const legacy = await this.readLegacyMark(block);
      if (legacy !== undefined) {
        marks.push(legacy);
        indexedMarks.add(block);
        legacyDeletionMarks.push(block);
      }
    }

    return {
      index: {
        version: BUCKET_INDEX_VERSION_1,
        blocks,
        block_deletion_marks: marks,
        updated_at: Math.floor(this.deps.clock.now() / 1000),
      },
      partials: partials.sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0)),
      noCompactMarks: globalMarks.noCompact.length,
      legacyDeletionMarks,
      orphanDeletionMarks,
    };
  }

  /** Block IDs of the directories directly under `<tenant>/`, sorted. */
  private async listBlockDirs(): Promise<string[]> {
    const prefix = `${this.config.tenant}/`;
    const out: string[] = [];
    for (const entry of await this.deps.bucket.list(prefix)) {
      if (!entry.endsWith('/')) continue;
      const name = entry.slice(prefix.length, -1);
      if (isCanonicalUlid(name)) out.push(name);
    }
    return out;
  }

  /** Old marks whose global copy still exists, then newly found ones (ULID order). */
  private async updateMarks(
    old: readonly BucketIndexDeletionMark[],
    global: readonly string[],
    existing: ReadonlySet<string>,
    signal: AbortSignal | undefined,
  ): Promise<BucketIndexDeletionMark[]> {
    const discovered = new Set(global.filter((b) => existing.has(b)));
    const out: BucketIndexDeletionMark[] = [];
    for (const m of old) {
      if (!discovered.delete(m.block_id)) continue;
      out.push(m);
    }
    for (const block of discovered) {
      throwIfAborted(signal);
      try {
        const mark = await readGlobalDeletionMark(this.deps.bucket, this.config.tenant, block);
        if (mark === undefined) {
          // Deleted between the listing and the read: the block is being deleted.
          this.logger.warn('skipped missing block deletion mark when updating bucket index', {
            block,
          });
          continue;
        }
        out.push({ block_id: block, deletion_time: mark.deletion_time });
      } catch (err) {
        if (!(err instanceof BucketDocumentError)) throw err;
        this.logger.error('skipped corrupted block deletion mark when updating bucket index', {
          block,
          err: err.message,
        });
      }
    }
    return out;
  }

  private async readBlock(block: string): Promise<BucketIndexBlock | PartialBlock> {
    const { bucket } = this.deps;
    const path = blockMetaPath(this.config.tenant, block);
    const data = await getIfExists(bucket, path);
    if (data === undefined) {
      this.logger.warn('skipped partial block when updating bucket index', { block });
      return this.missingMeta(block);
    }
    let entry: BucketIndexBlock;
    try {
      const meta = parseBlockMeta(new TextDecoder('utf-8', { fatal: true }).decode(data));
      if (meta.ulid !== block) {
        throw new Error(`ulid ${meta.ulid} does not match the block directory ${block}`);
      }
      entry = blockFromMeta(meta, 0);
    } catch (err) {
      const error = `${path}: ${(err as Error).message}`;
      this.logger.error('skipped block with corrupted meta.json when updating bucket index', {
        block,
        err: error,
      });
      return { block, reason: 'corrupted-meta', error, objects: [], lastModifiedMs: 0 };
    }
    try {
      // meta.json is uploaded last and never rewritten: its time is when the upload completed.
      const attrs = await bucket.attributes(path);
      entry.uploaded_at = Math.floor(attrs.lastModified / 1000);
    } catch (err) {
      // Deleted since the read: the block is being deleted, treat it as partial.
      if (!isObjectNotFound(err)) throw err;
      return this.missingMeta(block);
    }
    return entry;
  }

  private async missingMeta(block: string): Promise<PartialBlock> {
    const { bucket } = this.deps;
    const objects = await bucket.list(`${blockDir(this.config.tenant, block)}/`, {
      recursive: true,
    });
    let lastModifiedMs = 0;
    for (const name of objects) {
      try {
        lastModifiedMs = Math.max(lastModifiedMs, (await bucket.attributes(name)).lastModified);
      } catch (err) {
        if (!isObjectNotFound(err)) throw err;
      }
    }
    return { block, reason: 'missing-meta', objects, lastModifiedMs };
  }

  /** A deletion mark written only beside the block (older Cortex, Thanos tools). */
  private async readLegacyMark(block: string): Promise<BucketIndexDeletionMark | undefined> {
    try {
      const mark = await readDeletionMark(this.deps.bucket, this.config.tenant, block);
      return mark === undefined
        ? undefined
        : { block_id: block, deletion_time: mark.deletion_time };
    } catch (err) {
      if (!(err instanceof BucketDocumentError)) throw err;
      this.logger.error('skipped corrupted block deletion mark when updating bucket index', {
        block,
        err: err.message,
      });
      return undefined;
    }
  }
}
