/**
 * `<tenant>/bucket-index-sync-status.json` (Cortex `bucketindex.Status`): what the last
 * bucket index update of the tenant achieved, read by store-gateways and queriers to decide
 * whether the tenant is queryable. Field order and the `sync_ime` spelling are Cortex's.
 */
import type { Bucket } from '../runtime/index.js';
import { goMarshal, parseJsonObject } from './json_fields.js';
import { bucketIndexSyncStatusPath } from './layout.js';
import { deleteIfExists, getIfExists } from './markers.js';
import type { BucketIndexSyncStatus, BucketIndexSyncStatusCode } from './types.js';

export const SYNC_STATUS_VERSION_1 = 1;

const STATUS_CODES: readonly BucketIndexSyncStatusCode[] = [
  'Ok',
  'GenericError',
  'CustomerManagedKeyError',
  'Unknown',
];

/** What a missing or unreadable status file means (Cortex's UnknownStatus). */
export function unknownSyncStatus(): BucketIndexSyncStatus {
  return {
    version: SYNC_STATUS_VERSION_1,
    sync_ime: 0,
    status: 'Unknown',
    non_queryable_until: 0,
    non_queryable_reason: 'Unknown',
  };
}

export function serializeSyncStatus(status: BucketIndexSyncStatus): string {
  return goMarshal({
    sync_ime: status.sync_ime,
    version: status.version,
    status: status.status,
    non_queryable_until: status.non_queryable_until,
    non_queryable_reason: status.non_queryable_reason,
  });
}

export function parseSyncStatus(data: Uint8Array | string, file: string): BucketIndexSyncStatus {
  const r = parseJsonObject(data, file);
  const version = r.version('version', SYNC_STATUS_VERSION_1);
  const status = r.str('status');
  if (!(STATUS_CODES as readonly string[]).includes(status)) {
    r.fail('status', `must be one of ${STATUS_CODES.join(', ')}, got ${JSON.stringify(status)}`);
  }
  return {
    version,
    sync_ime: r.int('sync_ime'),
    status: status as BucketIndexSyncStatusCode,
    non_queryable_until: r.int('non_queryable_until'),
    non_queryable_reason: r.str('non_queryable_reason'),
  };
}

/**
 * The tenant's sync status; `unknownSyncStatus()` when the file does not exist. A file that
 * cannot be parsed rejects with a BucketDocumentError (Cortex returns Unknown plus the error).
 */
export async function readSyncStatus(
  bucket: Bucket,
  tenant: string,
): Promise<BucketIndexSyncStatus> {
  const path = bucketIndexSyncStatusPath(tenant);
  const data = await getIfExists(bucket, path);
  return data === undefined ? unknownSyncStatus() : parseSyncStatus(data, path);
}

export async function writeSyncStatus(
  bucket: Bucket,
  tenant: string,
  status: BucketIndexSyncStatus,
): Promise<void> {
  await bucket.upload(
    bucketIndexSyncStatusPath(tenant),
    new TextEncoder().encode(serializeSyncStatus(status)),
  );
}

/** Deletes the status file; a missing one is not an error. */
export async function deleteSyncStatus(bucket: Bucket, tenant: string): Promise<void> {
  await deleteIfExists(bucket, bucketIndexSyncStatusPath(tenant));
}
