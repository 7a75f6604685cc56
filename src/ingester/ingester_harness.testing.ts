// Test support for the ingester's tests (imported by *.test.ts only): one ingester on an
// in-memory network and ring KV, with a ring client, a client to call it, and helpers that
// build pushes. The test passes the clock and file system so it keeps control of both.
import { buildWriteRequest, encodeWriteRequest, type PlainSeries } from '../distributor/index.js';
import { JSON_RING_CODEC, Ring, type RingDesc } from '../ring/index.js';
import {
  MemoryKV,
  MemoryKVStore,
  MemoryNetwork,
  createSeededRandom,
  newMetricsRegistry,
  type Bucket,
  type Clock,
  type FileSystem,
  type KV,
  type Logger,
  type MetricsRegistry,
} from '../runtime/index.js';
import { TransportIngesterClient, type PushBatch } from './client.js';
import { Ingester, type IngesterConfig } from './ingester.js';
import type { TenantLimits } from './tenant_dbs.js';
import type { MetadataLimits } from './metadata_store.js';
import { ValueType, XorIterator, type RawChunk, type SeriesChunks } from '../tsdb/index.js';

export const HOUR = 3_600_000;
export const INGESTER_ADDR = 'ingester-1:9095';

export class HarnessLimits implements TenantLimits, MetadataLimits {
  perUser = 0;
  perMetric = 0;
  /** Cortex's defaults for the metadata limits. */
  metadataPerUser = 8000;
  metadataPerMetric = 10;
  globalMetadataPerUser = 0;
  globalMetadataPerMetric = 0;
  maxMetadataPerUser(): number {
    return this.metadataPerUser;
  }
  maxMetadataPerMetric(): number {
    return this.metadataPerMetric;
  }
  maxGlobalMetadataPerUser(): number {
    return this.globalMetadataPerUser;
  }
  maxGlobalMetadataPerMetric(): number {
    return this.globalMetadataPerMetric;
  }
  maxGlobalSeriesPerUser(): number {
    return this.perUser;
  }
  maxGlobalSeriesPerMetric(): number {
    return this.perMetric;
  }
  outOfOrderTimeWindow(): number {
    return 0;
  }
}

export interface Harness {
  ingester: Ingester;
  client: TransportIngesterClient;
  network: MemoryNetwork;
  store: MemoryKVStore;
  kv: KV;
  ring: Ring;
  metrics: MetricsRegistry;
  limits: HarnessLimits;
  /** The ring descriptor as stored in the KV. */
  ringDesc(): Promise<RingDesc>;
}

export interface HarnessOptions {
  clock: Clock;
  fs: FileSystem;
  logger: Logger;
  /** Shared with an earlier harness to restart an ingester on the same ring. */
  store?: MemoryKVStore;
  /** The blocks bucket: given, the ingester ships (unless tenantDBs.shipInterval is 0). */
  bucket?: Bucket;
  config?: Partial<Omit<IngesterConfig, 'lifecycler'>> & {
    lifecycler?: Partial<IngesterConfig['lifecycler']>;
  };
}

/** Builds the ingester and its transport (listening), not started. */
export async function buildHarness(o: HarnessOptions): Promise<Harness> {
  const network = new MemoryNetwork();
  const store = o.store ?? new MemoryKVStore();
  const kv = new MemoryKV({}, { store });
  const metrics = newMetricsRegistry();
  const limits = new HarnessLimits();
  const ring = new Ring(
    {
      name: 'ingester',
      key: 'ring',
      replicationFactor: 1,
      heartbeatTimeoutMs: 60_000,
      zoneAwarenessEnabled: false,
    },
    { kv, clock: o.clock, logger: o.logger, metrics },
  );
  const transport = network.transport(INGESTER_ADDR);
  const ingester = new Ingester(
    {
      tenantDBs: {
        dir: '/data/tsdb',
        blockRanges: [2 * HOUR],
        retention: 24 * HOUR,
        headCompactionInterval: 60_000,
        headCompactionConcurrency: 2,
        openingConcurrency: 2,
        stripeSize: 16,
        walCompression: false,
        ...o.config?.tenantDBs,
      },
      lifecycler: {
        ringName: 'ingester',
        key: 'ring',
        id: 'ingester-1',
        addr: '',
        zone: '',
        numTokens: 8,
        heartbeatPeriodMs: 5_000,
        joinAfterMs: 0,
        tokensFilePath: '',
        unregisterOnShutdown: false,
        ...o.config?.lifecycler,
      },
      flushOnShutdown: o.config?.flushOnShutdown ?? false,
      ...(o.config?.minReadyDurationMs === undefined
        ? {}
        : { minReadyDurationMs: o.config.minReadyDurationMs }),
      ...(o.config?.metadataRetainPeriodMs === undefined
        ? {}
        : { metadataRetainPeriodMs: o.config.metadataRetainPeriodMs }),
      ...(o.config?.uploadCompactedBlocks === undefined
        ? {}
        : { uploadCompactedBlocks: o.config.uploadCompactedBlocks }),
      ...(o.config?.seriesLabelsCacheEntries === undefined
        ? {}
        : { seriesLabelsCacheEntries: o.config.seriesLabelsCacheEntries }),
    },
    {
      fs: o.fs,
      clock: o.clock,
      random: createSeededRandom('ingester-test'),
      logger: o.logger,
      metrics,
      transport,
      kv,
      ring,
      limits,
      ...(o.bucket === undefined ? {} : { bucket: o.bucket }),
    },
  );
  await transport.listen();
  return {
    ingester,
    client: new TransportIngesterClient(network.transport('querier-1')),
    network,
    store,
    kv,
    ring,
    metrics,
    limits,
    ringDesc: async () => JSON_RING_CODEC.decode(await kv.get('ring')),
  };
}

/** One series `{__name__=name, ...extra}` with samples `[timestamp, value]`. */
export function series(
  name: string,
  extra: Record<string, string>,
  ...samples: [number, number][]
): PlainSeries {
  return {
    labels: [['__name__', name], ...Object.entries(extra)],
    samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
  };
}

/** An uncompressed WriteRequest protobuf (what `ingester.Push` carries). */
export function writeRequest(...s: PlainSeries[]): Uint8Array {
  return encodeWriteRequest(buildWriteRequest({ series: s }));
}

/** A distributor's batch of every series given (what `IngesterClient.push` takes). */
export function batch(...s: PlainSeries[]): PushBatch {
  const data = buildWriteRequest({ series: s });
  return { data, seriesIndexes: data.series.map((_, i) => i), metadata: [] };
}

/**
 * A query result as `labels t=v ...` lines: each series' chunks decoded, every timestamp
 * once, within [mint, maxt] (the chunks a query answers with may reach outside its window).
 */
export function lines(
  result: readonly SeriesChunks[],
  mint = -Infinity,
  maxt = Infinity,
): string[] {
  return result.map(
    (s) => `${s.labels.toString()} ${decodeChunks(s.chunks, mint, maxt).join(' ')}`,
  );
}

/** `t=v` of every sample in `chunks` within [mint, maxt], by time, each timestamp once. */
export function decodeChunks(chunks: readonly RawChunk[], mint: number, maxt: number): string[] {
  const byTime = new Map<number, number>();
  for (const c of chunks) {
    const it = new XorIterator(c.data);
    while (it.next() !== ValueType.None) {
      const t = it.atT();
      if (t >= mint && t <= maxt && !byTime.has(t)) byTime.set(t, it.atF());
    }
    const err = it.err();
    if (err !== null) throw err;
  }
  return [...byTime].sort((a, b) => a[0] - b[0]).map(([t, v]) => `${t}=${v}`);
}
