import {
  createServerRequest,
  createServerResponse,
  type ServerAnswer,
  type ServerRequestInit,
} from './in_process_messages.js';

/** A node `(req, res)` request listener, such as `HttpServer.handler`. */
export type RequestListener = (req: never, res: never) => unknown;

/**
 * Runs one request through `handler` without a socket and resolves with its answer: how a
 * querier's worker executes the HTTP requests a query-frontend or scheduler hands it (Cortex
 * does the same through httpgrpc), so they meet the querier's real routes, tenant
 * resolution, limits and error table. `signal` is the frontend giving up: the request is
 * aborted as if its client hung up, and the call rejects.
 */
export function dispatchInProcess(
  handler: RequestListener,
  init: ServerRequestInit,
  signal?: AbortSignal,
): Promise<ServerAnswer> {
  return new Promise((resolve, reject) => {
    const req = createServerRequest(init);
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    const response = createServerResponse(req, {
      onEnd: (answer) => {
        done();
        resolve(answer);
      },
      onDestroy: () => {
        done();
        reject(new Error(`${init.method} ${init.url}: the handler reset the request`));
      },
    });
    const onAbort = (): void => {
      response.clientGone();
      done();
      reject(signal?.reason instanceof Error ? signal.reason : new Error('request aborted'));
    };
    if (signal?.aborted) {
      onAbort();
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      (handler as unknown as (req: unknown, res: unknown) => unknown)(req, response.res);
    } catch (err) {
      done();
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}
