/**
 * What a CachingBucket caches, per bucket operation (Thanos's CachingBucketConfig): named
 * configurations, each with a name matcher, a cache and TTLs. The first configuration whose
 * matcher accepts an object name (or directory) serves it; names nothing matches go straight
 * to the bucket. `cortexCachingBucketConfig` sets it up as Cortex's CreateCachingBucket does.
 */
import type { ChunksCacheConfig, MetadataCacheConfig } from '../config/index.js';
import type { Cache } from '../runtime/index.js';

interface OperationConfig {
  /** Labels the `config` of the metrics, e.g. `chunks`, `metafile`, `tenants-iter`. */
  readonly name: string;
  readonly cache: Cache;
  readonly matches: (name: string) => boolean;
}

export interface IterConfig extends OperationConfig {
  readonly ttlMs: number;
  /** Part of the key (Thanos: the object store config's hash; Cortex passes ''). */
  readonly configHash: string;
}

export interface ExistsConfig extends OperationConfig {
  readonly existsTtlMs: number;
  readonly doesntExistTtlMs: number;
}

export interface GetConfig extends ExistsConfig {
  readonly contentTtlMs: number;
  /** Larger contents are not cached. */
  readonly maxCacheableSize: number;
}

export interface GetRangeConfig extends OperationConfig {
  readonly subrangeSize: number;
  /** Bucket requests one getRange may issue; ≤ 0 = unlimited (adjacent ones still merge). */
  readonly maxSubRequests: number;
  readonly attributesTtlMs: number;
  readonly subrangeTtlMs: number;
}

export interface AttributesConfig extends OperationConfig {
  readonly ttlMs: number;
}

export class CachingBucketConfig {
  readonly iter: IterConfig[] = [];
  readonly exists: ExistsConfig[] = [];
  readonly get: GetConfig[] = [];
  readonly getRange: GetRangeConfig[] = [];
  readonly attributes: AttributesConfig[] = [];

  /** True when no operation is cached (the bucket need not be wrapped). */
  get empty(): boolean {
    return (
      this.iter.length +
        this.exists.length +
        this.get.length +
        this.getRange.length +
        this.attributes.length ===
      0
    );
  }

  // A TTL ≤ 0 disables the item type (Cortex's documented rule), so such configs are skipped.

  cacheIter(c: IterConfig): this {
    if (c.ttlMs > 0) this.iter.push(c);
    return this;
  }

  cacheExists(c: ExistsConfig): this {
    if (c.existsTtlMs > 0 || c.doesntExistTtlMs > 0) this.exists.push(c);
    return this;
  }

  cacheGet(c: GetConfig): this {
    if (c.contentTtlMs > 0 || c.existsTtlMs > 0 || c.doesntExistTtlMs > 0) this.get.push(c);
    return this;
  }

  cacheGetRange(c: GetRangeConfig): this {
    if (c.subrangeTtlMs > 0 && c.subrangeSize > 0) this.getRange.push(c);
    return this;
  }

  cacheAttributes(c: AttributesConfig): this {
    if (c.ttlMs > 0) this.attributes.push(c);
    return this;
  }
}

export function findConfig<C extends OperationConfig>(
  configs: readonly C[],
  name: string,
): C | undefined {
  return configs.find((c) => c.matches(name));
}

// Cortex's name matchers (pkg/storage/tsdb/caching_bucket.go).
const CHUNK_FILE = /^.*\/chunks\/\d+$/;
const TENANT_DIR = /^[^/]+\/?$/;
const BLOCK_ID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export const cortexMatchers = {
  chunks: (name: string): boolean => CHUNK_FILE.test(name),
  metafile: (name: string): boolean =>
    name.endsWith('/meta.json') ||
    name.endsWith('/deletion-mark.json') ||
    name.endsWith('/tenant-deletion-mark.json'),
  /** `<block>/index`, the block ID a valid ULID. */
  blockIndex: (name: string): boolean => {
    if (!name.endsWith('/index')) return false;
    const parts = name.split('/');
    return parts.length >= 2 && BLOCK_ID.test((parts[parts.length - 2] as string).toUpperCase());
  },
  bucketIndex: (name: string): boolean =>
    name.endsWith('/bucket-index.json.gz') || name.endsWith('/bucket-index-sync-status.json'),
  tenantsDir: (name: string): boolean => name === '',
  tenantBlocksDir: (name: string): boolean => TENANT_DIR.test(name),
  chunksDir: (name: string): boolean => name.endsWith('/chunks'),
};

