/**
 * Metrics go to the registry handed to each component, never prom-client's global one, so
 * several simulated nodes in one process keep separate numbers.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type MetricsRegistry = Registry;

export function newMetricsRegistry(): MetricsRegistry {
  return new Registry();
}

/**
 * The registry's counter `name`, registered on first use. Several instances of a component
 * (rings and lifecyclers of one process, a querier beside a store-gateway, a component
 * restarted on the same registry) share their metrics instead of failing on the duplicate.
 */
export function registeredCounter<L extends string = never>(
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Counter<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing;
  return new Counter({ name, help, labelNames, registers: [registry] });
}

/** As registeredCounter, for a gauge. */
export function registeredGauge<L extends string = never>(
  registry: MetricsRegistry,
  name: string,
  help: string,
  labelNames: readonly L[] = [],
): Gauge<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Gauge) return existing;
  return new Gauge({ name, help, labelNames, registers: [registry] });
}

/** As registeredCounter, for a histogram. */
export function registeredHistogram<L extends string = never>(
  registry: MetricsRegistry,
  name: string,
  help: string,
  buckets: readonly number[],
  labelNames: readonly L[] = [],
): Histogram<L> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Histogram) return existing;
  return new Histogram({ name, help, buckets: [...buckets], labelNames, registers: [registry] });
}
