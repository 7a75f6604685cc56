/**
 * Definition table, storage part: the `tsdb` block of the reference (blocks storage, bucket
 * store, its three caches and the object-store backends), following the reference's tables
 * literally. The reference's neutral names (bucketa/bucketb/bucketc, mcache) are accepted as
 * aliases of the real ones (s3/gcs/azure, memcached) for values, YAML keys and flag segments.
 */
import { block, choices, segmentFlags, setting } from './definition.js';
import { HOUR, MINUTE, MS } from './time_units.js';

export const BUCKET_BACKENDS = choices(['s3', 'gcs', 'azure', 'filesystem'], {
  bucketa: 's3',
  bucketb: 'gcs',
  bucketc: 'azure',
});
export const INDEX_CACHE_BACKENDS = choices(['inmemory', 'memcached'], { mcache: 'memcached' });
/** Chunks and metadata caches: empty means disabled. */
export const OPTIONAL_CACHE_BACKENDS = choices(['', 'memcached'], { mcache: 'memcached' });

const TSDB = 'experimental.tsdb.';
const BUCKET_STORE = `${TSDB}bucket-store.`;

/** The memcached client block shared by the three caches; `prefix` is the cache's flag prefix. */
function memcachedClient(prefix: string) {
  const f = (suffix: string) => segmentFlags(prefix, 'memcached', 'mcache', suffix);
  return block(
    'Memcached client of this cache (also accepted as `mcache`). Entries are sharded over the servers by jump hash.',
    {
      addresses: setting('string', '', {
        ...f('addresses'),
        help: 'Comma separated list of memcached addresses. Supported prefixes are: dns+ (looked up as an A/AAAA query), dnssrv+ (looked up as a SRV query), dnssrvnoa+ (looked up as a SRV query, with no A/AAAA lookup made after that). Servers must not sit behind a load balancer; add or remove servers at the end of the list.',
      }),
      timeout: setting('duration', 100 * MS, {
        ...f('timeout'),
        help: 'The socket read/write timeout.',
      }),
      max_idle_connections: setting('int', 16, {
        ...f('max-idle-connections'),
        help: 'The maximum number of idle connections that will be maintained per address.',
      }),
      max_async_concurrency: setting('int', 50, {
        ...f('max-async-concurrency'),
        help: 'The maximum number of concurrent asynchronous operations can occur.',
      }),
      max_async_buffer_size: setting('int', 10000, {
        ...f('max-async-buffer-size'),
        help: 'The maximum number of enqueued asynchronous operations allowed.',
      }),
      max_get_multi_concurrency: setting('int', 100, {
        ...f('max-get-multi-concurrency'),
        help: 'The maximum number of concurrent connections running get operations. If set to 0, concurrency is unlimited.',
      }),
      max_get_multi_batch_size: setting('int', 0, {
        ...f('max-get-multi-batch-size'),
        help: 'The maximum number of keys a single underlying get operation should run. If more keys are specified, internally keys are split into multiple batches and fetched concurrently, honoring the max concurrency. If set to 0, the max batch size is unlimited.',
      }),
      max_item_size: setting('int', 1048576, {
        ...f('max-item-size'),
        help: 'The maximum size of an item stored in memcached, in bytes. Bigger items are not stored. If set to 0, no maximum size is enforced.',
      }),
    },
    { yamlAliases: ['mcache'] },
  );
}

const indexCache = block('Index cache: postings and series lookups.', {
  backend: setting('string', 'inmemory', {
    flag: `${BUCKET_STORE}index-cache.backend`,
    help: 'The index cache backend type. inmemory has no latency but uses querier memory and is not shared; memcached scales beyond one node and is shared between queriers, with higher latency.',
    choices: INDEX_CACHE_BACKENDS,
  }),
  inmemory: block('In-memory index cache.', {
    max_size_bytes: setting('int', 1073741824, {
      flag: `${BUCKET_STORE}index-cache.inmemory.max-size-bytes`,
      help: 'Maximum size in bytes of in-memory index cache used to speed up blocks index lookups (shared between all tenants).',
    }),
  }),
  memcached: memcachedClient(`${BUCKET_STORE}index-cache.`),
  postings_compression_enabled: setting('bool', false, {
    flag: `${BUCKET_STORE}index-cache.postings-compression-enabled`,
    help: 'Compress postings before storing them to postings cache.',
  }),
});

