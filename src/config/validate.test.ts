import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config_tree.js';
import { ConfigError } from './errors.js';
import { configProblems, validateConfig } from './validate.js';
import type { Config } from './types.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

function withChange(change: (c: Config) => void): Config {
  const c = defaultConfig();
  change(c);
  return c;
}

function expectInvalid(change: (c: Config) => void, message: string): void {
  const c = withChange(change);
  expect(() => validateConfig(c)).toThrow(ConfigError);
  expect(() => validateConfig(c)).toThrow(message);
}

describe('validateConfig', () => {
  it('accepts the defaults', () => {
    expect(configProblems(defaultConfig())).toEqual([]);
    expect(() => validateConfig(defaultConfig())).not.toThrow();
  });

  describe('tsdb', () => {
    it.each([1, 3, 1000, 0, -2, 2 ** 31])('refuses stripe_size %d', (n) => {
      expectInvalid(
        (c) => (c.tsdb.stripe_size = n),
        `tsdb.stripe_size (-experimental.tsdb.stripe-size) is ${n}: it must be a power of 2`,
      );
    });

    it.each([2, 1024, 2 ** 30])('accepts stripe_size %d', (n) => {
      expect(() => validateConfig(withChange((c) => (c.tsdb.stripe_size = n)))).not.toThrow();
    });

    it.each([
      [0, '0s'],
      [-MINUTE, '-1m0s'],
      [5 * MINUTE + 1000, '5m1s'],
    ])('refuses head_compaction_interval %d', (ms, shown) => {
      expectInvalid(
        (c) => (c.tsdb.head_compaction_interval = ms),
        `tsdb.head_compaction_interval (-experimental.tsdb.head-compaction-interval) is ${shown}: it must be greater than 0 and at most 5m0s`,
      );
    });

    it('accepts head_compaction_interval of exactly 5 minutes', () => {
      expect(() =>
        validateConfig(withChange((c) => (c.tsdb.head_compaction_interval = 5 * MINUTE))),
      ).not.toThrow();
    });

    it('requires retention_period greater than the largest block range', () => {
      expectInvalid((c) => {
        c.tsdb.block_ranges_period = [2 * HOUR, 6 * HOUR];
        c.tsdb.retention_period = 6 * HOUR;
      }, 'tsdb.retention_period (-experimental.tsdb.retention-period) is 6h0m0s: it must be greater than the largest block range (6h0m0s)');
    });

    it('refuses empty, non-positive and non-multiple block ranges', () => {
      expectInvalid(
        (c) => (c.tsdb.block_ranges_period = []),
        'tsdb.block_ranges_period (-experimental.tsdb.block-ranges-period) is empty',
      );
      expectInvalid(
        (c) => (c.tsdb.block_ranges_period = [0]),
        'tsdb.block_ranges_period (-experimental.tsdb.block-ranges-period) contains 0s: block ranges must be positive',
      );
      expectInvalid(
        (c) => (c.tsdb.block_ranges_period = [2 * HOUR, 3 * HOUR]),
        'block range 3h0m0s is not a multiple of the previous one (2h0m0s)',
      );
      expectInvalid(
        (c) => (c.compactor.block_ranges = [2 * HOUR, 12 * HOUR, 30 * HOUR]),
        'compactor.block_ranges (-compactor.block-ranges): block range 30h0m0s is not a multiple of the previous one (12h0m0s)',
      );
      expectInvalid(
        (c) => (c.compactor.block_ranges = []),
        'compactor.block_ranges (-compactor.block-ranges) is empty',
      );
    });

    it('refuses concurrency settings that would stall work', () => {
      expectInvalid(
        (c) => (c.tsdb.ship_concurrency = 0),
        'tsdb.ship_concurrency (-experimental.tsdb.ship-concurrency) is 0: it must be greater than 0 when shipping is enabled',
      );
      expect(() =>
        validateConfig(
          withChange((c) => {
            c.tsdb.ship_concurrency = 0;
            c.tsdb.ship_interval = 0;
          }),
        ),
      ).not.toThrow();
      expectInvalid(
        (c) => (c.tsdb.head_compaction_concurrency = 0),
        'tsdb.head_compaction_concurrency',
      );
      expectInvalid(
        (c) => (c.tsdb.max_tsdb_opening_concurrency_on_startup = 0),
        'tsdb.max_tsdb_opening_concurrency_on_startup',
      );
      expectInvalid(
        (c) => (c.compactor.compaction_concurrency = 0),
        'compactor.compaction_concurrency',
      );
    });
  });

  it('refuses the chunks storage engine with an explanation', () => {
    expectInvalid(
      (c) => (c.storage.engine = 'chunks'),
      'storage.engine (-store.engine) is "chunks": chunks storage is not supported, only blocks storage ("tsdb")',
    );
  });

  it('refuses unknown targets', () => {
    expectInvalid(
      (c) => (c.target = 'ingester,table-manager'),
      'target (-target): unknown target "table-manager": valid targets are all, distributor',
    );
    expectInvalid((c) => (c.target = ''), 'no target given');
  });

  it.each<[string, (c: Config) => void, string]>([
    [
      'tsdb.backend',
      (c) => (c.tsdb.backend = 'swift'),
      'invalid value "swift" for tsdb.backend (-experimental.tsdb.backend): valid values are s3, gcs, azure, filesystem',
    ],
    [
      'ring store',
      (c) => (c.ingester.lifecycler.ring.kvstore.store = 'zookeeper'),
      'invalid value "zookeeper" for ingester.lifecycler.ring.kvstore.store (-ring.store): valid values are consul, etcd, inmemory, multi, memberlist',
    ],
    [
      'store-gateway ring store',
      (c) => (c.store_gateway.sharding_ring.kvstore.store = 'kvone'),
      'invalid value "kvone" for store_gateway.sharding_ring.kvstore.store (-experimental.store-gateway.sharding-ring.store)',
    ],
    [
      'index cache backend',
      (c) => (c.tsdb.bucket_store.index_cache.backend = 'redis'),
      'invalid value "redis" for tsdb.bucket_store.index_cache.backend (-experimental.tsdb.bucket-store.index-cache.backend): valid values are inmemory, memcached',
    ],
    [
      'chunks cache backend',
      (c) => (c.tsdb.bucket_store.chunks_cache.backend = 'inmemory'),
      'invalid value "inmemory" for tsdb.bucket_store.chunks_cache.backend (-experimental.tsdb.bucket-store.chunks-cache.backend): valid values are "" (disabled), memcached',
    ],
    [
      'metadata cache backend',
      (c) => (c.tsdb.bucket_store.metadata_cache.backend = 'x'),
      'invalid value "x" for tsdb.bucket_store.metadata_cache.backend',
    ],
    [
      'log level',
      (c) => (c.server.log_level = 'trace'),
      'invalid value "trace" for server.log_level (-log.level): valid values are debug, info, warn, error',
    ],
  ])('refuses an unknown enum value: %s', (_name, change, message) => {
    expectInvalid(change, message);
  });

  it.each([
    [
      'ingester.lifecycler.ring.kvstore.prefix (-ring.prefix)',
      (c: Config) => (c.ingester.lifecycler.ring.kvstore.prefix = 'collectors'),
    ],
    [
      'store_gateway.sharding_ring.kvstore.prefix (-experimental.store-gateway.sharding-ring.prefix)',
      (c: Config) => (c.store_gateway.sharding_ring.kvstore.prefix = 'collectors'),
    ],
    [
      'compactor.sharding_ring.kvstore.prefix (-compactor.ring.prefix)',
      (c: Config) => (c.compactor.sharding_ring.kvstore.prefix = 'collectors'),
    ],
  ])('requires the ring prefix %s to end with /', (name, change) => {
    expectInvalid(change, `${name} is "collectors": the ring key prefix must end with "/"`);
  });

  it.each([-1, 65536])('refuses port %d', (port) => {
    expectInvalid(
      (c) => (c.server.http_listen_port = port),
      `server.http_listen_port (-server.http-listen-port) is ${port}: a port must be in 0..65535`,
    );
    expectInvalid(
      (c) => (c.server.grpc_listen_port = port),
      `server.grpc_listen_port (-server.grpc-listen-port) is ${port}`,
    );
  });

  it.each([
    ['distributor', -1],
    ['distributor', 1],
    ['ingester', -1],
    ['ingester', 1],
  ] as const)(
    'refuses a %s series labels cache of %d entries; 0 (off) and 2 are fine',
    (component, n) => {
      expectInvalid(
        (c) => (c[component].series_labels_cache_size = n),
        `${component}.series_labels_cache_size (-${component}.series-labels-cache-size) is ${n}: it must be 0 (off) or at least 2 (two generations)`,
      );
      for (const ok of [0, 2])
        expect(() =>
          validateConfig(
            (() => {
              const c = defaultConfig();
              c[component].series_labels_cache_size = ok;
              return c;
            })(),
          ),
        ).not.toThrow();
    },
  );

  it('accepts ports 0 and 65535', () => {
    expect(() =>
      validateConfig(
        withChange((c) => {
          c.server.http_listen_port = 0;
          c.server.grpc_listen_port = 65535;
        }),
      ),
    ).not.toThrow();
  });

  it('requires addresses for a memcached cache', () => {
    expectInvalid(
      (c) => (c.tsdb.bucket_store.index_cache.backend = 'memcached'),
      'tsdb.bucket_store.index_cache.backend (-experimental.tsdb.bucket-store.index-cache.backend) is memcached but tsdb.bucket_store.index_cache.memcached.addresses (-experimental.tsdb.bucket-store.index-cache.memcached.addresses) is empty',
    );
  });

  it('requires distinct primary and secondary for a multi store', () => {
    expectInvalid(
      (c) => (c.compactor.sharding_ring.kvstore.store = 'multi'),
      'compactor.sharding_ring.kvstore.store (-compactor.ring.store) is multi: compactor.sharding_ring.kvstore.multi.primary (-compactor.ring.multi.primary) and',
    );
    expectInvalid((c) => {
      const kv = c.compactor.sharding_ring.kvstore;
      kv.store = 'multi';
      kv.multi.primary = 'consul';
      kv.multi.secondary = 'consul';
    }, 'are both "consul": they must differ');
  });

  it('refuses replication factors below 1', () => {
    expectInvalid(
      (c) => (c.ingester.lifecycler.ring.replication_factor = 0),
      'ingester.lifecycler.ring.replication_factor (-distributor.replication-factor) is 0',
    );
    expectInvalid(
      (c) => (c.store_gateway.sharding_ring.replication_factor = 0),
      'store_gateway.sharding_ring.replication_factor',
    );
  });

  it('refuses values of the wrong type in a programmatically built config', () => {
    expectInvalid(
      (c) => ((c.tsdb as unknown as Record<string, unknown>).stripe_size = '16384'),
      'tsdb.stripe_size (-experimental.tsdb.stripe-size) is "16384": expected int',
    );
    expectInvalid(
      (c) => (c.tsdb.retention_period = 1.5),
      'tsdb.retention_period (-experimental.tsdb.retention-period) is 1.5: expected duration',
    );
  });

  it('reports every problem at once', () => {
    const c = withChange((c) => {
      c.tsdb.stripe_size = 3;
      c.server.log_level = 'loud';
      c.storage.engine = 'chunks';
    });
    expect(configProblems(c)).toHaveLength(1); // the enum problem hides cross-setting rules
    c.server.log_level = 'info';
    const problems = configProblems(c);
    expect(problems).toHaveLength(2);
    expect(() => validateConfig(c)).toThrow(
      /^2 configuration errors:\n {2}- storage\.engine.*\n {2}- tsdb\.stripe_size/,
    );
  });
});
