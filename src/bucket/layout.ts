/**
 * Where things live in a blocks bucket, exactly as Cortex lays them out (so either system
 * reads the other's bucket): `<tenant>/<block>/{chunks/NNNNNN,index,meta.json}`, block marks
 * beside the block and mirrored under `<tenant>/markers/`, the tenant's bucket index, and the
 * global tenant-deletion marks under `__markers__/`. Pure path arithmetic: no IO here.
 */

export const META_JSON = 'meta.json';
export const INDEX_FILE = 'index';
export const CHUNKS_DIR = 'chunks';
export const DELETION_MARK_FILE = 'deletion-mark.json';
export const NO_COMPACT_MARK_FILE = 'no-compact-mark.json';
export const MARKERS_DIR = 'markers';
export const GLOBAL_MARKERS_DIR = '__markers__';
export const TENANT_DELETION_MARK_FILE = 'tenant-deletion-mark.json';
export const BUCKET_INDEX_FILE = 'bucket-index.json';
export const BUCKET_INDEX_GZ_FILE = 'bucket-index.json.gz';
export const BUCKET_INDEX_SYNC_STATUS_FILE = 'bucket-index-sync-status.json';
export const USER_INDEX_FILE = 'user-index.json.gz';
/** The ingester's local record of shipped blocks, in `<tsdb dir>/<tenant>/`. */
export const SHIPPER_META_FILE = 'thanos.shipper.json';

/** `<tenant>/<block>` */
export function blockDir(tenant: string, block: string): string {
  return `${tenant}/${block}`;
}

/** `<tenant>/<block>/meta.json` */
export function blockMetaPath(tenant: string, block: string): string {
  return `${tenant}/${block}/${META_JSON}`;
}

/** `<tenant>/<block>/index` */
export function blockIndexPath(tenant: string, block: string): string {
  return `${tenant}/${block}/${INDEX_FILE}`;
}

/** `<tenant>/<block>/chunks/000001` for segment 1 (segments are numbered from 1, six digits). */
export function blockChunkPath(tenant: string, block: string, segment: number): string {
  return `${tenant}/${block}/${CHUNKS_DIR}/${String(segment).padStart(6, '0')}`;
}

/** `<tenant>/<block>/deletion-mark.json` */
export function deletionMarkPath(tenant: string, block: string): string {
  return `${tenant}/${block}/${DELETION_MARK_FILE}`;
}

/** `<tenant>/markers/<block>-deletion-mark.json` (Cortex's global marker copy). */
export function globalDeletionMarkPath(tenant: string, block: string): string {
  return `${tenant}/${MARKERS_DIR}/${block}-${DELETION_MARK_FILE}`;
}

/** `<tenant>/<block>/no-compact-mark.json` */
export function noCompactMarkPath(tenant: string, block: string): string {
  return `${tenant}/${block}/${NO_COMPACT_MARK_FILE}`;
}

/** `<tenant>/markers/<block>-no-compact-mark.json` */
export function globalNoCompactMarkPath(tenant: string, block: string): string {
  return `${tenant}/${MARKERS_DIR}/${block}-${NO_COMPACT_MARK_FILE}`;
}

/** `__markers__/<tenant>/tenant-deletion-mark.json` */
export function tenantDeletionMarkPath(tenant: string): string {
  return `${GLOBAL_MARKERS_DIR}/${tenant}/${TENANT_DELETION_MARK_FILE}`;
}

/** `<tenant>/markers/tenant-deletion-mark.json`: where older Cortex versions wrote it (read fallback). */
export function legacyTenantDeletionMarkPath(tenant: string): string {
  return `${tenant}/${MARKERS_DIR}/${TENANT_DELETION_MARK_FILE}`;
}

/** `<tenant>/bucket-index.json.gz` */
export function bucketIndexPath(tenant: string): string {
  return `${tenant}/${BUCKET_INDEX_GZ_FILE}`;
}

/** `<tenant>/bucket-index-sync-status.json` */
export function bucketIndexSyncStatusPath(tenant: string): string {
  return `${tenant}/${BUCKET_INDEX_SYNC_STATUS_FILE}`;
}
