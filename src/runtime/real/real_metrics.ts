import { collectDefaultMetrics, Registry } from 'prom-client';
import type { MetricsRegistry } from '../metrics.js';

/**
 * A fresh registry with the process and Node.js runtime metrics (CPU, memory, file
 * descriptors, event loop lag, GC) registered on it; never prom-client's global registry.
 */
export function createRealMetricsRegistry(): MetricsRegistry {
  const register = new Registry();
  collectDefaultMetrics({ register });
  return register;
}
