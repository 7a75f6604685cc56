// `max_fetched_series_per_query` through the real PromQL engine: a query that selects more
// unique series than the limit (across all its selectors) fails with Cortex's message, as
// Prometheus wraps a select's error (`expanding series: …`), and as a 422 `execution` error
// like Cortex's limit errors; at the limit, or with the limit off, it answers as before.
import { describe, expect, it } from 'vitest';
import { toApiError } from '../api/index.js';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { MemoryStorage } from '../promql/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { limitedQueryable, maxSeriesHitMessage } from './query_limiter.js';

const T = 1_700_000_000_000;

function storage(): MemoryStorage {
  const s = new MemoryStorage();
  for (const job of ['api', 'db']) {
    for (let i = 0; i < 3; i++) {
      s.add(Labels.fromStrings('__name__', 'up', 'job', job, 'instance', `i${i}`), T, 1);
      s.add(Labels.fromStrings('__name__', 'load', 'job', job, 'instance', `i${i}`), T, i);
    }
  }
  return s;
}

async function run(query: string, limit: number, vectorised = false): Promise<string> {
  const clock = new ManualClock(T);
  const engine = vectorised ? new VectorEngine({}, { clock }) : new Engine({}, { clock });
  try {
    const result = await engine.instantQuery(
      limitedQueryable(storage(), () => limit),
      query,
      T,
    );
    return `ok ${result.value.type === 'vector' ? result.value.vector.length : '?'}`;
  } catch (err) {
    const api = toApiError(err);
    return `${api.status} ${api.errorType}: ${api.message}`;
  }
}

describe('max_fetched_series_per_query', () => {
  it('fails a query that fetches more unique series than the limit with 422', async () => {
    expect(await run('sum(up)', 5)).toBe(
      `422 execution: expanding series: ${maxSeriesHitMessage(5)}`,
    );
    expect(await run('sum(up)', 6)).toBe('ok 1');
    expect(await run('sum(up)', 0)).toBe('ok 1');
    // The vectorised engine wraps the select's error the same way.
    expect(await run('sum(up)', 5, true)).toBe(
      `422 execution: expanding series: ${maxSeriesHitMessage(5)}`,
    );
    expect(await run('sum(up)', 6, true)).toBe('ok 1');
  });

  it('counts the series of all selectors of a query together, each label set once', async () => {
    // 3 + 3 series: within 6, over 5.
    expect(await run('up{job="api"} + on(instance) load{job="api"}', 6)).toBe('ok 3');
    expect(await run('up{job="api"} + on(instance) load{job="api"}', 5)).toBe(
      `422 execution: expanding series: ${maxSeriesHitMessage(5)}`,
    );
    // The same six series selected twice are still six.
    expect(await run('count(up) + count(up)', 6)).toBe('ok 1');
  });

  it('reads the limit for each query, so a changed override applies to the next one', async () => {
    let limit = 100;
    const engine = new Engine({}, { clock: new ManualClock(T) });
    const queryable = limitedQueryable(storage(), () => limit);
    await expect(engine.instantQuery(queryable, 'count(up)', T)).resolves.toBeDefined();
    limit = 2;
    await expect(engine.instantQuery(queryable, 'count(up)', T)).rejects.toThrow(
      maxSeriesHitMessage(2),
    );
  });
});
