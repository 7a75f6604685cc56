import { collectDefaultMetrics, Registry } from 'prom-client';
import type { MetricsRegistry } from '../metrics.js';

/**
 * prom-client's default gauges that end in `_total`, which Prometheus's naming rules reserve
 * for counters (`promtool check metrics` flags them). Each has a correctly named twin
 * without the suffix (`nodejs_active_handles`, ...), so dropping them loses nothing.
 */
const MISNAMED_DEFAULT_GAUGES = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * A fresh registry with the process and Node.js runtime metrics (CPU, memory, file
 * descriptors, event loop lag, GC) registered on it; never prom-client's global registry.
 */
export function createRealMetricsRegistry(): MetricsRegistry {
  const register = new Registry();
  collectDefaultMetrics({ register });
  for (const name of MISNAMED_DEFAULT_GAUGES) register.removeSingleMetric(name);
  return register;
}
