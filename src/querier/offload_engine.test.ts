// The offloaded engine must answer exactly as the in-process engine: same values, labels,
// annotations, statistics and errors, whether storage hands it chunks or decoded samples.
// Jobs run on an inline pool here (the worker-thread pool is tested in runtime/real).
import { describe, expect, it } from 'vitest';
import { elementsArray, encodeResult, joinBodyParts } from '../api/index.js';
import { Labels } from '../model/index.js';
import { Engine } from '../promql/engine/index.js';
import { VectorEngine } from '../promql/vector/index.js';
import {
  DEFAULT_ENGINE_OPTIONS,
  MemoryStorage,
  PromQLError,
  StorageError,
  type PromQLEngine,
  type Queryable,
  type QueryResult,
} from '../promql/index.js';
import { parseExpr } from '../promql/parser/index.js';
import { InlineComputePool, type ComputePool, type JobSpec } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { rawChunksFromSamples } from '../tsdb/index.js';
import { storeSeriesToStorageSeries } from './chunk_series.js';
import { OffloadedEngine } from './offload_engine.js';

const text = (parts: Parameters<typeof joinBodyParts>[0]): string =>
  new TextDecoder().decode(joinBodyParts(parts));

const CLOCK = new ManualClock(0);

const L = (...kv: string[]): Labels => Labels.fromStrings(...kv);
const STALE = new Float64Array(new BigUint64Array([0x7ff0000000000002n]).buffer)[0] as number;

function storage(): MemoryStorage {
  const s = new MemoryStorage();
  for (let t = 0; t <= 600_000; t += 15_000) {
    for (const [job, inst, rate] of [
      ['api', 'a', 10],
      ['api', 'b', 3],
      ['db', 'c', 1],
    ] as const)
      s.add(
        L('__name__', 'http_requests_total', 'instance', inst, 'job', job),
        t,
        (t / 15_000) * rate,
      );
    s.add(L('__name__', 'temperature', 'room', t < 300_000 ? 'kitchen' : 'hall'), t, 20 + (t % 7));
  }
  s.add(L('__name__', 'temperature', 'room', 'attic'), 615_000, STALE);
  return s;
}

/** The same series served as chunk series (the ingester and store-gateway path). */
function chunked(mem: MemoryStorage): Queryable {
  return {
    querier: async (mint, maxt) => {
      const inner = await mem.querier(mint, maxt);
      return {
        select: async (ms, hints) =>
          (await inner.select(ms, hints)).map((s) => {
            const ts: number[] = [];
            const vs: number[] = [];
            const it = s.iterator();
            while (it.next() !== 0) {
              ts.push(it.atT());
              vs.push(it.atF());
            }
            const chunks = rawChunksFromSamples(ts, vs, 7);
            return storeSeriesToStorageSeries({ labels: s.labels, chunks }, mint, maxt);
          }),
        labelNames: (ms) => inner.labelNames(ms),
        labelValues: (n, ms) => inner.labelValues(n, ms),
        close: () => inner.close(),
      };
    },
  };
}

/** `inner` telling `seen` of each querier it opens (`open <mint>..<maxt>`) and closes. */
function watched(inner: Queryable, seen: (event: string) => void): Queryable {
  return {
    querier: async (mint, maxt) => {
      seen(`open ${mint}..${maxt}`);
      const q = await inner.querier(mint, maxt);
      return {
        select: (ms, hints) => q.select(ms, hints),
        labelNames: (ms) => q.labelNames(ms),
        labelValues: (n, ms) => q.labelValues(n, ms),
        close: () => {
          seen('close');
          return q.close();
        },
      };
    },
  };
}

