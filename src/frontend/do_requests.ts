/**
 * Runs sub-queries in parallel with a bound (Cortex tripperware.DoRequests with
 * `-querier.max-query-parallelism`): the first failure aborts the others and is the result.
 */
import type { RangeHandler } from './handler.js';
import type { RangeRequest } from './range_request.js';
import type { RangeResponse } from './range_response.js';

/**
 * Sub-queries of one query in flight at once: fixed, or per request from its tenants (the
 * frontend's wiring: `-querier.max-query-parallelism`, a per-tenant limit).
 */
export type Parallelism = number | ((tenantIds: readonly string[]) => number);

/** The bound `parallelism` gives a request of `tenantIds` (at least 1). */
export function parallelismFor(parallelism: Parallelism, tenantIds: readonly string[]): number {
  const n = typeof parallelism === 'number' ? parallelism : parallelism(tenantIds);
  return Math.max(1, Math.trunc(n));
}

/**
 * The smallest positive value of `limit` among the tenants, 0 when none is positive (Cortex's
 * SmallestPositiveIntPerTenant): a federated query never exceeds what any of its tenants allows.
 */
export function smallestPositivePerTenant(
  tenantIds: readonly string[],
  limit: (tenantId: string) => number,
): number {
  let n = 0;
  for (const t of tenantIds) {
    const v = Math.trunc(limit(t));
    if (v > 0 && (n === 0 || v < n)) n = v;
  }
  return n;
}

export interface RequestResponse {
  readonly request: RangeRequest;
  readonly response: RangeResponse;
}

/** Answers in the order of `requests`. */
export async function doRequests(
  next: RangeHandler,
  requests: readonly RangeRequest[],
  parallelism: Parallelism,
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
  const bound = parallelismFor(parallelism, requests[0]?.tenantIds ?? []);
  const workers = Math.max(1, Math.min(bound, requests.length));
  try {
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  if (firstError !== undefined) throw firstError.err;
  return results as RequestResponse[];
}
