// The vectorised engine's own behaviour: result shapes, stats (engine name, fallback nodes),
// batch sizes not changing answers, errors and their precedence, cancellation, annotations.
// Equality with the default engine over generated queries is differential.test.ts's job.
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { Engine } from '../engine/index.js';
import { PromQLError } from '../errors.js';
import { MemoryStorage } from '../memory_storage.js';
import type { QueryResult } from '../query.js';
import { VectorEngine } from './index.js';

function storage(): MemoryStorage {
  const st = new MemoryStorage();
  for (const [job, inst, step] of [
    ['a', '0', 1],
    ['a', '1', 2],
    ['b', '0', 3],
  ] as const) {
    const l = Labels.fromObject({ __name__: 'http_requests_total', job, instance: inst });
    const g = Labels.fromObject({ __name__: 'gauge', job, instance: inst });
    for (let i = 0; i <= 60; i++) {
      st.add(l, i * 15_000, i * step);
      st.add(g, i * 15_000, Math.sin(i + step) * 10);
    }
  }
  return st;
}

const engine = new VectorEngine({}, {});
const reference = new Engine({}, {});

function flat(r: QueryResult): unknown {
  const v = r.value;
  if (v.type === 'matrix') return v.matrix.map((s) => [s.metric.toString(), s.floats]);
  if (v.type === 'vector') return v.vector.map((s) => [s.metric.toString(), s.t, s.f]);
  return v;
}

