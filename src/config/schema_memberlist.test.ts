/**
 * The memberlist configuration: Cortex's `memberlist` block with its flags and defaults
 * (pkg/ring/kv/memberlist KVConfig and TCPTransportConfig), `memberlist`/`gossip` as the store
 * of every ring and the HA tracker, and config errors for values the protocol cannot use.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { loadConfig } from './load.js';
import { StaticFiles } from './testing_files.js';
import type { Config } from './types.js';

async function load(argv: string[], yaml?: string): Promise<Config> {
  const files = yaml === undefined ? {} : { 'c.yaml': yaml };
  const args = yaml === undefined ? argv : ['-config.file=c.yaml', ...argv];
  const result = await loadConfig(args, { fs: new StaticFiles(files), env: {} });
  if (result.kind !== 'config') throw new Error('expected a config');
  return result.config;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** The store flag of each ring and of the HA tracker (Cortex's prefixes). */
const STORE_FLAGS: readonly [string, (c: Config) => string][] = [
  ['-ring.store', (c) => c.ingester.lifecycler.ring.kvstore.store],
  ['-distributor.ring.store', (c) => c.distributor.ring.kvstore.store],
  ['-distributor.ha-tracker.store', (c) => c.distributor.ha_tracker.kvstore.store],
  [
    '-experimental.store-gateway.sharding-ring.store',
    (c) => c.store_gateway.sharding_ring.kvstore.store,
  ],
  ['-compactor.ring.store', (c) => c.compactor.sharding_ring.kvstore.store],
];

