/**
 * Definition table, ring part: the key-value store block every hash ring uses, and the three
 * blocks that hold a ring (ingester lifecycler, store-gateway, compactor). Flag prefixes follow
 * Cortex: the ingester ring keeps its historical un-prefixed client flags (`-consul.hostname`,
 * `-ring.store`), the others prefix everything. The neutral store names kvone/kvtwo/gossip are
 * accepted for consul/etcd/memberlist in values, YAML keys and flag segments.
 */
import { block, choices, segmentFlags, setting } from './definition.js';
import { HOUR, MINUTE, SECOND } from './time_units.js';

export const KV_STORES = choices(['consul', 'etcd', 'inmemory', 'multi', 'memberlist'], {
  kvone: 'consul',
  kvtwo: 'etcd',
  gossip: 'memberlist',
});
/** Backends a `multi` store can combine; empty means unset. */
export const MULTI_KV_BACKENDS = choices(
  ['', 'consul', 'etcd', 'inmemory', 'memberlist'],
  KV_STORES.aliases,
);

/**
 * The `kvstore` block. `clientPrefix` prefixes the consul/etcd/multi client flags and
 * `storePrefix` the store/prefix flags (they differ only for the ingester ring).
 */
export function kvStoreBlock(
  clientPrefix: string,
  storePrefix: string,
  defaultPrefix = 'collectors/',
) {
  const consulFlag = (suffix: string, ...oldSuffixes: string[]) => ({
    flag: [
      `${clientPrefix}consul.${suffix}`,
      ...oldSuffixes.map((s) => `${clientPrefix}consul.${s}`),
    ],
    neutralFlags: [suffix, ...oldSuffixes].map((s) => `${clientPrefix}kvone.${s}`),
  });
  const etcdFlag = (suffix: string) => segmentFlags(clientPrefix, 'etcd', 'kvtwo', suffix);
  return block('The key-value store holding the ring.', {
    store: setting('string', 'consul', {
      flag: `${storePrefix}store`,
      help: 'Backend storage to use for the ring (memberlist is experimental).',
      choices: KV_STORES,
    }),
    prefix: setting('string', defaultPrefix, {
      flag: `${storePrefix}prefix`,
      help: 'The prefix for the keys in the store. Should end with a /.',
    }),
    consul: block(
      'Consul client (also accepted as `kvone`).',
      {
        host: setting('string', 'localhost:8500', {
          ...consulFlag('hostname'),
          help: 'Hostname and port of Consul.',
        }),
        acl_token: setting('string', '', {
          ...consulFlag('acl-token', 'acltoken'),
          help: 'ACL Token used to interact with Consul.',
          secret: true,
        }),
        http_client_timeout: setting('duration', 20 * SECOND, {
          ...consulFlag('client-timeout'),
          help: 'HTTP timeout when talking to Consul.',
        }),
        consistent_reads: setting('bool', true, {
          ...consulFlag('consistent-reads'),
          help: 'Enable consistent reads to Consul.',
        }),
        watch_rate_limit: setting('float', 1, {
          ...consulFlag('watch-rate-limit', 'watch-rate'),
          help: 'Rate limit when watching key or prefix in Consul, in requests per second. 0 disables the rate limit.',
        }),
        watch_burst_size: setting('int', 1, {
          ...consulFlag('watch-burst-size', 'watch-burst'),
          help: 'Burst size used in rate limit. Values less than 1 are treated as 1.',
        }),
      },
      { yamlAliases: ['kvone'] },
    ),
    etcd: block(
      'etcd client (also accepted as `kvtwo`).',
      {
        endpoints: setting('stringList', [], {
          ...etcdFlag('endpoints'),
          help: 'The etcd endpoints to connect to (comma separated).',
        }),
        dial_timeout: setting('duration', 10 * SECOND, {
          ...etcdFlag('dial-timeout'),
          help: 'The dial timeout for the etcd connection.',
        }),
        max_retries: setting('int', 10, {
          ...etcdFlag('max-retries'),
          help: 'The maximum number of retries to do for failed ops.',
        }),
      },
      { yamlAliases: ['kvtwo'] },
    ),
    multi: block('Multi client: a primary store, optionally mirrored to a secondary.', {
      primary: setting('string', '', {
        flag: `${clientPrefix}multi.primary`,
        help: 'Primary backend storage used by multi-client.',
        choices: MULTI_KV_BACKENDS,
      }),
      secondary: setting('string', '', {
        flag: `${clientPrefix}multi.secondary`,
        help: 'Secondary backend storage used by multi-client.',
        choices: MULTI_KV_BACKENDS,
      }),
      mirror_enabled: setting('bool', false, {
        flag: `${clientPrefix}multi.mirror-enabled`,
        help: 'Mirror writes to secondary store.',
      }),
      mirror_timeout: setting('duration', 2 * SECOND, {
        flag: `${clientPrefix}multi.mirror-timeout`,
        help: 'Timeout for storing value to secondary store.',
      }),
    }),
  });
}