describe('VectorEngine', () => {
  it('answers range queries natively and reports itself in the stats', async () => {
    const st = storage();
    const r = await engine.rangeQuery(
      st,
      'sum by (job) (rate(http_requests_total[2m])) * 2',
      300_000,
      900_000,
      30_000,
    );
    expect(r.stats.engine).toBe('thanos');
    expect(r.stats.fallbackNodes).toEqual([]);
    expect(r.value.type).toBe('matrix');
    if (r.value.type !== 'matrix') return;
    expect(r.value.matrix.map((s) => s.metric.toString())).toEqual(['{job="a"}', '{job="b"}']);
    // job a: rates 1/15 + 2/15 per second, doubled.
    expect(r.value.matrix[0]?.floats[0]?.f).toBeCloseTo(0.4, 12);
    expect(r.value.matrix[0]?.floats).toHaveLength(21);
  });

  it('falls back to the default engine for nodes it does not handle and names them', async () => {
    const st = storage();
    const q = 'label_replace(gauge, "x", "y", "", "") + on (job, instance) limitk(1, gauge)';
    const r = await engine.rangeQuery(st, q, 300_000, 600_000, 60_000);
    expect(r.stats.fallbackNodes).toEqual([
      'label_replace(gauge, "x", "y", "", "")',
      'limitk(1, gauge)',
    ]);
    const d = await reference.rangeQuery(st, q, 300_000, 600_000, 60_000);
    expect(flat(r)).toEqual(flat(d));
  });

  it('evaluates subqueries of range functions natively', async () => {
    const st = storage();
    for (const q of [
      'max_over_time(gauge[5m:1m])',
      'rate(sum by (job) (http_requests_total)[3m:45s] offset 1m)',
      'predict_linear((gauge * 2)[4m:] @ 600, 30)',
    ]) {
      const r = await engine.rangeQuery(st, q, 300_000, 900_000, 30_000);
      expect(r.stats.fallbackNodes, q).toEqual([]);
      const d = await reference.rangeQuery(st, q, 300_000, 900_000, 30_000);
      expect(flat(r), q).toEqual(flat(d));
      expect(r.value.type === 'matrix' && r.value.matrix.length > 0, q).toBe(true);
    }
  });

  it('gives the same answer whatever the batch size', async () => {
    const st = storage();
    const queries = [
      'gauge',
      'rate(http_requests_total[1m] offset 30s)',
      'avg without (instance) (gauge) > bool 0',
      'gauge unless on (instance) gauge{job="b"}',
      'quantile(0.3, gauge) - scalar(sum(gauge))',
      'predict_linear(gauge[5m] @ 600, 60)',
    ];
    for (const q of queries) {
      const want = flat(await reference.rangeQuery(st, q, 0, 900_000, 15_000));
      for (const stepsBatch of [1, 2, 7, 64, 1000]) {
        const e = new VectorEngine({ stepsBatch }, {});
        expect(flat(await e.rangeQuery(st, q, 0, 900_000, 15_000)), `${q} / ${stepsBatch}`).toEqual(
          want,
        );
      }
    }
  });

  it('shapes instant results as the default engine does', async () => {
    const st = storage();
    for (const q of ['gauge', 'sum(gauge)', 'scalar(sum(gauge))', '"text"', 'gauge[1m]', '1 + 2']) {
      const a = await engine.instantQuery(st, q, 600_000);
      const b = await reference.instantQuery(st, q, 600_000);
      expect(a.value.type, q).toBe(b.value.type);
      expect(flat(a), q).toEqual(flat(b));
    }
    const m = await engine.instantQuery(st, 'gauge[1m]', 600_000);
    expect(m.stats.fallbackNodes).toEqual(['gauge[1m]']);
  });

  it('keeps the default engine order of an instant vector', async () => {
    const st = storage();
    const q = 'gauge{job="b"} or gauge{job="a"} * 1';
    const a = await engine.instantQuery(st, q, 600_000);
    const b = await reference.instantQuery(st, q, 600_000);
    expect(flat(a)).toEqual(flat(b));
    if (a.value.type !== 'vector') throw new Error('not a vector');
    expect(a.value.vector[0]?.metric.get('job')).toBe('b');
  });

  it('sorts natively: sort and sort_desc order an instant vector by value, NaN last', async () => {
    const st = storage();
    for (const q of [
      'sort_desc(gauge)',
      'sort(gauge)',
      'sort_desc(sum by (job) (rate(http_requests_total[1m])))',
      'sort(gauge / 0 * 0 or gauge)', // NaN values sort last either way
    ]) {
      const a = await engine.instantQuery(st, q, 600_000);
      expect(a.stats.fallbackNodes, q).toEqual([]);
      expect(flat(a), q).toEqual(flat(await reference.instantQuery(st, q, 600_000)));
      if (a.value.type !== 'vector') throw new Error('not a vector');
      const values = a.value.vector.map((x) => x.f).filter((f) => !Number.isNaN(f));
      const sorted = [...values].sort((x, y) => (q.startsWith('sort_desc') ? y - x : x - y));
      expect(values, q).toEqual(sorted);
    }
    // In a range query the order is the labels' and the default engine's warning is given.
    const r = await engine.rangeQuery(st, 'sort_desc(gauge)', 0, 600_000, 60_000);
    const d = await reference.rangeQuery(st, 'sort_desc(gauge)', 0, 600_000, 60_000);
    expect(flat(r)).toEqual(flat(d));
    expect(r.annotations.warnings()).toEqual(d.annotations.warnings());
    expect(r.annotations.warnings()[0]).toMatch(/sort is ineffective for range queries/);
  });

  it('reports the error the default engine reports first (left operand before right)', async () => {
    const st = new MemoryStorage();
    // The right-hand side fails at the first step, the left-hand side only at the last one.
    st.add(Labels.fromObject({ __name__: 'l', k: 'x', v: '1' }), 540_000, 1);
    st.add(Labels.fromObject({ __name__: 'l', k: 'x', v: '2' }), 540_000, 1);
    st.add(Labels.fromObject({ __name__: 'r', k: 'y', v: '1' }), 0, 1);
    st.add(Labels.fromObject({ __name__: 'r', k: 'y', v: '2' }), 0, 1);
    const q = '(vector(1) + on () group_left l) + on () (vector(1) + on () group_left r)';
    const run = (e: VectorEngine | Engine): Promise<string> =>
      e.rangeQuery(st, q, 0, 600_000, 60_000).then(
        () => 'no error',
        (err: Error) => err.message,
      );
    const want = await run(reference);
    expect(want).toContain('{__name__="l"');
    expect(await run(new VectorEngine({ stepsBatch: 2 }, {}))).toBe(want);
  });

  it('rejects what the default engine rejects, with the same error kinds', async () => {
    const st = storage();
    await expect(engine.rangeQuery(st, 'gauge[5m]', 0, 60_000, 15_000)).rejects.toMatchObject({
      errorType: 'bad_data',
      message:
        'invalid expression type "range vector" for range query, must be Scalar or instant Vector',
    });
    await expect(engine.rangeQuery(st, 'gauge', 0, 60_000, 0)).rejects.toBeInstanceOf(PromQLError);
    await expect(
      engine.rangeQuery(st, 'gauge * on () gauge', 0, 60_000, 15_000),
    ).rejects.toMatchObject({ errorType: 'execution' });
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      engine.rangeQuery(storage(), 'sum(gauge)', 0, 60_000, 15_000, { signal: ac.signal }),
    ).rejects.toMatchObject({ errorType: 'canceled' });
  });

  it('collects the default engine annotations', async () => {
    const st = storage();
    const r = await engine.rangeQuery(
      st,
      'rate(gauge[1m]) + quantile(2, gauge)',
      0,
      60_000,
      15_000,
    );
    expect(r.annotations.infos()).toEqual([
      'PromQL info: metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "gauge" (1:6)',
    ]);
    expect(r.annotations.warnings()).toEqual([
      'PromQL warning: quantile value should be between 0 and 1, got 2 (1:28)',
    ]);
  });
});

