/**
 * Block and tenant marks (Thanos `metadata` markers, Cortex's global markers bucket client
 * and tenant deletion mark). A block mark lives beside the block and, as Cortex mirrors it,
 * under `<tenant>/markers/<block>-<file>`: writes put the global copy first and the block's
 * copy second, deletes remove the block's copy first, so whatever a crash leaves behind is a
 * global copy the cleaner finds and finishes. JSON is Go's `json.Marshal` of the Go structs:
 * field order as declared, `details`/`finished_time` omitted when empty, no trailing newline.
 */
import { isObjectNotFound, type Bucket, type Clock } from '../runtime/index.js';
import { isCanonicalUlid } from '../tsdb/index.js';
import { goMarshal, parseJsonObject } from './json_fields.js';
import {
  DELETION_MARK_FILE,
  MARKERS_DIR,
  NO_COMPACT_MARK_FILE,
  deletionMarkPath,
  globalDeletionMarkPath,
  globalNoCompactMarkPath,
  legacyTenantDeletionMarkPath,
  noCompactMarkPath,
  tenantDeletionMarkPath,
} from './layout.js';
import type { DeletionMark, NoCompactMark, NoCompactReason, TenantDeletionMark } from './types.js';

/** The only version of deletion-mark.json and no-compact-mark.json (Thanos). */
export const MARK_VERSION_1 = 1;

const encoder = new TextEncoder();

export function serializeDeletionMark(mark: DeletionMark): string {
  const out: Record<string, unknown> = { id: mark.id, version: mark.version };
  if (mark.details !== undefined && mark.details !== '') out.details = mark.details;
  out.deletion_time = mark.deletion_time;
  return goMarshal(out);
}

export function parseDeletionMark(data: Uint8Array | string, file: string): DeletionMark {
  const r = parseJsonObject(data, file);
  const mark: DeletionMark = {
    id: r.ulid('id'),
    version: r.version('version', MARK_VERSION_1),
    deletion_time: r.int('deletion_time'),
  };
  const details = r.str('details');
  if (details !== '') mark.details = details;
  return mark;
}

export function serializeNoCompactMark(mark: NoCompactMark): string {
  const out: Record<string, unknown> = { id: mark.id, version: mark.version };
  if (mark.details !== undefined && mark.details !== '') out.details = mark.details;
  out.no_compact_time = mark.no_compact_time;
  out.reason = mark.reason;
  return goMarshal(out);
}

export function parseNoCompactMark(data: Uint8Array | string, file: string): NoCompactMark {
  const r = parseJsonObject(data, file);
  const mark: NoCompactMark = {
    id: r.ulid('id'),
    version: r.version('version', MARK_VERSION_1),
    no_compact_time: r.int('no_compact_time'),
    reason: r.str('reason'),
  };
  const details = r.str('details');
  if (details !== '') mark.details = details;
  return mark;
}

export function serializeTenantDeletionMark(mark: TenantDeletionMark): string {
  const out: Record<string, unknown> = { deletion_time: mark.deletion_time };
  if (mark.finished_time !== undefined && mark.finished_time !== 0) {
    out.finished_time = mark.finished_time;
  }
  return goMarshal(out);
}

export function parseTenantDeletionMark(
  data: Uint8Array | string,
  file: string,
): TenantDeletionMark {
  const r = parseJsonObject(data, file);
  const mark: TenantDeletionMark = { deletion_time: r.int('deletion_time') };
  const finished = r.int('finished_time');
  if (finished !== 0) mark.finished_time = finished;
  return mark;
}

/**
 * Deletes `name`; a missing object is not an error (resumed deletes meet them). The Bucket
 * contract already says so; this also holds for backends that still report it.
 */
export async function deleteIfExists(bucket: Bucket, name: string): Promise<void> {
  try {
    await bucket.delete(name);
  } catch (err) {
    if (!isObjectNotFound(err)) throw err;
  }
}

/** The object's bytes, or undefined when it does not exist. */
export async function getIfExists(bucket: Bucket, name: string): Promise<Uint8Array | undefined> {
  try {
    return await bucket.get(name);
  } catch (err) {
    if (isObjectNotFound(err)) return undefined;
    throw err;
  }
}

export type BlockMarkKind = 'deletion' | 'no-compact';

const MARK_FILES: Readonly<Record<BlockMarkKind, string>> = {
  deletion: DELETION_MARK_FILE,
  'no-compact': NO_COMPACT_MARK_FILE,
};

/**
 * The block ID of a global mark's base name (`<ULID>-deletion-mark.json`), or undefined when
 * the name is not a mark of that kind (Cortex's IsBlockDeletionMarkFilename).
 */
export function blockOfGlobalMark(baseName: string, kind: BlockMarkKind): string | undefined {
  const dash = baseName.indexOf('-');
  if (dash < 0 || baseName.slice(dash + 1) !== MARK_FILES[kind]) return undefined;
  const id = baseName.slice(0, dash);
  return isCanonicalUlid(id) ? id : undefined;
}

/** Block IDs with a global mark under `<tenant>/markers/`, sorted. */
export interface GlobalMarks {
  deletion: string[];
  noCompact: string[];
}

export async function listGlobalMarks(bucket: Bucket, tenant: string): Promise<GlobalMarks> {
  const names = await bucket.list(`${tenant}/${MARKERS_DIR}/`);
  const marks: GlobalMarks = { deletion: [], noCompact: [] };
  for (const name of names) {
    const base = name.slice(name.lastIndexOf('/') + 1);
    const deleted = blockOfGlobalMark(base, 'deletion');
    if (deleted !== undefined) marks.deletion.push(deleted);
    const noCompact = blockOfGlobalMark(base, 'no-compact');
    if (noCompact !== undefined) marks.noCompact.push(noCompact);
  }
  return marks;
}