const chunksCache = block(
  'Chunks cache: chunks fetched from storage, reused for the same series and time range.',
  {
    backend: setting('string', '', {
      flag: `${BUCKET_STORE}chunks-cache.backend`,
      help: 'Backend for chunks cache; empty disables it.',
      choices: OPTIONAL_CACHE_BACKENDS,
    }),
    memcached: memcachedClient(`${BUCKET_STORE}chunks-cache.`),
    subrange_size: setting('int', 16000, {
      flag: `${BUCKET_STORE}chunks-cache.subrange-size`,
      help: 'Size of each subrange that bucket object is split into for better caching.',
    }),
    max_get_range_requests: setting('int', 3, {
      flag: `${BUCKET_STORE}chunks-cache.max-get-range-requests`,
      help: 'Maximum number of sub-GetRange requests that a single GetRange request can be split into when fetching chunks. Zero or negative value = unlimited number of sub-requests.',
    }),
    attributes_ttl: setting('duration', 24 * HOUR, {
      flag: `${BUCKET_STORE}chunks-cache.attributes-ttl`,
      help: 'TTL for caching object attributes for chunks.',
    }),
    subrange_ttl: setting('duration', 24 * HOUR, {
      flag: `${BUCKET_STORE}chunks-cache.subrange-ttl`,
      help: 'TTL for caching individual chunks subranges.',
    }),
  },
);

const METADATA = `${BUCKET_STORE}metadata-cache.`;
const metadataCache = block(
  'Metadata cache: tenant lists, block lists, meta files and deletion marks. A TTL of zero or less disables caching of that item type.',
  {
    backend: setting('string', '', {
      flag: `${METADATA}backend`,
      help: 'Backend for metadata cache; empty disables it.',
      choices: OPTIONAL_CACHE_BACKENDS,
    }),
    memcached: memcachedClient(METADATA),
    tenants_list_ttl: setting('duration', 15 * MINUTE, {
      flag: `${METADATA}tenants-list-ttl`,
      help: 'How long to cache list of tenants in the bucket.',
    }),
    tenant_blocks_list_ttl: setting('duration', 15 * MINUTE, {
      flag: `${METADATA}tenant-blocks-list-ttl`,
      help: 'How long to cache list of blocks for each tenant.',
    }),
    chunks_list_ttl: setting('duration', 24 * HOUR, {
      flag: `${METADATA}chunks-list-ttl`,
      help: 'How long to cache list of chunks for a block.',
    }),
    metafile_exists_ttl: setting('duration', 2 * HOUR, {
      flag: `${METADATA}metafile-exists-ttl`,
      help: 'How long to cache information that block metafile exists.',
    }),
    metafile_doesnt_exist_ttl: setting('duration', 15 * MINUTE, {
      flag: `${METADATA}metafile-doesnt-exist-ttl`,
      help: "How long to cache information that block metafile doesn't exist.",
    }),
    metafile_content_ttl: setting('duration', 24 * HOUR, {
      flag: `${METADATA}metafile-content-ttl`,
      help: 'How long to cache content of the metafile.',
    }),
    metafile_max_size_bytes: setting('int', 1048576, {
      flag: `${METADATA}metafile-max-size-bytes`,
      help: 'Maximum size of metafile content to cache in bytes.',
    }),
  },
);

