/**
 * A distributor wired to a static ingester ring and FakeIngesters, for tests.
 */
import { defaultConfig, type LimitsConfig } from '../config/index.js';
import { Overrides, parseRuntimeConfig } from '../overrides/index.js';
import { Ring, type InstanceDesc, type RingDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  type MemoryTransport,
  createSeededRandom,
  newMetricsRegistry,
  type KV,
  type MetricsRegistry,
} from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import type { IngesterClient } from '../ingester/index.js';
import { Distributor, type DistributorConfig } from './distributor.js';
import { FakeIngesters } from './fake_ingesters.testing.js';

export const NOW = 1_700_000_000_000;

export interface Fixture {
  distributor: Distributor;
  ingesters: FakeIngesters;
  ring: Ring;
  clock: ManualClock;
  registry: MetricsRegistry;
  network: MemoryNetwork;
  /** The distributor's own transport (its `distributor.Push` handler is registered there). */
  transport: MemoryTransport;
  logger: CapturingLogger;
}

export interface FixtureOptions {
  /** Instance ID → tokens; addresses are `<id>:9095`. */
  tokens?: Record<string, number[]>;
  replicationFactor?: number;
  limits?: Partial<LimitsConfig>;
  runtimeYaml?: string;
  config?: Partial<DistributorConfig>;
  distributorCount?: () => number;
  /** Replaces the fake ingesters (e.g. with TransportIngesterClient). */
  client?: IngesterClient;
  haKV?: KV;
}

export function ringDesc(
  tokens: Record<string, number[]>,
  over: Partial<InstanceDesc> = {},
): RingDesc {
  const desc: RingDesc = { ingesters: {} };
  for (const [id, t] of Object.entries(tokens)) {
    desc.ingesters[id] = {
      addr: `${id}:9095`,
      timestamp: NOW / 1000,
      state: 'ACTIVE',
      tokens: t,
      zone: '',
      registeredTimestamp: NOW / 1000 - 3600,
      ...over,
    };
  }
  return desc;
}

/** Three ingesters, tokens spread over the 32-bit space. */
export const THREE = {
  a: [0x10000000, 0x70000000, 0xc0000000],
  b: [0x30000000, 0x90000000, 0xe0000000],
  c: [0x50000000, 0xa0000000, 0xf0000000],
};

export function makeFixture(opts: FixtureOptions = {}): Fixture {
  const clock = new ManualClock(NOW);
  const registry = newMetricsRegistry();
  const logger = new CapturingLogger();
  const ring = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: opts.replicationFactor ?? 3,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
    },
    { kv: new MemoryKV({}, { store: new MemoryKVStore() }), clock, logger, metrics: registry },
  );
  ring.setDesc(ringDesc(opts.tokens ?? THREE));
  const runtime = parseRuntimeConfig(opts.runtimeYaml ?? '');
  const overrides = new Overrides(
    { ...defaultConfig().limits, ...opts.limits },
    { current: () => runtime },
  );
  const network = new MemoryNetwork();
  const ingesters = new FakeIngesters();
  const transport = network.transport('distributor-1');
  const distributor = new Distributor(
    {
      shardByAllLabels: false,
      remoteTimeoutMs: 2000,
      extendWrites: true,
      maxRecvMsgSize: 100 << 20,
      haTracker: { enabled: true, updateTimeoutMs: 15_000, failoverTimeoutMs: 30_000 },
      ingestionRateStrategy: 'local',
      ...opts.config,
    },
    {
      clock,
      random: createSeededRandom('distributor-test'),
      logger,
      metrics: registry,
      transport,
      ingesterRing: ring,
      client: opts.client ?? ingesters,
      ...(opts.distributorCount === undefined ? {} : { distributorCount: opts.distributorCount }),
      overrides,
      haKV: opts.haKV ?? new MemoryKV({ prefix: 'ha-tracker/' }, { store: new MemoryKVStore() }),
    },
  );
  return { distributor, ingesters, ring, clock, registry, network, transport, logger };
}

export async function metricValue(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (metric === undefined) return 0;
  const data = await metric.get();
  let sum = 0;
  for (const v of data.values) {
    const l = v.labels as Record<string, string | number>;
    if (Object.entries(labels).every(([k, want]) => String(l[k]) === want)) sum += v.value;
  }
  return sum;
}
