/**
 * Metrics go to the registry handed to each component, never prom-client's global one, so
 * several simulated nodes in one process keep separate numbers.
 */
import { Registry } from 'prom-client';

export type MetricsRegistry = Registry;

export function newMetricsRegistry(): MetricsRegistry {
  return new Registry();
}