const bucketStore = block('How queriers and store-gateways read blocks from the bucket.', {
  sync_dir: setting('string', 'tsdb-sync', {
    flag: `${BUCKET_STORE}sync-dir`,
    help: 'Directory to store synchronized TSDB index headers.',
  }),
  sync_interval: setting('duration', 5 * MINUTE, {
    flag: `${BUCKET_STORE}sync-interval`,
    help: 'How frequently scan the bucket to look for changes (new blocks shipped by ingesters and blocks removed by retention or compaction). 0 disables it.',
  }),
  max_chunk_pool_bytes: setting('int', 2147483648, {
    flag: `${BUCKET_STORE}max-chunk-pool-bytes`,
    help: 'Max size - in bytes - of a per-tenant chunk pool, used to reduce memory allocations.',
  }),
  max_sample_count: setting('int', 0, {
    flag: `${BUCKET_STORE}max-sample-count`,
    help: 'Max number of samples per query when loading series from the long-term storage. 0 disables the limit.',
  }),
  max_concurrent: setting('int', 20, {
    flag: `${BUCKET_STORE}max-concurrent`,
    help: 'Max number of concurrent queries to execute against the long-term storage on a per-tenant basis.',
  }),
  tenant_sync_concurrency: setting('int', 10, {
    flag: `${BUCKET_STORE}tenant-sync-concurrency`,
    help: 'Maximum number of concurrent tenants synching blocks.',
  }),
  block_sync_concurrency: setting('int', 20, {
    flag: `${BUCKET_STORE}block-sync-concurrency`,
    help: 'Maximum number of concurrent blocks synching per tenant.',
  }),
  meta_sync_concurrency: setting('int', 20, {
    flag: `${BUCKET_STORE}meta-sync-concurrency`,
    help: 'Number of workers to use when syncing block meta files from object storage per tenant.',
  }),
  consistency_delay: setting('duration', 0, {
    flag: `${BUCKET_STORE}consistency-delay`,
    help: "Minimum age of a block before it's being read. Set it to safe value (e.g 30m) if your object storage is eventually consistent.",
  }),
  index_cache: indexCache,
  chunks_cache: chunksCache,
  metadata_cache: metadataCache,
  ignore_deletion_mark_delay: setting('duration', 6 * HOUR, {
    // The reference spells this flag with a plural "marks"; reproduced literally.
    flag: `${BUCKET_STORE}ignore-deletion-marks-delay`,
    help: 'Duration after which the blocks marked for deletion will be filtered out while fetching blocks. The idea of ignore-deletion-marks-delay is to ignore blocks that are marked for deletion with some delay. This ensures store can still serve blocks that are meant to be deleted but do not have a replacement yet. Default is 6h, half of the default value for -compactor.deletion-delay.',
  }),
  bucket_index: block(
    'The per-tenant bucket index the compactor keeps and queriers and store-gateways read.',
    {
      enabled: setting('bool', true, {
        flag: `${BUCKET_STORE}bucket-index.enabled`,
        help: 'True to enable querier and store-gateway to discover blocks in the storage via bucket index instead of bucket scanning.',
      }),
      update_on_error_interval: setting('duration', 1 * MINUTE, {
        flag: `${BUCKET_STORE}bucket-index.update-on-error-interval`,
        help: 'How frequently a bucket index, which previously failed to load, should be tried to load again. This option is used only by querier.',
      }),
      idle_timeout: setting('duration', 1 * HOUR, {
        flag: `${BUCKET_STORE}bucket-index.idle-timeout`,
        help: 'How long a unused bucket index should be cached. Once this timeout expires, the unused bucket index is removed from the in-memory cache. This option is used only by querier.',
      }),
      max_stale_period: setting('duration', 1 * HOUR, {
        flag: `${BUCKET_STORE}bucket-index.max-stale-period`,
        help: 'The maximum allowed age of a bucket index (last updated) before queries start failing because the bucket index is too old. The bucket index is periodically updated by the compactor, while this check is enforced in the querier (at query time).',
      }),
    },
  ),
  index_header_lazy_loading_enabled: setting('bool', false, {
    flag: `${BUCKET_STORE}index-header-lazy-loading-enabled`,
    help: 'If enabled, store-gateway will lazy load an index-header only once required by a query.',
  }),
  index_header_lazy_loading_idle_timeout: setting('duration', 20 * MINUTE, {
    flag: `${BUCKET_STORE}index-header-lazy-loading-idle-timeout`,
    help: "If index-header lazy loading is enabled and this setting is > 0, the store-gateway will offload unused index-headers after 'idle timeout' inactivity.",
  }),
});

function objectStoreFlag(segment: string, neutral: string, suffix: string) {
  return segmentFlags(TSDB, segment, neutral, suffix);
}

const s3 = block(
  'S3 (and S3-compatible, e.g. MinIO) bucket; the reference calls it `bucketa`.',
  {
    endpoint: setting('string', '', {
      ...objectStoreFlag('s3', 'bucketa', 'endpoint'),
      help: 'S3 endpoint without schema.',
    }),
    bucket_name: setting('string', '', {
      ...objectStoreFlag('s3', 'bucketa', 'bucket-name'),
      help: 'S3 bucket name.',
    }),
    secret_access_key: setting('string', '', {
      ...objectStoreFlag('s3', 'bucketa', 'secret-access-key'),
      help: 'S3 secret access key.',
      secret: true,
    }),
    access_key_id: setting('string', '', {
      ...objectStoreFlag('s3', 'bucketa', 'access-key-id'),
      help: 'S3 access key ID.',
    }),
    insecure: setting('bool', false, {
      ...objectStoreFlag('s3', 'bucketa', 'insecure'),
      help: 'If enabled, use http:// for the S3 endpoint instead of https://. This could be useful in local dev/test environments while using an S3-compatible backend storage, like MinIO.',
    }),
  },
  { yamlAliases: ['bucketa'] },
);

const gcs = block(
  'Google Cloud Storage bucket; the reference calls it `bucketb`.',
  {
    bucket_name: setting('string', '', {
      ...objectStoreFlag('gcs', 'bucketb', 'bucket-name'),
      help: 'GCS bucket name.',
    }),
    service_account: setting('string', '', {
      ...objectStoreFlag('gcs', 'bucketb', 'service-account'),
      help: 'JSON representing either a Google Developers Console client_credentials.json file or a Google Developers service account key file. If empty, fallback to Google default logic.',
      secret: true,
    }),
  },
  { yamlAliases: ['bucketb'] },
);