export const ingesterBlock = block('Ingester settings.', {
  lifecycler: block('How the ingester joins and leaves the ingester ring.', {
    ring: block('The ingester ring.', {
      kvstore: kvStoreBlock('', 'ring.'),
      heartbeat_timeout: setting('duration', 1 * MINUTE, {
        flag: 'ring.heartbeat-timeout',
        help: 'The heartbeat timeout after which ingesters are skipped for reads/writes.',
      }),
      replication_factor: setting('int', 3, {
        flag: 'distributor.replication-factor',
        help: 'The number of ingesters to write to and read from.',
      }),
    }),
    num_tokens: setting('int', 128, {
      flag: 'ingester.num-tokens',
      help: 'Number of tokens for each ingester.',
    }),
    heartbeat_period: setting('duration', 5 * SECOND, {
      flag: 'ingester.heartbeat-period',
      help: 'Period at which to heartbeat to consul.',
    }),
    join_after: setting('duration', 0, {
      flag: 'ingester.join-after',
      help: 'Period to wait for a claim from another member; will join automatically after this.',
    }),
    min_ready_duration: setting('duration', 1 * MINUTE, {
      flag: 'ingester.min-ready-duration',
      help: 'Minimum duration to wait before becoming ready. This is to work around race conditions with ingesters exiting and updating the ring.',
    }),
    tokens_file_path: setting('string', '', {
      flag: 'ingester.tokens-file-path',
      help: 'File path where tokens are stored. If empty, tokens are not stored at shutdown and restored at startup.',
    }),
    id: setting('string', '', {
      flag: ['ingester.lifecycler.ID', 'ingester.lifecycler.id'],
      help: 'ID to register in the ring (empty: the hostname).',
    }),
    address: setting('string', '', {
      flag: 'ingester.lifecycler.addr',
      help: 'Address to advertise in the ring (empty: the internal RPC listen address, with the hostname when it listens on all interfaces).',
    }),
    availability_zone: setting('string', '', {
      flag: 'ingester.availability-zone',
      help: 'The availability zone of the host this instance runs on.',
    }),
  }),
  flush_on_shutdown_with_wal_enabled: setting('bool', false, {
    flag: 'ingester.flush-on-shutdown-with-wal-enabled',
    help: 'When WAL is enabled, should chunks be flushed to long-term storage on shutdown.',
    pathAliases: ['ingester.walconfig.flush_on_shutdown_with_wal_enabled'],
  }),
  unregister_on_shutdown: setting('bool', true, {
    flag: 'ingester.unregister-on-shutdown',
    help: 'Unregister from the ring upon clean shutdown. It can be useful to disable for rolling restarts with consistent naming in conjunction with -distributor.extend-writes=false.',
    pathAliases: ['ingester.lifecycler.unregister_on_shutdown'],
  }),
  metadata_retain_period: setting('duration', 10 * MINUTE, {
    flag: 'ingester.metadata-retain-period',
    help: 'Period at which metadata we have not seen will remain in memory before being deleted.',
  }),
  series_labels_cache_size: setting('int', 1 << 21, {
    flag: 'ingester.series-labels-cache-size',
    help: 'Label sets the ingester keeps to reuse when a distributor pushes the same series again (two generations; about half of it must hold every active series of this ingester). 0 disables the cache.',
  }),
});

const STORE_GATEWAY = 'experimental.store-gateway.';
const SG_RING = `${STORE_GATEWAY}sharding-ring.`;

