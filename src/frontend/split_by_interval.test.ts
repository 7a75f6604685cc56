// Split boundaries against values computed by hand with Cortex's nextIntervalBoundary and
// splitQuery rules, and the middleware's parallel fan-out and merge.
import { describe, expect, it } from 'vitest';
import { alignToStep, stepAlignMiddleware } from './step_align.js';
import {
  nextIntervalBoundary,
  splitByIntervalMiddleware,
  splitQuery,
} from './split_by_interval.js';
import { smallestPositivePerTenant } from './do_requests.js';
import { formulaAnswer, rangeRequest, RecordingDownstream } from './test_helpers.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('nextIntervalBoundary', () => {
  it('is the last step before the next interval start', () => {
    // 3600000 % 15 = 0: the boundary itself would be hit, so one step back.
    expect(nextIntervalBoundary(0, 15, HOUR)).toBe(HOUR - 15);
    // (3600000 - 1) % 15 = 14 → 3600000 - 14.
    expect(nextIntervalBoundary(1, 15, HOUR)).toBe(HOUR - 14);
    // 86400000 % 7 = 1 → 86399999.
    expect(nextIntervalBoundary(0, 7, DAY)).toBe(DAY - 1);
    expect(nextIntervalBoundary(0, 1, DAY)).toBe(DAY - 1);
    // A step longer than the interval: the start itself.
    expect(nextIntervalBoundary(0, 2 * DAY, DAY)).toBe(0);
  });

  it('keeps the step grid of the start time', () => {
    for (const [t, step] of [
      [82_807_000, 60_000],
      [12_345, 7_000],
      [DAY - 1, 1_000],
    ] as const) {
      const b = nextIntervalBoundary(t, step, DAY);
      expect((b - t) % step).toBe(0);
      expect(b).toBeLessThan((Math.trunc(t / DAY) + 1) * DAY);
      expect(b + step).toBeGreaterThanOrEqual((Math.trunc(t / DAY) + 1) * DAY);
    }
  });
});

describe('splitQuery', () => {
  it('splits two days at the day boundary (Cortex example)', () => {
    const reqs = splitQuery(rangeRequest({ start: 0, end: 2 * DAY, step: 15_000 }), DAY);
    expect(reqs.map((r) => [r.start, r.end])).toEqual([
      [0, DAY - 15_000],
      [DAY, 2 * DAY],
    ]);
  });

  it('keeps an unaligned start grid: 23h00m07s to 25h by 1m', () => {
    // (86400000 − 82807000) % 60000 = 53000 → first end 86347000, next start 86407000;
    // (172800000 − 86407000) % 60000 = 53000 → 172747000 is past the end: last end = end.
    const reqs = splitQuery(rangeRequest({ start: 82_807_000, end: 90_000_000 }), DAY);
    expect(reqs.map((r) => [r.start, r.end])).toEqual([
      [82_807_000, 86_347_000],
      [86_407_000, 90_000_000],
    ]);
  });

  it('does not split within one interval but still prints the query canonically', () => {
    const reqs = splitQuery(
      rangeRequest({ start: HOUR, end: 2 * HOUR, query: 'sum  by(job)(up)' }),
      DAY,
    );
    expect(reqs.map((r) => [r.start, r.end, r.query])).toEqual([
      [HOUR, 2 * HOUR, 'sum by (job) (up)'],
    ]);
  });

  it('keeps a single-point query as it is', () => {
    const req = rangeRequest({ start: HOUR, end: HOUR, query: 'up @ start()' });
    expect(splitQuery(req, DAY)).toEqual([req]);
  });

  it('resolves @ start() and @ end() to the original bounds in every sub-query', () => {
    const reqs = splitQuery(
      rangeRequest({
        start: 1_000,
        end: 2 * HOUR + 5,
        step: 1_000,
        query: 'rate(foo[1m] @ start()) + sum(bar @ end()) + max_over_time(x[5m:1m] @ start())',
      }),
      HOUR,
    );
    expect(reqs.length).toBe(3);
    for (const r of reqs) {
      expect(r.query).toBe(
        'rate(foo[1m] @ 1.000) + sum(bar @ 7200.005) + max_over_time(x[5m:1m] @ 1.000)',
      );
    }
  });

  it('covers every step of the original query exactly once', () => {
    for (const [start, end, step, interval] of [
      [0, 10 * HOUR, 60_000, HOUR],
      [7_000, 5 * HOUR + 3_000, 7_000, HOUR],
      [HOUR - 1, 3 * HOUR, 1_000, 2 * HOUR],
      [0, 3 * DAY, 5 * HOUR, DAY],
    ] as const) {
      const req = rangeRequest({ start, end, step });
      const seen: number[] = [];
      for (const r of splitQuery(req, interval)) {
        for (let t = r.start; t <= r.end; t += step) seen.push(t);
      }
      const expected: number[] = [];
      for (let t = start; t <= end; t += step) expected.push(t);
      expect(seen).toEqual(expected);
    }
  });
});

