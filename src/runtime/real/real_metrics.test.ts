import { register as globalRegistry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRealMetricsRegistry } from './real_metrics.js';

describe('createRealMetricsRegistry', () => {
  it('exposes process and Node.js runtime metrics on a fresh registry, not the global one', async () => {
    const before = (await globalRegistry.getMetricsAsJSON()).length;
    const a = createRealMetricsRegistry();
    const b = createRealMetricsRegistry();
    expect(a).not.toBe(b);
    const text = await a.metrics();
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_heap_size_total_bytes');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect((await globalRegistry.getMetricsAsJSON()).length).toBe(before);
  });
});

describe('default metric names', () => {
  it('has no gauge ending in _total (Prometheus reserves the suffix for counters)', async () => {
    const metrics = await createRealMetricsRegistry().getMetricsAsJSON();
    const misnamed = metrics.filter(
      (m) => String(m.type) !== 'counter' && m.name.endsWith('_total'),
    );
    expect(misnamed.map((m) => m.name)).toEqual([]);
    expect(metrics.map((m) => m.name)).toContain('nodejs_active_handles');
  });
});