export const storeGatewayBlock = block(
  'The store-gateway: serves blocks from the bucket to queriers.',
  {
    sharding_enabled: setting('bool', false, {
      flag: `${STORE_GATEWAY}sharding-enabled`,
      help: 'Shard blocks across multiple store gateway instances. This option needs to be set both on the store-gateway and querier when running in microservices mode.',
    }),
    sharding_ring: block('The store-gateway ring; required only when sharding is enabled.', {
      kvstore: kvStoreBlock(SG_RING, SG_RING),
      heartbeat_period: setting('duration', 15 * SECOND, {
        flag: `${SG_RING}heartbeat-period`,
        help: 'Period at which to heartbeat to the ring.',
      }),
      heartbeat_timeout: setting('duration', 1 * MINUTE, {
        flag: `${SG_RING}heartbeat-timeout`,
        help: 'The heartbeat timeout after which store gateways are considered unhealthy within the ring. This option needs to be set both on the store-gateway and querier when running in microservices mode.',
      }),
      replication_factor: setting('int', 3, {
        flag: [`${STORE_GATEWAY}replication-factor`, `${SG_RING}replication-factor`],
        help: 'The replication factor to use when sharding blocks. This option needs to be set both on the store-gateway and querier when running in microservices mode.',
      }),
      tokens_file_path: setting('string', '', {
        flag: [`${STORE_GATEWAY}tokens-file-path`, `${SG_RING}tokens-file-path`],
        help: 'File path where tokens are stored. If empty, tokens are not stored at shutdown and restored at startup.',
      }),
      wait_stability_min_duration: setting('duration', 1 * MINUTE, {
        flag: `${SG_RING}wait-stability-min-duration`,
        help: 'Minimum time to wait for ring stability at startup. 0 to disable.',
      }),
      wait_stability_max_duration: setting('duration', 5 * MINUTE, {
        flag: `${SG_RING}wait-stability-max-duration`,
        help: 'Maximum time to wait for ring stability at startup. If the store-gateway ring keeps changing after this period of time, the store-gateway will start anyway.',
      }),
      zone_awareness_enabled: setting('bool', false, {
        flag: `${SG_RING}zone-awareness-enabled`,
        help: 'True to enable zone-awareness and replicate blocks across different availability zones.',
      }),
      instance_availability_zone: setting('string', '', {
        flag: `${SG_RING}instance-availability-zone`,
        help: 'The availability zone where this instance is running. Required if zone-awareness is enabled.',
      }),
      instance_id: setting('string', '', {
        flag: `${SG_RING}instance-id`,
        help: 'Instance ID to register in the ring (empty: the hostname).',
      }),
      instance_addr: setting('string', '', {
        flag: `${SG_RING}instance-addr`,
        help: 'IP address to advertise in the ring (empty: the internal RPC listen address).',
      }),
    }),
  },
);

const COMPACTOR_RING = 'compactor.ring.';

/** `-compactor.sharding-strategy` values (Cortex's util.ShardingStrategyDefault / Shuffle). */
export const COMPACTOR_SHARDING_STRATEGIES = choices(['default', 'shuffle-sharding']);

