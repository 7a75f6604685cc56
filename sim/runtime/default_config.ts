import type { SimRuntimeConfig } from './sim_services.js';

/**
 * Defaults of every simulated-runtime knob: a healthy LAN (a few milliseconds, no loss), a
 * local SSD (sub-millisecond writes, millisecond fsyncs, torn appends on power loss), and
 * shared services at typical cloud latencies. Scenarios override what they care about.
 */
export function defaultSimRuntimeConfig(): SimRuntimeConfig {
  return {
    network: {
      latency: { distribution: 'lognormal', medianMs: 2, sigma: 0.5, maxMs: 100 },
      loss: 0,
      duplication: 0,
    },
    disk: {
      opLatency: { distribution: 'uniform', minMs: 0, maxMs: 1 },
      syncLatency: { distribution: 'uniform', minMs: 1, maxMs: 5 },
      tornWrites: true,
    },
    objectStore: {
      latency: { distribution: 'lognormal', medianMs: 20, sigma: 0.5, maxMs: 500 },
      errorRate: 0,
      listDelayMs: 0,
      opsPerSecond: 0,
      burst: 100,
    },
    kv: { latency: { distribution: 'uniform', minMs: 1, maxMs: 5 }, errorRate: 0 },
    cache: {
      latency: { distribution: 'uniform', minMs: 0, maxMs: 2 },
      errorRate: 0,
      maxSizeBytes: 64 * 1024 * 1024,
    },
  };
}
