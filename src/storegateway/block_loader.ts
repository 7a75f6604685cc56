/**
 * How the store layer reaches the block layer: per tenant, a loader that puts a block's
 * index-header on local disk and opens the block from it. The store layer decides when
 * (eagerly at sync, or on first query with lazy loading) and where
 * (`<sync_dir>/<tenant>/<block>/`); the loader owns the per-tenant chunk pool.
 */
import type { BlockMeta } from '../tsdb/index.js';
import type { LoadedBlock } from './block_api.js';

export interface TenantBlockLoader {
  /**
   * Makes sure `<dir>/index-header` exists and is readable, building it from the block's
   * index in the bucket only when it is not (a restart reuses the file). `dir` exists.
   */
  prepare(meta: BlockMeta, dir: string, signal?: AbortSignal): Promise<void>;
  /** Opens the block whose index-header is in `dir`. */
  open(meta: BlockMeta, dir: string, signal?: AbortSignal): Promise<LoadedBlock>;
  /** Releases what the tenant's blocks shared (the chunk pool); after every block closed. */
  close?(): Promise<void>;
}

export interface BlockLoaderOptions {
  /** `max_chunk_pool_bytes`: the tenant's chunk pool size. */
  readonly maxChunkPoolBytes: number;
}

/** One loader per tenant, so each tenant gets its own chunk pool (the reference's rule). */
export type BlockLoaderFactory = (tenant: string, options: BlockLoaderOptions) => TenantBlockLoader;

/** The file the block layer keeps in a block's local directory. */
export const INDEX_HEADER_FILE = 'index-header';