describe('memberlist configuration', () => {
  it("has Cortex's defaults", async () => {
    expect((await load([])).memberlist).toEqual({
      node_name: '',
      randomize_node_name: true,
      stream_timeout: 10 * SECOND,
      retransmit_factor: 4,
      pull_push_interval: 30 * SECOND,
      gossip_interval: 200,
      gossip_nodes: 3,
      gossip_to_dead_nodes_time: 30 * SECOND,
      dead_node_reclaim_time: 0,
      join_members: [],
      min_join_backoff: 1 * SECOND,
      max_join_backoff: 1 * MINUTE,
      max_join_retries: 10,
      abort_if_cluster_join_fails: true,
      rejoin_interval: 0,
      left_ingesters_timeout: 5 * MINUTE,
      tombstone_timeout: 5 * MINUTE,
      leave_timeout: 5 * SECOND,
      message_history_buffer_bytes: 0,
      bind_addr: [],
      bind_port: 7946,
      packet_dial_timeout: 5 * SECOND,
      packet_write_timeout: 5 * SECOND,
    });
  });

  it("takes Cortex's flag names", async () => {
    const c = await load([
      '-memberlist.nodename=ing-1',
      '-memberlist.randomize-node-name=false',
      '-memberlist.stream-timeout=3s',
      '-memberlist.retransmit-factor=2',
      '-memberlist.pullpush-interval=1m',
      '-memberlist.gossip-interval=100ms',
      '-memberlist.gossip-nodes=5',
      '-memberlist.gossip-to-dead-nodes-time=10s',
      '-memberlist.dead-node-reclaim-time=2m',
      '-memberlist.join=ing-2:9095,ing-3:9095',
      '-memberlist.min-join-backoff=2s',
      '-memberlist.max-join-backoff=20s',
      '-memberlist.max-join-retries=4',
      '-memberlist.abort-if-join-fails=false',
      '-memberlist.rejoin-interval=1m',
      '-memberlist.left-ingesters-timeout=10m',
      '-memberlist.tombstone-timeout=1m',
      '-memberlist.leave-timeout=7s',
      '-memberlist.message-history-buffer-bytes=65536',
      '-memberlist.bind-addr=10.0.0.1',
      '-memberlist.bind-port=7947',
      '-memberlist.packet-dial-timeout=1s',
      '-memberlist.packet-write-timeout=2s',
    ]);
    expect(c.memberlist).toEqual({
      node_name: 'ing-1',
      randomize_node_name: false,
      stream_timeout: 3 * SECOND,
      retransmit_factor: 2,
      pull_push_interval: MINUTE,
      gossip_interval: 100,
      gossip_nodes: 5,
      gossip_to_dead_nodes_time: 10 * SECOND,
      dead_node_reclaim_time: 2 * MINUTE,
      join_members: ['ing-2:9095', 'ing-3:9095'],
      min_join_backoff: 2 * SECOND,
      max_join_backoff: 20 * SECOND,
      max_join_retries: 4,
      abort_if_cluster_join_fails: false,
      rejoin_interval: MINUTE,
      left_ingesters_timeout: 10 * MINUTE,
      tombstone_timeout: MINUTE,
      leave_timeout: 7 * SECOND,
      message_history_buffer_bytes: 65536,
      bind_addr: ['10.0.0.1'],
      bind_port: 7947,
      packet_dial_timeout: SECOND,
      packet_write_timeout: 2 * SECOND,
    });
  });

  it("reads Cortex's YAML block", async () => {
    const c = await load(
      [],
      [
        'memberlist:',
        '  join_members: [ing-2:9095]',
        '  gossip_interval: 1s',
        '  left_ingesters_timeout: 30s',
        '  abort_if_cluster_join_fails: false',
        '  bind_port: 0',
        'ingester:',
        '  lifecycler:',
        '    ring:',
        '      kvstore:',
        '        store: memberlist',
      ].join('\n'),
    );
    expect(c.memberlist).toMatchObject({
      join_members: ['ing-2:9095'],
      gossip_interval: SECOND,
      left_ingesters_timeout: 30 * SECOND,
      abort_if_cluster_join_fails: false,
      bind_port: 0,
    });
    expect(c.ingester.lifecycler.ring.kvstore.store).toBe('memberlist');
  });

  it.each(['memberlist', 'gossip'])(
    'accepts store %s for every ring and the HA tracker, by flag and by YAML',
    async (store) => {
      const c = await load(STORE_FLAGS.map(([flag]) => `${flag}=${store}`));
      for (const [flag, read] of STORE_FLAGS) expect([flag, read(c)]).toEqual([flag, 'memberlist']);
      const y = await load(
        [],
        [
          'distributor:',
          '  ring:',
          '    kvstore:',
          `      store: ${store}`,
          '  ha_tracker:',
          '    kvstore:',
          `      store: ${store}`,
          'store_gateway:',
          '  sharding_ring:',
          '    kvstore:',
          `      store: ${store}`,
          'compactor:',
          '  sharding_ring:',
          '    kvstore:',
          `      store: ${store}`,
        ].join('\n'),
      );
      for (const [flag, read] of STORE_FLAGS.slice(1))
        expect([flag, read(y)]).toEqual([flag, 'memberlist']);
    },
  );

  it.each([
    [
      '-memberlist.gossip-nodes=0',
      'memberlist.gossip_nodes (-memberlist.gossip-nodes) is 0: it must be greater than 0',
    ],
    [
      '-memberlist.gossip-interval=0s',
      'memberlist.gossip_interval (-memberlist.gossip-interval) is 0s: it must be greater than 0',
    ],
    [
      '-memberlist.retransmit-factor=-1',
      'memberlist.retransmit_factor (-memberlist.retransmit-factor) is -1: it must be greater than 0',
    ],
    [
      '-memberlist.max-join-retries=-2',
      'memberlist.max_join_retries (-memberlist.max-join-retries) is -2: it must not be negative',
    ],
    [
      '-memberlist.bind-port=70000',
      'memberlist.bind_port (-memberlist.bind-port) is 70000: a port must be in 0..65535',
    ],
    [
      '-memberlist.max-join-backoff=500ms',
      'memberlist.max_join_backoff (-memberlist.max-join-backoff) is 500ms: it must not be below memberlist.min_join_backoff (-memberlist.min-join-backoff) (1s)',
    ],
  ])('refuses %s with a config error', async (flag, message) => {
    const err = await load([flag]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(message);
  });

  it('refuses an unknown store, listing the valid ones', async () => {
    const err = await load(['-distributor.ha-tracker.store=zookeeper']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain(
      'valid values are consul, etcd, inmemory, multi, memberlist',
    );
  });
});
