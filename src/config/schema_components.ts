/**
 * Definition table, component part: the distributor's and the querier's own settings (the
 * ingester's live with its ring in schema_ring.ts). Names, flags and defaults are Cortex's.
 */
import { block, setting } from './definition.js';
import { kvStoreBlock } from './schema_ring.js';
import { MINUTE, SECOND } from './time_units.js';

const HA = 'distributor.ha-tracker.';
const DRING = 'distributor.ring.';

export const distributorBlock = block(
  'The distributor: receives pushes and sends them to ingesters.',
  {
    remote_timeout: setting('duration', 2 * SECOND, {
      flag: 'distributor.remote-timeout',
      help: 'Timeout for downstream ingesters.',
    }),
    shard_by_all_labels: setting('bool', false, {
      flag: 'distributor.shard-by-all-labels',
      help: 'Distribute samples based on all labels, as opposed to solely by user and metric name.',
    }),
    extend_writes: setting('bool', true, {
      flag: 'distributor.extend-writes',
      help: 'Try writing to an additional ingester in the presence of an ingester not in the ACTIVE state. It is useful to disable this along with -ingester.unregister-on-shutdown=false in order to not spread samples to extra ingesters during rolling restarts with consistent naming.',
    }),
    max_recv_msg_size: setting('int', 100 << 20, {
      flag: 'distributor.max-recv-msg-size',
      help: 'Remote write API: maximum size in bytes of a push request body, after decompression.',
    }),
    series_labels_cache_size: setting('int', 1 << 21, {
      flag: 'distributor.series-labels-cache-size',
      help: 'Label sets the distributor keeps to reuse when a sender pushes the same series again (two generations; about half of it must hold every active series of this distributor). 0 disables the cache.',
    }),
    ha_tracker: block('The HA tracker: de-duplicates samples from HA pairs of Prometheus.', {
      enable_ha_tracker: setting('bool', false, {
        flag: `${HA}enable`,
        help: 'Enable the distributors HA tracker so that it can accept samples from Prometheus HA replicas gracefully (requires labels).',
      }),
      ha_tracker_update_timeout: setting('duration', 15 * SECOND, {
        flag: `${HA}update-timeout`,
        help: 'Update the timestamp in the KV store for a given cluster/replica only after this amount of time has passed since the current stored timestamp.',
      }),
      ha_tracker_update_timeout_jitter_max: setting('duration', 5 * SECOND, {
        flag: `${HA}update-timeout-jitter-max`,
        help: 'Maximum jitter applied to the update timeout, in order to spread the HA heartbeats over time.',
      }),
      ha_tracker_failover_timeout: setting('duration', 30 * SECOND, {
        flag: `${HA}failover-timeout`,
        help: 'If we do not receive any samples from the accepted replica for a cluster in this amount of time we will failover to the next replica we receive a sample from. This value must be greater than the update timeout.',
      }),
      kvstore: kvStoreBlock(HA, HA, 'ha-tracker/'),
    }),
    ring: block(
      'The distributor ring: distributors count each other for the global ingestion rate limit.',
      {
        kvstore: kvStoreBlock(DRING, DRING),
        heartbeat_period: setting('duration', 5 * SECOND, {
          flag: `${DRING}heartbeat-period`,
          help: 'Period at which to heartbeat to the ring.',
        }),
        heartbeat_timeout: setting('duration', 1 * MINUTE, {
          flag: `${DRING}heartbeat-timeout`,
          help: 'The heartbeat timeout after which distributors are considered unhealthy within the ring.',
        }),
        instance_id: setting('string', '', {
          flag: `${DRING}instance-id`,
          help: 'Instance ID to register in the ring (empty: the hostname).',
        }),
      },
    ),
  },
);

export const querierBlock = block(
  'The querier: answers PromQL queries over ingesters and the blocks in the bucket.',
  {
    timeout: setting('duration', 2 * MINUTE, {
      flag: 'querier.timeout',
      help: 'The timeout for a query.',
    }),
    // Not Cortex's 50e6: a query at that many samples needs about 9 GB of JS heap here
    // (docs/querier.md "Memory bounds"); 10e6 takes under half of Node's default heap.
    max_samples: setting('int', 10_000_000, {
      flag: 'querier.max-samples',
      help: 'Maximum number of samples a single query can load into memory.',
    }),
    lookback_delta: setting('duration', 5 * MINUTE, {
      flag: 'querier.lookback-delta',
      help: 'Time since the last sample after which a time series is considered stale and ignored by expression evaluations.',
    }),
    query_ingesters_within: setting('duration', 0, {
      flag: 'querier.query-ingesters-within',
      help: 'Maximum lookback beyond which queries are not sent to ingester. 0 means all queries are sent to ingester.',
    }),
    query_store_after: setting('duration', 0, {
      flag: 'querier.query-store-after',
      help: "The time after which a metric should be queried from storage and not just ingesters. 0 means all queries are sent to store. When running the blocks storage, if this option is enabled, the time range of the query sent to the store will be manipulated to ensure the query end is not more recent than 'now - query-store-after'.",
    }),
    store_gateway_addresses: setting('string', '', {
      flag: 'querier.store-gateway-addresses',
      help: 'Comma separated list of store-gateway addresses. This option should be set when using the blocks storage and the store-gateway sharding is disabled (when enabled, the store-gateway instances form a ring and addresses are picked from the ring). Empty with sharding disabled: the querier reads the bucket itself (-experimental.tsdb.store-gateway-enabled=false) or through the store-gateway of its own process.',
    }),
  },
);
