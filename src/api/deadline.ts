/**
 * The `timeout` parameter as Prometheus applies it: a deadline on the query's context. We
 * have no contexts, so the deadline is a timer on the injected clock that aborts the signal
 * handed to the engine; a query the engine reports as canceled because of it is reported
 * as timed out (503 `timeout`), as Prometheus's context.DeadlineExceeded would be.
 */
import { PromQLError, QueryCanceledError, QueryTimeoutError } from '../promql/index.js';
import { type Clock, isAbortError, type Timer } from '../runtime/index.js';

const CANCELED_PREFIX = 'query was canceled in ';
const QUEUE = 'query queue';

/**
 * Runs `fn` with a signal that aborts when `parent` does or `timeoutNs` elapses (no
 * deadline when undefined). A zero or negative timeout has expired before the query starts:
 * `query timed out in query queue`, as Prometheus answers.
 */
export async function withDeadline<T>(
  clock: Clock,
  parent: AbortSignal,
  timeoutNs: bigint | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  // Prometheus checks its context when the query enters the queue: a request that is
  // already gone or whose deadline has passed never reaches evaluation.
  if (parent.aborted) throw new QueryCanceledError(QUEUE);
  if (timeoutNs !== undefined && timeoutNs <= 0n) throw new QueryTimeoutError(QUEUE);
  const controller = new AbortController();
  let timedOut = false;
  let timer: Timer | undefined;
  const onParentAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onParentAbort, { once: true });
  if (timeoutNs !== undefined) {
    timer = clock.setTimer(Number(timeoutNs) / 1e6, () => {
      timedOut = true;
      controller.abort();
    });
  }
  try {
    return await fn(controller.signal);
  } catch (err) {
    if (timedOut) throw asTimeout(err);
    throw err;
  } finally {
    timer?.cancel();
    parent.removeEventListener('abort', onParentAbort);
  }
}

/** The timeout form of a cancellation caused by the deadline (`query timed out in <where>`). */
function asTimeout(err: unknown): unknown {
  if (err instanceof PromQLError && err.errorType === 'canceled') {
    const where = err.message.startsWith(CANCELED_PREFIX)
      ? err.message.slice(CANCELED_PREFIX.length)
      : 'query execution';
    return new QueryTimeoutError(where);
  }
  if (isAbortError(err)) return new QueryTimeoutError('query execution');
  return err;
}
