/**
 * The production block loader: the block layer's `ensureIndexHeader` and `openBucketBlock`
 * behind the store layer's TenantBlockLoader, with one ChunkPool per tenant. `prepare` keeps
 * a readable index-header already on disk, so a restarted gateway downloads no index
 * sections again, and rebuilds a missing or damaged one.
 */
import type { Bucket, Clock, FileSystem, Logger } from '../runtime/index.js';
import type { BlockLoaderFactory, TenantBlockLoader } from './block_loader.js';
import { INDEX_HEADER_FILE } from './block_loader.js';
import { openBucketBlock } from './bucket_block.js';
import { ChunkPool } from './chunk_pool.js';
import { ensureIndexHeader } from './index_header_reader.js';
import type { IndexCache } from './index_cache.js';

export interface BucketBlockLoaderDeps {
  bucket: Bucket;
  fs: FileSystem;
  clock: Clock;
  logger: Logger;
  /** The index cache shared by all tenants' blocks, when one is configured. */
  indexCache?: IndexCache;
}

export function bucketBlockLoader(deps: BucketBlockLoaderDeps): BlockLoaderFactory {
  return (tenant, options): TenantBlockLoader => {
    const chunkPool = new ChunkPool({ maxBytes: options.maxChunkPoolBytes, tenant });
    const headerPath = (dir: string): string => `${dir}/${INDEX_HEADER_FILE}`;
    return {
      async prepare(meta, dir, signal) {
        const result = await ensureIndexHeader({
          bucket: deps.bucket,
          fs: deps.fs,
          tenant,
          blockId: meta.ulid,
          path: headerPath(dir),
          ...(signal === undefined ? {} : { signal }),
        });
        if (result !== undefined)
          deps.logger.debug('built index-header', {
            tenant,
            block: meta.ulid,
            reason: result.reason,
            header_bytes: result.built.headerBytes,
            index_bytes: result.built.indexBytes,
            bucket_requests: result.built.bucketRequests,
          });
      },
      open(meta, dir, signal) {
        return openBucketBlock({
          tenant,
          meta,
          bucket: deps.bucket,
          fs: deps.fs,
          headerPath: headerPath(dir),
          clock: deps.clock,
          chunkPool,
          ...(signal === undefined ? {} : { signal }),
          ...(deps.indexCache === undefined ? {} : { indexCache: deps.indexCache }),
          onHeaderBuilt: (_result, reason) =>
            deps.logger.warn('rebuilt an unreadable index-header', {
              tenant,
              block: meta.ulid,
              reason,
            }),
        });
      },
    };
  };
}
