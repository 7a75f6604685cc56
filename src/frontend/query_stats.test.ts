import { describe, expect, it } from 'vitest';
import { formFromParts } from '../api/index.js';
import { newMetricsRegistry } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { QueryStats } from './query_stats.js';

function stats(logQueriesLongerThanMs: number, queryStatsEnabled = true) {
  const clock = new ManualClock(0);
  const logger = new CapturingLogger();
  const registry = newMetricsRegistry();
  const s = new QueryStats(
    { logQueriesLongerThanMs, queryStatsEnabled },
    { clock, logger, registry },
  );
  return { s, clock, logger, registry };
}

const form = formFromParts(undefined, 'query=sum(up)&start=1&end=2&step=1');

describe('QueryStats', () => {
  it('logs only queries slower than the threshold, with their parameters', async () => {
    const { s, clock, logger } = stats(1_000);
    let t = s.start();
    await clock.advance(999);
    s.finish(t, { tenant: 'a', path: '/prometheus/api/v1/query_range', form, status: 200 });
    expect(logger.find('slow query detected')).toHaveLength(0);
    t = s.start();
    await clock.advance(1_500);
    s.finish(t, { tenant: 'a', path: '/prometheus/api/v1/query_range', form, status: 200 });
    const [line] = logger.find('slow query detected');
    expect(line?.fields).toMatchObject({
      org_id: 'a',
      time_taken: '1500ms',
      param_query: 'sum(up)',
      param_step: '1',
    });
  });

  it('logs every query with a negative threshold and none with 0', async () => {
    const every = stats(-1);
    every.s.finish(every.s.start(), {
      tenant: 'a',
      path: '/api/v1/query',
      form: undefined,
      status: 200,
    });
    expect(every.logger.find('slow query detected')).toHaveLength(1);
    const none = stats(0);
    const t = none.s.start();
    await none.clock.advance(60_000);
    none.s.finish(t, { tenant: 'a', path: '/api/v1/query', form: undefined, status: 200 });
    expect(none.logger.find('slow query detected')).toHaveLength(0);
  });

  it('counts queries per tenant and operation, and wall seconds when stats are enabled', async () => {
    const { s, clock, registry } = stats(0, true);
    const t = s.start();
    await clock.advance(2_500);
    s.finish(t, { tenant: 'a', path: '/prometheus/api/v1/query_range', form, status: 200 });
    s.finish(s.start(), {
      tenant: 'b',
      path: '/api/prom/api/v1/series',
      form: undefined,
      status: 400,
    });
    const text = await registry.metrics();
    expect(text).toContain('cortex_query_frontend_queries_total{user="a",op="query_range"} 1');
    expect(text).toContain('cortex_query_frontend_queries_total{user="b",op="series"} 1');
    expect(text).toContain('cortex_query_seconds_total{user="a"} 2.5');
    const off = stats(0, false);
    off.s.finish(off.s.start(), {
      tenant: 'a',
      path: '/api/v1/query',
      form: undefined,
      status: 200,
    });
    expect(await off.registry.metrics()).not.toContain('cortex_query_seconds_total{');
  });
});
