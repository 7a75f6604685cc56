/**
 * Deleting and deletion-marking blocks, in the order that keeps every intermediate state
 * safe (Thanos `block.Delete` and `block.MarkForDeletion` through Cortex's mirroring):
 * meta.json goes first, so a half-deleted block is a partial block nobody loads; then every
 * other object; the deletion mark goes last, so a crash leaves a marked partial block that
 * the next cleanup finishes. Every step tolerates objects already gone, which makes a delete
 * idempotent and resumable.
 */
import { throwIfAborted, type Bucket, type Clock } from '../runtime/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';
import {
  DELETION_MARK_FILE,
  META_JSON,
  NO_COMPACT_MARK_FILE,
  blockDir,
  blockMetaPath,
  deletionMarkPath,
  globalDeletionMarkPath,
  globalNoCompactMarkPath,
} from './layout.js';
import {
  MARK_VERSION_1,
  deleteDeletionMark,
  deleteIfExists,
  getIfExists,
  writeDeletionMark,
} from './markers.js';
import type { DeletionMark } from './types.js';

/**
 * Refuses arguments that would widen the prefix being deleted (an empty tenant or block
 * would delete a whole tenant or the whole bucket).
 */
function checkBlockRef(tenant: string, block: string): void {
  if (tenant === '' || tenant.includes('/')) {
    throw new RangeError(`invalid tenant ${JSON.stringify(tenant)} for a block operation`);
  }
  if (!isCanonicalUlid(block)) {
    throw new RangeError(`invalid block ID ${JSON.stringify(block)}: not a canonical ULID`);
  }
}

/**
 * Deletes every object of a block: meta.json, then the rest (a no-compact mark with its
 * global copy), then both copies of the deletion mark. Safe to call again after a crash
 * at any point, and on a block that no longer exists.
 */
export async function deleteBlock(
  bucket: Bucket,
  tenant: string,
  block: string,
  signal?: AbortSignal,
): Promise<void> {
  checkBlockRef(tenant, block);
  await deleteIfExists(bucket, blockMetaPath(tenant, block));
  const dir = `${blockDir(tenant, block)}/`;
  for (const name of await bucket.list(dir, { recursive: true })) {
    throwIfAborted(signal);
    const rel = name.slice(dir.length);
    if (rel === META_JSON || rel === DELETION_MARK_FILE) continue;
    await deleteIfExists(bucket, name);
    if (rel === NO_COMPACT_MARK_FILE) {
      await deleteIfExists(bucket, globalNoCompactMarkPath(tenant, block));
    }
  }
  throwIfAborted(signal);
  await deleteDeletionMark(bucket, tenant, block);
}

/**
 * Marks a block for deletion now, writing both copies of the mark (global first). Returns
 * false when the block already carries a mark; a mark found only beside the block gets its
 * missing global copy, so the bucket index sees it.
 */
export async function markBlockForDeletion(
  bucket: Bucket,
  tenant: string,
  block: string,
  clock: Clock,
  details: string,
): Promise<boolean> {
  checkBlockRef(tenant, block);
  const existing = await getIfExists(bucket, deletionMarkPath(tenant, block));
  if (existing !== undefined) {
    const global = globalDeletionMarkPath(tenant, block);
    if (!(await bucket.exists(global))) await bucket.upload(global, existing);
    return false;
  }
  const mark: DeletionMark = {
    id: block,
    version: MARK_VERSION_1,
    deletion_time: Math.floor(clock.now() / 1000),
  };
  if (details !== '') mark.details = details;
  await writeDeletionMark(bucket, tenant, mark);
  return true;
}