const azure = block(
  'Azure Blob Storage container; the reference calls it `bucketc`.',
  {
    account_name: setting('string', '', {
      ...objectStoreFlag('azure', 'bucketc', 'account-name'),
      help: 'Azure storage account name.',
    }),
    account_key: setting('string', '', {
      ...objectStoreFlag('azure', 'bucketc', 'account-key'),
      help: 'Azure storage account key.',
      secret: true,
    }),
    container_name: setting('string', '', {
      ...objectStoreFlag('azure', 'bucketc', 'container-name'),
      help: 'Azure storage container name.',
    }),
    endpoint_suffix: setting('string', '', {
      ...objectStoreFlag('azure', 'bucketc', 'endpoint-suffix'),
      help: 'Azure storage endpoint suffix without schema. The account name will be prefixed to this value to create the FQDN.',
    }),
    max_retries: setting('int', 20, {
      ...objectStoreFlag('azure', 'bucketc', 'max-retries'),
      help: 'Number of retries for recoverable errors.',
    }),
  },
  { yamlAliases: ['bucketc'] },
);

const filesystem = block('Local filesystem bucket (single node only).', {
  dir: setting('string', '', {
    flag: `${TSDB}filesystem.dir`,
    help: 'Local filesystem storage directory.',
  }),
});

export const tsdbBlock = block(
  'Blocks storage: the per-tenant TSDBs of the ingesters and the bucket they ship to.',
  {
    dir: setting('string', 'tsdb', {
      flag: `${TSDB}dir`,
      help: 'Local directory to store TSDBs in the ingesters.',
    }),
    block_ranges_period: setting('durationList', [2 * HOUR], {
      flag: `${TSDB}block-ranges-period`,
      help: 'TSDB blocks range period (comma separated list of durations).',
    }),
    retention_period: setting('duration', 6 * HOUR, {
      flag: `${TSDB}retention-period`,
      help: 'TSDB blocks retention in the ingester before a block is removed. This should be larger than the block_ranges_period and large enough to give queriers enough time to discover newly uploaded blocks.',
    }),
    ship_interval: setting('duration', 1 * MINUTE, {
      flag: `${TSDB}ship-interval`,
      help: 'How frequently the TSDB blocks are scanned and new ones are shipped to the storage. 0 means shipping is disabled.',
    }),
    ship_concurrency: setting('int', 10, {
      flag: `${TSDB}ship-concurrency`,
      help: 'Maximum number of tenants concurrently shipping blocks to the storage.',
    }),
    backend: setting('string', 's3', {
      flag: `${TSDB}backend`,
      help: 'Backend storage to use for blocks.',
      choices: BUCKET_BACKENDS,
    }),
    head_compaction_interval: setting('duration', 1 * MINUTE, {
      flag: `${TSDB}head-compaction-interval`,
      help: 'How frequently does Strata try to compact TSDB head. Block is only created if data covers smallest block range. Must be greater than 0 and max 5 minutes.',
    }),
    head_compaction_concurrency: setting('int', 5, {
      flag: `${TSDB}head-compaction-concurrency`,
      help: 'Maximum number of tenants concurrently compacting TSDB head into a new block.',
    }),
    stripe_size: setting('int', 16384, {
      flag: `${TSDB}stripe-size`,
      help: 'The number of shards of series to use in TSDB (must be a power of 2). Reducing this will decrease memory footprint, but can negatively impact performance.',
    }),
    wal_compression_enabled: setting('bool', false, {
      flag: `${TSDB}wal-compression-enabled`,
      help: 'True to enable TSDB WAL compression.',
    }),
    flush_blocks_on_shutdown: setting('bool', false, {
      flag: ['blocks-storage.tsdb.flush-blocks-on-shutdown', `${TSDB}flush-blocks-on-shutdown`],
      help: 'True to flush blocks to storage on shutdown. If false, incomplete blocks will be reused after restart.',
    }),
    store_gateway_enabled: setting('bool', false, {
      flag: `${TSDB}store-gateway-enabled`,
      help: 'True if the Strata cluster is running the store-gateway service and the querier should query the bucket store via the store-gateway.',
    }),
    max_tsdb_opening_concurrency_on_startup: setting('int', 10, {
      flag: `${TSDB}max-tsdb-opening-concurrency-on-startup`,
      help: 'Limit the number of concurrently opening TSDBs on startup.',
    }),
    close_idle_tsdb_timeout: setting('duration', 0, {
      flag: `${TSDB}close-idle-tsdb-timeout`,
      help: 'If TSDB has not received any data for this duration, and all blocks from TSDB have been shipped, TSDB is closed and deleted from local disk. If set to positive value, this value should be equal or higher than -querier.query-ingesters-within flag to make sure that TSDB is not closed prematurely, which could cause partial query results. 0 or negative value disables closing of idle TSDB. A tenant marked for deletion has its TSDB closed and deleted whatever this setting.',
    }),
    bucket_store: bucketStore,
    s3,
    gcs,
    azure,
    filesystem,
  },
);