describe('VectorEngine __name__ removal', () => {
  // http_requests_total and gauge have equal labels apart from the name.
  const delayed = new VectorEngine({ enableDelayedNameRemoval: true }, {});
  const delayedReference = new Engine({ enableDelayedNameRemoval: true }, {});

  it('drops names at once by default and answers natively while nothing collides', async () => {
    const q = 'label_replace(rate(http_requests_total[1m]), "n", "$1", "__name__", "(.*)")';
    const r = await engine.rangeQuery(
      storage(),
      'rate(http_requests_total[1m]) * 2',
      0,
      900_000,
      60_000,
    );
    expect(r.stats.fallbackNodes).toEqual([]);
    expect(r.value.type === 'matrix' && r.value.matrix[0]?.metric.has('__name__')).toBe(false);
    for (const [e, ref] of [
      [engine, reference],
      [delayed, delayedReference],
    ] as const) {
      expect(flat(await e.instantQuery(storage(), q, 600_000))).toEqual(
        flat(await ref.instantQuery(storage(), q, 600_000)),
      );
    }
    const now = flat(await engine.instantQuery(storage(), q, 600_000)) as [string][];
    expect(now.map(([l]) => l)).not.toContain(expect.stringContaining('n="http_requests_total"'));
  });

  it('answers the whole query with the default evaluator when dropped names collide', async () => {
    // Equal labels but for the name, samples in disjoint minutes: abs() merges them.
    const st = new MemoryStorage();
    for (let i = 0; i < 5; i++) {
      st.add(Labels.fromObject({ __name__: 'a', job: 'x' }), i * 60_000, i);
      st.add(Labels.fromObject({ __name__: 'b', job: 'x' }), (i + 10) * 60_000, -i);
    }
    const q = 'abs({job="x"}) + 1';
    const r = await engine.rangeQuery(st, q, 0, 900_000, 60_000);
    expect(r.stats.fallbackNodes).toEqual([q]);
    expect(flat(r)).toEqual(flat(await reference.rangeQuery(st, q, 0, 900_000, 60_000)));
    expect(r.value.type === 'matrix' && r.value.matrix.length).toBe(1);
    // Delayed, the same query is answered natively (names collide only at the end).
    const d = await delayed.rangeQuery(st, q, 0, 900_000, 60_000);
    expect(d.stats.fallbackNodes).toEqual([]);
    expect(flat(d)).toEqual(flat(r));
    // Colliding at one step is the reference's error.
    await expect(engine.instantQuery(storage(), 'abs({job="a"})', 600_000)).rejects.toThrow(
      'vector cannot contain metrics with the same labelset',
    );
  });
});