describe('splitByIntervalMiddleware', () => {
  it('runs the sub-queries within the parallelism bound and merges their answers', async () => {
    const down = new RecordingDownstream();
    let inFlight = 0;
    let maxInFlight = 0;
    const handler = splitByIntervalMiddleware({ interval: HOUR, maxQueryParallelism: 2 })(async (
      req,
      signal,
    ) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Promise.resolve();
      await Promise.resolve();
      inFlight--;
      return down.handler(req, signal);
    });
    const req = rangeRequest({ start: 0, end: 5 * HOUR, query: 'up' });
    const resp = await handler(req, new AbortController().signal);
    expect(down.calls.length).toBe(5);
    expect(maxInFlight).toBe(2);
    expect(resp).toEqual({ ...formulaAnswer(req), headers: resp.headers });
  });

  it("bounds each query by its tenants' parallelism limit, the smallest positive one", async () => {
    const limits: Record<string, number> = { 'team-a': 1, 'team-b': 3, 'team-c': 0 };
    const perTenant = (ids: readonly string[]) =>
      smallestPositivePerTenant(ids, (t) => limits[t] ?? 0);
    const maxInFlight = async (tenantIds: string[]): Promise<number> => {
      let inFlight = 0;
      let max = 0;
      const handler = splitByIntervalMiddleware({
        interval: HOUR,
        maxQueryParallelism: perTenant,
      })(async (req) => {
        inFlight++;
        max = Math.max(max, inFlight);
        await Promise.resolve();
        await Promise.resolve();
        inFlight--;
        return formulaAnswer(req);
      });
      await handler(
        rangeRequest({ start: 0, end: 6 * HOUR, query: 'up', tenantIds }),
        new AbortController().signal,
      );
      return max;
    };
    expect(await maxInFlight(['team-a'])).toBe(1);
    expect(await maxInFlight(['team-b'])).toBe(3);
    // A federated query: the smallest positive limit of its tenants.
    expect(await maxInFlight(['team-b', 'team-c'])).toBe(3);
    expect(await maxInFlight(['team-a', 'team-b'])).toBe(1);
    // No positive limit at all: one at a time, never none.
    expect(await maxInFlight(['team-c'])).toBe(1);
  });

  it('fails with the first sub-query error and aborts the rest', async () => {
    const signals: AbortSignal[] = [];
    const handler = splitByIntervalMiddleware({ interval: HOUR, maxQueryParallelism: 3 })((
      req,
      signal,
    ) => {
      signals.push(signal);
      if (req.start === HOUR) return Promise.reject(new Error('querier down'));
      return new Promise((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    });
    await expect(
      handler(rangeRequest({ start: 0, end: 3 * HOUR }), new AbortController().signal),
    ).rejects.toThrow('querier down');
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('does not split a query with a limit', async () => {
    const down = new RecordingDownstream();
    const handler = splitByIntervalMiddleware({ interval: HOUR, maxQueryParallelism: 2 })(
      down.handler,
    );
    const params = { limit: '3', timeout: '', lookbackDelta: '', stats: '' };
    await handler(rangeRequest({ end: 5 * HOUR, params }), new AbortController().signal);
    expect(down.ranges()).toEqual([[0, 5 * HOUR]]);
  });
});

describe('step alignment', () => {
  it('moves start and end down to multiples of the step', async () => {
    expect(alignToStep(1_003, 10)).toBe(1_000);
    expect(alignToStep(2_009, 10)).toBe(2_000);
    expect(alignToStep(2_000, 10)).toBe(2_000);
    // Go's integer division truncates toward zero.
    expect(alignToStep(-15, 10)).toBe(-10);
    const down = new RecordingDownstream();
    await stepAlignMiddleware(down.handler)(
      rangeRequest({ start: 90_500, end: 3_600_999, step: 60_000 }),
      new AbortController().signal,
    );
    expect(down.ranges()).toEqual([[60_000, 3_600_000]]);
  });
});
