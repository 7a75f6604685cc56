/**
 * How a compaction fails, and what the loop does about it (Thanos's halt and retry errors,
 * Cortex's per-tenant retries): a halt stops the tenant for this run without retrying (the
 * same input would fail the same way); anything else is retried with backoff; a corrupt
 * source block is not a failure of the tenant at all once it is marked no-compact; a tenant
 * that moved to another compactor is abandoned, not failed.
 */

/** The tenant's compaction must stop for this run; retrying cannot help (Thanos HaltError). */
export class CompactionHaltError extends Error {
  override readonly name = 'CompactionHaltError';
}

/** Ownership moved to another compactor mid-run: stop, upload nothing more. */
export class TenantNotOwnedError extends Error {
  override readonly name = 'TenantNotOwnedError';
  constructor(readonly tenant: string) {
    super(`tenant ${tenant} is no longer owned by this compactor`);
  }
}

/** What verification found wrong with a downloaded source block. */
export type CorruptionKind = 'out-of-order-chunks' | 'corrupted';

/** A source block failed verification (its bytes were read fine: they are wrong). */
export class CorruptBlockError extends Error {
  override readonly name = 'CorruptBlockError';
  constructor(
    readonly block: string,
    readonly kind: CorruptionKind,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`block ${block}: ${message}`, options);
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