/** Cortex's defaults for the metadata items Strata's reference has no settings for. */
export const METAFILE_ATTRIBUTES_TTL_MS = 168 * 3600 * 1000;
export const BLOCK_INDEX_ATTRIBUTES_TTL_MS = 168 * 3600 * 1000;
export const BUCKET_INDEX_CONTENT_TTL_MS = 5 * 60 * 1000;
export const BUCKET_INDEX_MAX_SIZE_BYTES = 1024 * 1024;

/**
 * Cortex's caching of the blocks bucket: chunk segments by sub-range (chunks cache), and the
 * listings, meta files and bucket index (metadata cache). Either cache may be absent.
 *
 * `forCompactor` follows Cortex's CreateCachingBucketForCompactor for a cleaner, since
 * Strata's compactor also cleans and writes the bucket index: only the tenants list, meta file
 * attributes and meta file contents are cached, never whether a file exists, never the block
 * deletion marks or block lists it changes itself.
 */
export function cortexCachingBucketConfig(opts: {
  chunks?: { config: ChunksCacheConfig; cache: Cache };
  metadata?: { config: MetadataCacheConfig; cache: Cache };
  forCompactor?: boolean;
}): CachingBucketConfig {
  const cfg = new CachingBucketConfig();
  if (opts.chunks !== undefined) {
    const { config: c, cache } = opts.chunks;
    cfg.cacheGetRange({
      name: 'chunks',
      cache,
      matches: cortexMatchers.chunks,
      subrangeSize: c.subrange_size,
      maxSubRequests: c.max_get_range_requests,
      attributesTtlMs: c.attributes_ttl,
      subrangeTtlMs: c.subrange_ttl,
    });
  }
  if (opts.metadata === undefined) return cfg;
  const { config: m, cache } = opts.metadata;
  const iter = (name: string, matches: (n: string) => boolean, ttlMs: number): void => {
    cfg.cacheIter({ name, cache, matches, ttlMs, configHash: '' });
  };
  const compactor = opts.forCompactor === true;
  const metafile = compactor
    ? (name: string): boolean =>
        name.endsWith('/meta.json') || name.endsWith('/tenant-deletion-mark.json')
    : cortexMatchers.metafile;
  iter('tenants-iter', cortexMatchers.tenantsDir, m.tenants_list_ttl);
  cfg.cacheAttributes({
    name: 'metafile',
    cache,
    matches: metafile,
    ttlMs: METAFILE_ATTRIBUTES_TTL_MS,
  });
  const exists = {
    cache,
    matches: metafile,
    existsTtlMs: compactor ? 0 : m.metafile_exists_ttl,
    doesntExistTtlMs: compactor ? 0 : m.metafile_doesnt_exist_ttl,
  };
  cfg.cacheGet({
    name: 'metafile',
    ...exists,
    contentTtlMs: m.metafile_content_ttl,
    maxCacheableSize: m.metafile_max_size_bytes,
  });
  if (compactor) return cfg;
  cfg.cacheExists({ name: 'metafile', ...exists });
  cfg.cacheAttributes({
    name: 'block-index',
    cache,
    matches: cortexMatchers.blockIndex,
    ttlMs: BLOCK_INDEX_ATTRIBUTES_TTL_MS,
  });
  cfg.cacheGet({
    name: 'bucket-index',
    cache,
    matches: cortexMatchers.bucketIndex,
    // Cortex caches the bucket index's content only, never whether it exists.
    existsTtlMs: 0,
    doesntExistTtlMs: 0,
    contentTtlMs: BUCKET_INDEX_CONTENT_TTL_MS,
    maxCacheableSize: BUCKET_INDEX_MAX_SIZE_BYTES,
  });
  iter('tenant-blocks-iter', cortexMatchers.tenantBlocksDir, m.tenant_blocks_list_ttl);
  iter('chunks-iter', cortexMatchers.chunksDir, m.chunks_list_ttl);
  return cfg;
}
