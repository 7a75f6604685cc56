// Closing and deleting one tenant's database (the mechanics of Cortex's
// closeAndDeleteUserTSDBIfIdle; idle_tsdbs.ts decides when). The tenant's pushes are refused
// from the moment closing starts ("TSDB is closing", 503 as in Cortex) until the tenant is
// forgotten; pushes and head compactions already under way finish first.
import type { FileSystem, Logger } from '../runtime/index.js';
import { UnavailableError } from '../server/index.js';

/** What closing and removing a tenant's database did. */
export type TenantRemoval =
  | 'removed'
  /** No open database, or one already being closed. */
  | 'not_active'
  /** The check run again once in-flight pushes settled said no: the database stays. */
  | 'declined'
  /** Closing the database failed; it stays open (Cortex returns it to active). */
  | 'close_failed'
  /** Closed and forgotten, but its directory could not be deleted (logged). */
  | 'data_removal_failed';

/**
 * Data directories of removed tenants are renamed to this prefix before they are deleted, so
 * a crash mid-delete leaves nothing that opens as a tenant (`~` is in no valid tenant ID);
 * the next start finishes the delete.
 */
export const REMOVED_TENANT_DIR_PREFIX = '~deleting-';

/** The part of a tenant's state removal works on. */
export interface RemovableTenant {
  readonly db: { close(): Promise<void> };
  /** Set by the caller before the removal starts; pushes check it. */
  closing: boolean;
  /** Pushes and head compactions under way. */
  readonly busy: Set<Promise<unknown>>;
}

export interface RemovalDeps {
  readonly fs: FileSystem;
  /** The data directory holding `<tenant>/`. */
  readonly root: string;
  readonly logger: Logger;
  /** Drops the tenant from the open databases (its next push creates a new one). */
  readonly forget: () => void;
}

/**
 * Waits for the tenant's pushes and compactions, asks `stillWanted` again (things may have
 * changed meanwhile; the tenant reads as open during that synchronous call), then closes the
 * database, deletes its directory and forgets the tenant. Forgetting comes last, so a push
 * meanwhile is refused rather than opening the directory going away.
 */
export async function removeTenantDatabase(
  tenant: string,
  state: RemovableTenant,
  stillWanted: () => boolean,
  deps: RemovalDeps,
): Promise<TenantRemoval> {
  while (state.busy.size > 0) await Promise.allSettled([...state.busy]);
  state.closing = false;
  const wanted = stillWanted();
  if (!wanted) return 'declined';
  state.closing = true;
  try {
    await state.db.close();
  } catch (err) {
    state.closing = false;
    deps.logger.error('failed to close idle TSDB', { tenant, err: String(err) });
    return 'close_failed';
  }
  deps.logger.info('closed idle TSDB', { tenant });
  const { fs, root } = deps;
  const doomed = `${root}/${REMOVED_TENANT_DIR_PREFIX}${tenant}`;
  try {
    // Left over from a removal that failed before: a rename does not replace a full directory.
    if (await fs.exists(doomed)) await fs.remove(doomed, { recursive: true });
    await fs.rename(`${root}/${tenant}`, doomed);
    await fs.syncDir(root);
    await fs.remove(doomed, { recursive: true });
    return 'removed';
  } catch (err) {
    deps.logger.error('failed to delete local TSDB', { tenant, err: String(err) });
    return 'data_removal_failed';
  } finally {
    deps.forget();
  }
}

/** Cortex's answer to a push while the tenant's database is being closed (503, retried). */
export function closingError(tenant: string): UnavailableError {
  return new UnavailableError(`user=${tenant}: TSDB is closing`);
}

/** Adds `run` to `busy` until it settles; returns it. */
export function track<T>(busy: Set<Promise<unknown>>, run: Promise<T>): Promise<T> {
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  busy.add(settled);
  void settled.then(() => busy.delete(settled));
  return run;
}
