// Where `__name__` is removed: at once (Prometheus's default, the engine's default) or marked
// and removed when the result leaves the engine (Prometheus's promql-delayed-name-removal
// feature, which its test engine and the conformance engines enable). The queries below are
// the ones whose answers differ between the two.
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_OPTIONS } from '../query.js';
import { Engine } from './index.js';
import { flatten, load, TestStorage } from './test_helpers.js';

const M = 60_000;
const SAME_LABELSET = 'vector cannot contain metrics with the same labelset';

const now = new Engine({}, {});
const delayed = new Engine({ enableDelayedNameRemoval: true }, {});

/** name_label_dropping.test's two counters with the same labels. */
function counters(): TestStorage {
  const st = new TestStorage();
  load(st, 5 * M, { __name__: 'metric_total', env: '1' }, [0, 60, 120]);
  load(st, 5 * M, { __name__: 'another_metric_total', env: '1' }, [60, 120, 180]);
  return st;
}

/** metric_a has samples in the first minutes only, metric_b later only; equal labels. */
function disjoint(): TestStorage {
  const st = new TestStorage();
  const gap = (from: number, n: number): (number | undefined)[] =>
    Array.from({ length: 15 }, (_, i) => (i >= from && i < from + n ? i : undefined));
  load(st, M, { __name__: 'metric_a', job: 'x' }, gap(0, 5));
  load(st, M, { __name__: 'metric_b', job: 'x' }, gap(10, 5));
  return st;
}

async function instant(e: Engine, st: TestStorage, q: string, t = 10 * M): Promise<unknown> {
  return flatten((await e.instantQuery(st, q, t)).value);
}

describe('__name__ removal', () => {
  it('is not delayed by default, as in Prometheus', () => {
    expect(DEFAULT_ENGINE_OPTIONS.enableDelayedNameRemoval).toBe(false);
  });

  it('label_replace after rate() sees the name only when removal is delayed', async () => {
    const q = 'label_replace(rate(metric_total[10m]), "n", "$1", "__name__", "(.*)")';
    expect(await instant(now, counters(), q)).toEqual({ '{env="1"}': 0.2 });
    expect(await instant(delayed, counters(), q)).toEqual({ '{env="1", n="metric_total"}': 0.2 });
  });

  it('sum by (__name__) after a function groups the nameless series together at once', async () => {
    const st = new TestStorage();
    load(st, 5 * M, { __name__: 'metric_total', env: '1' }, [0, 60, 120]);
    load(st, 5 * M, { __name__: 'another_metric_total', env: '2' }, [60, 120, 180]);
    const q = 'sum by (__name__) (rate({__name__=~".+_total"}[10m]))';
    expect(await instant(now, st, q)).toEqual({ '{}': 0.4 });
    // Delayed: one group per (to-be-dropped) name, equal once the names go.
    await expect(delayed.instantQuery(st, q, 10 * M)).rejects.toThrow(SAME_LABELSET);
    // With equal labels the rate() outputs collide at once instead.
    const same = 'sum by (__name__) (rate({env="1"}[10m]))';
    await expect(now.instantQuery(counters(), same, 10 * M)).rejects.toThrow(SAME_LABELSET);
  });

  it('keeps names a series still has when grouping by __name__', async () => {
    const st = new TestStorage();
    load(
      st,
      M,
      { __name__: 'metric_total', env: '1' },
      Array.from({ length: 11 }, (_, i) => i),
    );
    load(
      st,
      M,
      { __name__: 'metric_total', env: '2' },
      Array.from({ length: 11 }, (_, i) => 3 * i),
    );
    const q = 'sum by (__name__) (metric_total{env="1"} or rate(metric_total{env="2"}[5m]))';
    // At once: the selector keeps its name, rate's output has none, so two groups.
    expect(await instant(now, st, q)).toEqual({ '{}': 0.05, '{__name__="metric_total"}': 10 });
    // Delayed: one group, whose name is dropped because one member's is.
    expect(await instant(delayed, st, q)).toEqual({ '{}': 10.05 });
  });

  it('a range function whose outputs collide fails at once, but merges when delayed', async () => {
    const q = 'rate({job="x"}[2m])';
    await expect(now.rangeQuery(disjoint(), q, 0, 14 * M, M)).rejects.toThrow(SAME_LABELSET);
    const r = flatten((await delayed.rangeQuery(disjoint(), q, 0, 14 * M, M)).value) as Record<
      string,
      [number, number][]
    >;
    expect(Object.keys(r)).toEqual(['{job="x"}']);
    expect(r['{job="x"}']?.map(([t]) => t / M)).toEqual([1, 2, 3, 4, 11, 12, 13, 14]);
  });

  it('an instant function result with two equal label sets fails at the function', async () => {
    const q = 'abs({env="1"})';
    await expect(now.instantQuery(counters(), q, 10 * M)).rejects.toThrow(SAME_LABELSET);
    // Delayed, the same collision is found only when the names are finally dropped.
    await expect(delayed.instantQuery(counters(), q, 10 * M)).rejects.toThrow(SAME_LABELSET);
    // A later step merges the two into one series when they never meet at a step.
    const r = await now.rangeQuery(disjoint(), 'abs({job="x"})', 0, 14 * M, M);
    expect(Object.keys(flatten(r.value) as object)).toEqual(['{job="x"}']);
  });

  it('drops names of arithmetic, bool comparisons and unary minus either way', async () => {
    for (const e of [now, delayed]) {
      expect(await instant(e, counters(), 'metric_total * 2')).toEqual({ '{env="1"}': 240 });
      expect(await instant(e, counters(), 'metric_total <= bool another_metric_total')).toEqual({
        '{env="1"}': 1,
      });
      expect(await instant(e, counters(), 'metric_total <= another_metric_total')).toEqual({
        '{__name__="metric_total", env="1"}': 120,
      });
      expect(await instant(e, counters(), '-metric_total')).toEqual({ '{env="1"}': -120 });
      expect(await instant(e, counters(), 'last_over_time(metric_total[10m])')).toEqual({
        '{__name__="metric_total", env="1"}': 120,
      });
      expect(await instant(e, counters(), 'timestamp(metric_total)')).toEqual({ '{env="1"}': 600 });
    }
  });

  it('label_replace reading __name__ after unary minus differs the same way', async () => {
    const q = 'label_replace(-metric_total, "n", "$1", "__name__", "(.+)")';
    expect(await instant(now, counters(), q)).toEqual({ '{env="1"}': -120 });
    expect(await instant(delayed, counters(), q)).toEqual({ '{env="1", n="metric_total"}': -120 });
  });
});