const QUERIES = [
  'http_requests_total',
  'rate(http_requests_total[1m])',
  'sum by (job) (rate(http_requests_total[2m]))',
  'topk(2, http_requests_total)',
  'http_requests_total / on(instance) group_left(job) http_requests_total',
  'quantile_over_time(0.9, temperature[5m])',
  'count({__name__=~".+"})',
  'temperature offset 1m',
  'http_requests_total[1m]',
  'absent(nothing)',
  'scalar(sum(http_requests_total))',
  '"text"',
  'label_replace(temperature, "r", "$1", "room", "(.*)")',
  'histogram_quantile(0.9, http_requests_total)',
  'sum(rate(http_requests_total[5m] @ 300))',
  'http_requests_total + on(job) http_requests_total',
];

const pool = (): InlineComputePool => new InlineComputePool(() => 700_000);

async function outcome(p: Promise<QueryResult>): Promise<unknown> {
  try {
    const r = await p;
    return { value: r.value, annotations: r.annotations.all(), stats: r.stats };
  } catch (err) {
    expect(err).toBeInstanceOf(PromQLError);
    const e = err as PromQLError;
    return { error: e.errorType, message: e.message, storage: err instanceof StorageError };
  }
}

describe.each([
  ['prometheus', (o: typeof DEFAULT_ENGINE_OPTIONS) => new Engine(o, {})],
  ['thanos', (o: typeof DEFAULT_ENGINE_OPTIONS) => new VectorEngine(o, {})],
] as const)('the %s engine offloaded', (name, make) => {
  const options = { ...DEFAULT_ENGINE_OPTIONS, maxSamples: 2_000 };
  const local: PromQLEngine = make(options);
  const offloaded = new OffloadedEngine(name, options, pool(), CLOCK);
  const mem = storage();

  it.each(QUERIES)('answers %s as in-process, over samples and over chunks', async (q) => {
    for (const queryable of [mem, chunked(mem)]) {
      const range = [queryable, q, 60_000, 600_000, 30_000] as const;
      expect(await outcome(offloaded.rangeQuery(...range))).toEqual(
        await outcome(local.rangeQuery(...range)),
      );
      expect(await outcome(offloaded.instantQuery(queryable, q, 600_000))).toEqual(
        await outcome(local.instantQuery(queryable, q, 600_000)),
      );
      // A parsed query (what the HTTP API passes) crosses as its AST.
      expect(await outcome(offloaded.instantQuery(queryable, parseExpr(q), 450_000))).toEqual(
        await outcome(local.instantQuery(queryable, parseExpr(q), 450_000)),
      );
    }
  });

  it.each(QUERIES)(
    'asked to encode, answers %s’s elements as the HTTP API writes them',
    async (q) => {
      for (const [start, end, step] of [
        [60_000, 600_000, 30_000],
        [600_000, 600_000, 0],
      ] as const) {
        const run = (e: PromQLEngine, encode: boolean): Promise<QueryResult> =>
          step === 0
            ? e.instantQuery(chunked(mem), q, start, { encodeResult: encode })
            : e.rangeQuery(chunked(mem), q, start, end, step, { encodeResult: encode });
        let want: QueryResult;
        try {
          want = await run(local, false);
        } catch {
          await expect(run(offloaded, true)).rejects.toThrow(PromQLError);
          continue;
        }
        const got = await run(offloaded, true);
        expect(got.annotations.all()).toEqual(want.annotations.all());
        expect(got.stats).toEqual(want.stats);
        if (want.value.type !== 'vector' && want.value.type !== 'matrix') {
          expect(got.encoded).toBeUndefined();
          expect(got.value).toEqual(want.value);
          continue;
        }
        expect(got.value).toEqual(
          want.value.type === 'vector'
            ? { type: 'vector', vector: [] }
            : { type: 'matrix', matrix: [] },
        );
        const encoded = got.encoded;
        if (encoded === undefined) throw new Error('no encoded elements');
        expect(text(elementsArray(encoded, 0))).toBe(encodeResult(want.value));
        // Cut to a limit, as the API's `limit` parameter does.
        const n =
          want.value.type === 'vector' ? want.value.vector.length : want.value.matrix.length;
        for (let limit = 1; limit < n; limit++) {
          const cut =
            want.value.type === 'vector'
              ? { type: 'vector' as const, vector: want.value.vector.slice(0, limit) }
              : { type: 'matrix' as const, matrix: want.value.matrix.slice(0, limit) };
          expect(text(elementsArray(encoded, limit))).toBe(encodeResult(cut));
        }
      }
    },
  );

  it('fails with the engine’s own errors: too many samples, bad data, storage', async () => {
    const small = { ...options, maxSamples: 50 };
    const q = 'http_requests_total[10m]';
    const big = await outcome(
      new OffloadedEngine(name, small, pool(), CLOCK).instantQuery(mem, q, 6e5),
    );
    expect(big).toEqual(await outcome(make(small).instantQuery(mem, q, 6e5)));
    expect(big).toMatchObject({ error: 'execution' });
    expect(await outcome(offloaded.instantQuery(mem, 'sum(', 0))).toMatchObject({
      error: 'bad_data',
    });
    const failing: Queryable = {
      querier: () => Promise.reject(new StorageError('store-gateway unreachable')),
    };
    const err = await outcome(offloaded.instantQuery(failing, 'up', 0));
    expect(err).toEqual(await outcome(local.instantQuery(failing, 'up', 0)));
    expect(err).toMatchObject({ storage: true, message: 'store-gateway unreachable' });
  });

  it('a failed worker fails its query as a server error (500), naming the failure', async () => {
    const broken: ComputePool = {
      run: () => Promise.reject(new Error('worker ran out of memory')),
      close: () => Promise.resolve(),
    };
    const err = await outcome(
      new OffloadedEngine(name, options, broken, CLOCK).instantQuery(mem, 'up', 0),
    );
    expect(err).toEqual({
      error: 'internal',
      message: 'query evaluation failed: worker ran out of memory',
      storage: false,
    });
  });

  it('makes one call per read, opening queriers at their first and closing each once', async () => {
    const events: string[] = [];
    const queryable = watched(mem, (e) => events.push(e));
    let calls = 0;
    const counting: ComputePool = {
      run: (spec: JobSpec) =>
        pool().run({
          ...spec,
          onCall: (call) => {
            calls++;
            return spec.onCall(call);
          },
        }),
      close: () => Promise.resolve(),
    };
    const engine = new OffloadedEngine(name, options, counting, CLOCK);
    const query = 'http_requests_total / on(instance) group_left(job) http_requests_total';
    const got = await engine.rangeQuery(queryable, query, 60_000, 600_000, 60_000);
    expect(got.value).toEqual((await local.rangeQuery(mem, query, 60_000, 600_000, 60_000)).value);
    // Two selects through one querier: two calls, one open, one close after them.
    expect(calls).toBe(2);
    expect(events.map((e) => e.split(' ')[0])).toEqual(['open', 'close']);
  });

  it('a canceled query fails as canceled and closes what the job opened', async () => {
    const controller = new AbortController();
    let closed = 0;
    const queryable = watched(mem, (e) => {
      if (e === 'close') closed++;
    });
    // A pool whose worker is stopped (as the real pool terminates it) when the query is
    // canceled while the job waits for its first read.
    const aborting: ComputePool = {
      run: (spec: JobSpec) =>
        new Promise((_resolve, reject) => {
          void pool().run({
            ...spec,
            onCall: async (call) => {
              const reply = await spec.onCall(call);
              controller.abort();
              reject(new Error('worker terminated'));
              return new Promise(() => reply); // the stopped job never goes on
            },
          });
        }),
      close: () => Promise.resolve(),
    };
    const engine = new OffloadedEngine(name, options, aborting, CLOCK);
    const err = await outcome(
      engine.instantQuery(queryable, 'up', 0, { signal: controller.signal }),
    );
    expect(err).toMatchObject({ error: 'canceled' });
    expect(closed).toBe(1);
  });
});
