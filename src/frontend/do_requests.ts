/**
 * Runs sub-queries in parallel with a bound (Cortex tripperware.DoRequests with
 * `-querier.max-query-parallelism`): the first failure aborts the others and is the result.
 */
import type { RangeHandler } from './handler.js';
import type { RangeRequest } from './range_request.js';
import type { RangeResponse } from './range_response.js';

export interface RequestResponse {
  readonly request: RangeRequest;
  readonly response: RangeResponse;
}

/** Answers in the order of `requests`. */
export async function doRequests(
  next: RangeHandler,
  requests: readonly RangeRequest[],
  parallelism: number,
  signal: AbortSignal,
): Promise<RequestResponse[]> {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const results: (RequestResponse | undefined)[] = requests.map(() => undefined);
  let nextIndex = 0;
  let firstError: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (firstError === undefined && nextIndex < requests.length) {
      const i = nextIndex++;
      const request = requests[i] as RangeRequest;
      try {
        results[i] = { request, response: await next(request, controller.signal) };
      } catch (err) {
        if (firstError === undefined) {
          firstError = { err };
          controller.abort(err);
        }
      }
    }
  };
  const workers = Math.max(1, Math.min(parallelism, requests.length));
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (firstError !== undefined) throw firstError.err;
  return results as RequestResponse[];
}