/** The block's own deletion-mark.json (Thanos ReadMarker); undefined when absent. */
export async function readDeletionMark(
  bucket: Bucket,
  tenant: string,
  block: string,
): Promise<DeletionMark | undefined> {
  const path = deletionMarkPath(tenant, block);
  const data = await getIfExists(bucket, path);
  return data === undefined ? undefined : parseDeletionMark(data, path);
}

/** The global copy `<tenant>/markers/<block>-deletion-mark.json`; undefined when absent. */
export async function readGlobalDeletionMark(
  bucket: Bucket,
  tenant: string,
  block: string,
): Promise<DeletionMark | undefined> {
  const path = globalDeletionMarkPath(tenant, block);
  const data = await getIfExists(bucket, path);
  return data === undefined ? undefined : parseDeletionMark(data, path);
}

export async function readNoCompactMark(
  bucket: Bucket,
  tenant: string,
  block: string,
): Promise<NoCompactMark | undefined> {
  const path = noCompactMarkPath(tenant, block);
  const data = await getIfExists(bucket, path);
  return data === undefined ? undefined : parseNoCompactMark(data, path);
}

/** Writes both copies, global first (Cortex's globalMarkersBucket.Upload). */
export async function writeDeletionMark(
  bucket: Bucket,
  tenant: string,
  mark: DeletionMark,
): Promise<void> {
  const body = encoder.encode(serializeDeletionMark(mark));
  await bucket.upload(globalDeletionMarkPath(tenant, mark.id), body);
  await bucket.upload(deletionMarkPath(tenant, mark.id), body);
}

export async function writeNoCompactMark(
  bucket: Bucket,
  tenant: string,
  mark: NoCompactMark,
): Promise<void> {
  const body = encoder.encode(serializeNoCompactMark(mark));
  await bucket.upload(globalNoCompactMarkPath(tenant, mark.id), body);
  await bucket.upload(noCompactMarkPath(tenant, mark.id), body);
}

/** Removes both copies, the block's first; either may already be gone. */
export async function deleteDeletionMark(
  bucket: Bucket,
  tenant: string,
  block: string,
): Promise<void> {
  await deleteIfExists(bucket, deletionMarkPath(tenant, block));
  await deleteIfExists(bucket, globalDeletionMarkPath(tenant, block));
}

export async function deleteNoCompactMark(
  bucket: Bucket,
  tenant: string,
  block: string,
): Promise<void> {
  await deleteIfExists(bucket, noCompactMarkPath(tenant, block));
  await deleteIfExists(bucket, globalNoCompactMarkPath(tenant, block));
}

/**
 * Marks a block not to be compacted (Thanos MarkForNoCompact through Cortex's mirroring).
 * Returns false, writing nothing, when the block already carries the mark.
 */
export async function markBlockForNoCompact(
  bucket: Bucket,
  tenant: string,
  block: string,
  clock: Clock,
  reason: NoCompactReason,
  details: string,
): Promise<boolean> {
  if (await bucket.exists(noCompactMarkPath(tenant, block))) return false;
  const mark: NoCompactMark = {
    id: block,
    version: MARK_VERSION_1,
    no_compact_time: Math.floor(clock.now() / 1000),
    reason,
  };
  if (details !== '') mark.details = details;
  await writeNoCompactMark(bucket, tenant, mark);
  return true;
}

/**
 * Copies block deletion marks that exist only beside their block to the global location
 * (Cortex's MigrateBlockDeletionMarksToGlobalLocation, for buckets written before Cortex
 * mirrored marks, or by tools that write only the block's copy). Continues past errors and
 * returns the blocks migrated and the errors met.
 */
export async function migrateDeletionMarksToGlobal(
  bucket: Bucket,
  tenant: string,
  blocks: readonly string[],
): Promise<{ migrated: string[]; errors: Error[] }> {
  const migrated: string[] = [];
  const errors: Error[] = [];
  for (const block of blocks) {
    try {
      const data = await getIfExists(bucket, deletionMarkPath(tenant, block));
      if (data === undefined) continue;
      const global = globalDeletionMarkPath(tenant, block);
      if (await bucket.exists(global)) continue;
      await bucket.upload(global, data);
      migrated.push(block);
    } catch (err) {
      errors.push(err instanceof Error ? err : new Error(String(err)));
    }
  }
  return { migrated, errors };
}

/**
 * The tenant's deletion mark: the global `__markers__/<tenant>/` copy, else the legacy
 * `<tenant>/markers/` one older Cortex versions wrote; undefined when neither exists.
 */
export async function readTenantDeletionMark(
  bucket: Bucket,
  tenant: string,
): Promise<TenantDeletionMark | undefined> {
  for (const path of [tenantDeletionMarkPath(tenant), legacyTenantDeletionMarkPath(tenant)]) {
    const data = await getIfExists(bucket, path);
    if (data !== undefined) return parseTenantDeletionMark(data, path);
  }
  return undefined;
}

/** Writes the global tenant deletion mark (where Cortex writes it now). */
export async function writeTenantDeletionMark(
  bucket: Bucket,
  tenant: string,
  mark: TenantDeletionMark,
): Promise<void> {
  await bucket.upload(
    tenantDeletionMarkPath(tenant),
    encoder.encode(serializeTenantDeletionMark(mark)),
  );
}

export async function tenantDeletionMarkExists(bucket: Bucket, tenant: string): Promise<boolean> {
  if (await bucket.exists(tenantDeletionMarkPath(tenant))) return true;
  return bucket.exists(legacyTenantDeletionMarkPath(tenant));
}
