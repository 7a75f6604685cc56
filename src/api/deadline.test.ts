import { describe, expect, it } from 'vitest';
import { QueryCanceledError, QueryExecutionError, QueryTimeoutError } from '../promql/index.js';
import { AbortError } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { withDeadline } from './deadline.js';

describe('withDeadline', () => {
  const hang = (signal: AbortSignal): Promise<never> =>
    new Promise((_, reject) =>
      signal.addEventListener('abort', () => reject(new QueryCanceledError('query queue')), {
        once: true,
      }),
    );

  it('turns a cancellation caused by the deadline into a timeout naming the same place', async () => {
    const clock = new ManualClock(0);
    const p = withDeadline(clock, new AbortController().signal, 2_000_000_000n, hang);
    const seen = p.catch((e: unknown) => e);
    await clock.advance(2000);
    const err = await seen;
    expect(err).toBeInstanceOf(QueryTimeoutError);
    expect((err as Error).message).toBe('query timed out in query queue');
  });

  it('reports a client that went away as canceled, not timed out', async () => {
    const clock = new ManualClock(0);
    const parent = new AbortController();
    const p = withDeadline(clock, parent.signal, 5_000_000_000n, hang).catch((e: unknown) => e);
    parent.abort();
    expect(await p).toBeInstanceOf(QueryCanceledError);
    expect(clock.pendingTimers).toBe(0);
  });

  it('fails before running when the deadline has passed or the client is gone', async () => {
    const clock = new ManualClock(0);
    let ran = false;
    const run = (): Promise<number> => {
      ran = true;
      return Promise.resolve(1);
    };
    await expect(withDeadline(clock, new AbortController().signal, 0n, run)).rejects.toThrow(
      'query timed out in query queue',
    );
    await expect(withDeadline(clock, new AbortController().signal, -5n, run)).rejects.toThrow(
      'query timed out in query queue',
    );
    await expect(withDeadline(clock, AbortSignal.abort(), undefined, run)).rejects.toThrow(
      'query was canceled in query queue',
    );
    expect(ran).toBe(false);
  });

  it('maps an AbortError after the deadline to a timeout and leaves other errors alone', async () => {
    const clock = new ManualClock(0);
    const after = (err: Error) => (signal: AbortSignal) =>
      new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(err), { once: true }),
      );
    const timedOut = withDeadline(
      clock,
      new AbortController().signal,
      1_000_000n,
      after(new AbortError()),
    ).catch((e: unknown) => e);
    await clock.advance(1);
    expect(((await timedOut) as Error).message).toBe('query timed out in query execution');
    const other = withDeadline(
      clock,
      new AbortController().signal,
      1_000_000n,
      after(new QueryExecutionError('bad')),
    ).catch((e: unknown) => e);
    await clock.advance(1);
    expect(await other).toBeInstanceOf(QueryExecutionError);
    expect(
      await withDeadline(clock, new AbortController().signal, undefined, () => Promise.resolve(7)),
    ).toBe(7);
  });
});
