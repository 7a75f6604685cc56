// Limits and failures: the sample limit, cancellation through an AbortSignal, the timeout as a
// deadline on the injected clock, storage errors, and the query stats.
import { describe, expect, it } from 'vitest';
import type { Clock, Timer } from '../../runtime/index.js';
import {
  QueryCanceledError,
  QueryTimeoutError,
  StorageError,
  TooManySamplesError,
} from '../errors.js';
import type { Querier } from '../storage.js';
import { VectorEngine } from '../vector/index.js';
import { Engine } from './index.js';
import { load, series, TestStorage } from './test_helpers.js';

const M = 60_000;

function data(): TestStorage {
  const st = new TestStorage();
  for (let i = 0; i < 10; i++) load(st, M, { __name__: 'm', i: String(i) }, series(0, 1, 60));
  return st;
}

/** A clock whose time moves forward by `tick` ms on every read, and may run a hook. */
class TickingClock implements Clock {
  private t = 0;
  reads = 0;
  constructor(
    private readonly tick: number,
    private readonly onRead?: (reads: number) => void,
  ) {}
  now(): number {
    this.reads++;
    this.onRead?.(this.reads);
    this.t += this.tick;
    return this.t;
  }
  sleep(): Promise<void> {
    return Promise.reject(new Error('not used'));
  }
  yieldTurn(): Promise<void> {
    return Promise.resolve();
  }
  setTimer(): Timer {
    throw new Error('not used');
  }
  every(): Timer {
    throw new Error('not used');
  }
}

describe('limits', () => {
  it('fails with TooManySamplesError past maxSamples', async () => {
    const engine = new Engine({ maxSamples: 9 }, {});
    const err: unknown = await engine.instantQuery(data(), 'm', 30 * M).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManySamplesError);
    expect(err).toMatchObject({
      errorType: 'execution',
      message: 'query processing would load too many samples into memory in query execution',
    });
    await expect(
      new Engine({ maxSamples: 10 }, {}).instantQuery(data(), 'm', 30 * M),
    ).resolves.toBeDefined();
  });

  it('counts range-function windows against the limit', async () => {
    // Series are processed one at a time: one window of 10 samples is over a limit of 9.
    const engine = new Engine({ maxSamples: 9 }, {});
    await expect(engine.instantQuery(data(), 'rate(m{i="0"}[10m])', 30 * M)).rejects.toBeInstanceOf(
      TooManySamplesError,
    );
    await expect(engine.instantQuery(data(), 'rate(m{i="0"}[5m])', 30 * M)).resolves.toBeDefined();
  });

  it('reports stats', async () => {
    const engine = new Engine({}, {});
    const r = await engine.rangeQuery(data(), 'sum(m)', 0, 10 * M, M);
    expect(r.stats.engine).toBe('prometheus');
    expect(r.stats.totalQueryableSamples).toBe(110);
    expect(r.stats.peakSamples).toBeGreaterThanOrEqual(110);
  });
});

describe('cancellation and timeout', () => {
  it('rejects an already aborted query', async () => {
    const ac = new AbortController();
    ac.abort();
    const err: unknown = await new Engine({}, {})
      .instantQuery(data(), 'm', 0, { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryCanceledError);
    expect(err).toMatchObject({
      errorType: 'canceled',
      message: 'query was canceled in query execution',
    });
  });

  it('stops between steps when the signal aborts mid-evaluation', async () => {
    const ac = new AbortController();
    const clock = new TickingClock(0, (reads) => {
      if (reads === 30) ac.abort();
    });
    const err: unknown = await new Engine({}, { clock })
      .rangeQuery(data(), 'sum(m)', 0, 60 * M, M, { signal: ac.signal })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryCanceledError);
    expect(err).toMatchObject({ message: 'query was canceled in expression evaluation' });
  });

  it('times out against the injected clock', async () => {
    const clock = new TickingClock(1000);
    const err: unknown = await new Engine({ timeout: 20_000 }, { clock })
      .rangeQuery(data(), 'sum(m)', 0, 60 * M, M)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(QueryTimeoutError);
    expect(err).toMatchObject({
      errorType: 'timeout',
      message: 'query timed out in expression evaluation',
    });
    // A zero timeout disables the deadline.
    await expect(
      new Engine({ timeout: 0 }, { clock: new TickingClock(1000) }).rangeQuery(
        data(),
        'sum(m)',
        0,
        60 * M,
        M,
      ),
    ).resolves.toBeDefined();
  });

  it('applies the smaller of the engine timeout and the query timeout', async () => {
    const run = (engineTimeout: number, queryTimeout: number): Promise<unknown> =>
      new Engine({ timeout: engineTimeout }, { clock: new TickingClock(1000) })
        .rangeQuery(data(), 'sum(m)', 0, 60 * M, M, { timeout: queryTimeout })
        .then(
          () => 'ok',
          (e: unknown) => e,
        );
    // Each clock read advances 1s: a 20s query timeout expires, a 10-minute one does not.
    expect(await run(0, 20_000)).toBeInstanceOf(QueryTimeoutError);
    expect(await run(600_000, 20_000)).toBeInstanceOf(QueryTimeoutError);
    expect(await run(20_000, 600_000)).toBeInstanceOf(QueryTimeoutError);
    expect(await run(0, 0)).toBe('ok');
    expect(await run(0, 10 * 60 * 60_000)).toBe('ok');
  });
});

describe('storage errors', () => {
  it('surfaces a failing select as StorageError', async () => {
    const st = data();
    st.failSelect = new Error('disk on fire');
    const err: unknown = await new Engine({}, {}).instantQuery(st, 'm', 0).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StorageError);
    expect(err).toMatchObject({ errorType: 'internal', message: 'expanding series: disk on fire' });
  });

  it('asks for one querier spanning every selector, offsets and lookback included', async () => {
    const st = data();
    const seen: [number, number][] = [];
    const spy = {
      querier: (mint: number, maxt: number) => {
        seen.push([mint, maxt]);
        return st.querier(mint, maxt);
      },
    };
    await new Engine({}, {}).instantQuery(spy, 'm offset 10m + rate(m[5m])', 30 * M);
    expect(seen).toEqual([[15 * M + 1, 30 * M]]);
  });

  it.each([
    ['prometheus', () => new Engine({}, {})],
    ['thanos', () => new VectorEngine({}, {})],
  ])('hands the query signal to storage in the select hints (%s engine)', async (_name, engine) => {
    const st = data();
    const signals: (AbortSignal | undefined)[] = [];
    const spy = {
      querier: async (mint: number, maxt: number): Promise<Querier> => {
        const q = await st.querier(mint, maxt);
        return {
          select: (m, hints) => {
            signals.push(hints?.signal);
            return q.select(m, hints);
          },
          labelNames: (m) => q.labelNames(m),
          labelValues: (n, m) => q.labelValues(n, m),
          close: () => q.close(),
        };
      },
    };
    const ac = new AbortController();
    await engine().instantQuery(spy, 'sum(rate(m[5m]))', 30 * M, { signal: ac.signal });
    expect(signals.length).toBeGreaterThan(0);
    for (const s of signals) expect(s).toBe(ac.signal);
  });
});