export const compactorBlock = block(
  'The compactor: merges and de-duplicates blocks in the bucket.',
  {
    block_ranges: setting('durationList', [2 * HOUR, 12 * HOUR, 24 * HOUR], {
      flag: 'compactor.block-ranges',
      help: 'List of compaction time ranges (comma separated durations).',
    }),
    block_sync_concurrency: setting('int', 20, {
      flag: 'compactor.block-sync-concurrency',
      help: 'Number of workers to use when syncing blocks index and chunks files from the long term storage.',
    }),
    meta_sync_concurrency: setting('int', 20, {
      flag: 'compactor.meta-sync-concurrency',
      help: 'Number of workers to use when syncing block meta files from the long term storage.',
    }),
    consistency_delay: setting('duration', 0, {
      flag: 'compactor.consistency-delay',
      help: 'Minimum age of fresh (non-compacted) blocks before they are being processed. Malformed blocks older than the maximum of consistency-delay and 48h0m0s will be removed.',
    }),
    data_dir: setting('string', './data', {
      flag: 'compactor.data-dir',
      help: 'Data directory in which to cache blocks and process compactions.',
    }),
    compaction_interval: setting('duration', 1 * HOUR, {
      flag: 'compactor.compaction-interval',
      help: 'The frequency at which the compaction runs.',
    }),
    compaction_retries: setting('int', 3, {
      flag: 'compactor.compaction-retries',
      help: 'How many times to retry a failed compaction during a single compaction interval.',
    }),
    compaction_concurrency: setting('int', 1, {
      flag: 'compactor.compaction-concurrency',
      help: 'Max number of concurrent compactions running.',
    }),
    skip_blocks_with_out_of_order_chunks_enabled: setting('bool', false, {
      flag: 'compactor.skip-blocks-with-out-of-order-chunks-enabled',
      help: 'When enabled, mark blocks containing index with out-of-order chunks for no compact instead of halting the compaction.',
    }),
    deletion_delay: setting('duration', 12 * HOUR, {
      flag: 'compactor.deletion-delay',
      help: "Time before a block marked for deletion is deleted from bucket. If not 0, blocks will be marked for deletion and compactor component will delete blocks marked for deletion from the bucket. If delete-delay is 0, blocks will be deleted straight away. Note that deleting blocks immediately can cause query failures, if store gateway still has the block loaded, or compactor is ignoring the deletion because it's compacting the block at the same time.",
    }),
    tenant_cleanup_delay: setting('duration', 6 * HOUR, {
      flag: 'compactor.tenant-cleanup-delay',
      help: 'For tenants marked for deletion, this is time between deleting of last block, and doing final cleanup (marker files, debug files) of the tenant.',
    }),
    cleanup_interval: setting('duration', 15 * MINUTE, {
      flag: 'compactor.cleanup-interval',
      help: 'How frequently compactor should run blocks cleanup and maintenance, as well as update the bucket index.',
    }),
    cleanup_concurrency: setting('int', 20, {
      flag: 'compactor.cleanup-concurrency',
      help: 'Max number of tenants for which blocks cleanup and maintenance should run concurrently.',
    }),
    partial_block_deletion_delay: setting('duration', 0, {
      flag: 'compactor.partial-block-deletion-delay',
      help: "Strata (Mimir's setting, not in Cortex): a partial block (no meta.json), such as what a compactor killed during an upload leaves, whose ID and newest object are both older than this is marked for deletion and deleted by the blocks cleaner. 0: max(consistency delay, 48h), the reference's age for removing malformed blocks.",
    }),
    sharding_enabled: setting('bool', false, {
      flag: 'compactor.sharding-enabled',
      help: 'Shard tenants across multiple compactor instances. Sharding is required if you run multiple compactor instances, in order to coordinate compactions and avoid race conditions leading to the same tenant blocks simultaneously compacted by different instances.',
    }),
    sharding_strategy: setting('string', 'default', {
      flag: 'compactor.sharding-strategy',
      help: 'The sharding strategy to use.',
      choices: COMPACTOR_SHARDING_STRATEGIES,
    }),
    block_visit_marker_timeout: setting('duration', 5 * MINUTE, {
      flag: 'compactor.block-visit-marker-timeout',
      help: 'How long block visit marker file should be considered as expired and able to be picked up by compactor again.',
    }),
    block_visit_marker_file_update_interval: setting('duration', 1 * MINUTE, {
      flag: 'compactor.block-visit-marker-file-update-interval',
      help: 'How frequently block visit marker file should be updated duration compaction.',
    }),
    sharding_ring: block('The compactor ring; required only when sharding is enabled.', {
      kvstore: kvStoreBlock(COMPACTOR_RING, COMPACTOR_RING),
      heartbeat_period: setting('duration', 5 * SECOND, {
        flag: `${COMPACTOR_RING}heartbeat-period`,
        help: 'Period at which to heartbeat to the ring.',
      }),
      heartbeat_timeout: setting('duration', 1 * MINUTE, {
        flag: `${COMPACTOR_RING}heartbeat-timeout`,
        help: 'The heartbeat timeout after which compactors are considered unhealthy within the ring.',
      }),
      auto_forget_delay: setting('duration', 2 * MINUTE, {
        flag: 'compactor.auto-forget-delay',
        help: 'Time since last heartbeat before a compactor is removed from the ring. 0 to disable.',
      }),
      wait_stability_min_duration: setting('duration', 1 * MINUTE, {
        flag: `${COMPACTOR_RING}wait-stability-min-duration`,
        help: 'Minimum time to wait for ring stability at startup. 0 to disable.',
      }),
      wait_stability_max_duration: setting('duration', 5 * MINUTE, {
        flag: `${COMPACTOR_RING}wait-stability-max-duration`,
        help: 'Maximum time to wait for ring stability at startup. If the compactor ring keeps changing after this period of time, the compactor will start anyway.',
      }),
      instance_id: setting('string', '', {
        flag: `${COMPACTOR_RING}instance-id`,
        help: 'Instance ID to register in the ring (empty: the hostname).',
      }),
      instance_addr: setting('string', '', {
        flag: `${COMPACTOR_RING}instance-addr`,
        help: 'IP address to advertise in the ring (empty: the internal RPC listen address).',
      }),
    }),
  },
);
