import type { Counter, Gauge } from 'prom-client';
import type { ManualClock } from '../runtime/testing/manual_clock.js';
import { CapturingLogger } from '../runtime/testing/capturing_logger.js';
import { newMetricsRegistry, type MetricsRegistry } from '../runtime/metrics.js';
import { FakeMemcachedNetwork, FakeResolver } from './fake_memcached.js';
import { MemcachedClient, type MemcachedClientConfig } from './memcached_client.js';

/** Shared set-up of the memcached client tests: fake servers, resolver, registry, logger. */
export function memcachedTestbed(clock: ManualClock, servers: readonly string[]) {
  const network = new FakeMemcachedNetwork(clock);
  for (const s of servers) network.add(s);
  const resolver = new FakeResolver();
  const registry = newMetricsRegistry();
  const logger = new CapturingLogger();
  const open = (overrides: Partial<MemcachedClientConfig> = {}): MemcachedClient =>
    new MemcachedClient(
      {
        name: 'test-cache',
        addresses: servers,
        timeoutMs: 100,
        maxIdleConnections: 16,
        maxAsyncConcurrency: 10,
        maxAsyncBufferSize: 10_000,
        maxGetMultiConcurrency: 100,
        maxGetMultiBatchSize: 0,
        maxItemSize: 1 << 20,
        ...overrides,
      },
      { clock, logger, resolver, dialer: network, registry },
    );
  return { network, resolver, registry, logger, open };
}

/** The value of one labelled series of a counter or gauge (0 when absent). */
export async function metricValue(
  registry: MetricsRegistry,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = registry.getSingleMetric(name) as Counter | Gauge | undefined;
  if (metric === undefined) return 0;
  const { values } = await metric.get();
  const match = values.find((v) =>
    Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
  );
  return match?.value ?? 0;
}

/** Advances the clock in steps until `promise` settles (unit tests' virtual time). */
export async function settle<T>(clock: ManualClock, promise: Promise<T>, stepMs = 10): Promise<T> {
  let done = false;
  const p = promise.finally(() => {
    done = true;
  });
  for (let i = 0; i < 10_000 && !done; i++) await clock.advance(stepMs);
  return p;
}

const enc = new TextEncoder();
export const bytes = (s: string): Uint8Array => enc.encode(s);
export const entries = (o: Record<string, string>): Map<string, Uint8Array> =>
  new Map(Object.entries(o).map(([k, v]) => [k, bytes(v)]));
