import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isAbortError } from '../clock.js';
import type { Logger } from '../logger.js';
import {
  RpcError,
  type CallOptions,
  type RpcHandler,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../transport.js';
import { BodyTooLargeError, readBody } from './http_body.js';
import {
  RPC_PATH_PREFIX,
  TRANSPORT_HEADERS,
  decodeRpcError,
  encodeRpcError,
  formatAddress,
  parseAddress,
} from './rpc_wire.js';

export interface HttpTransportConfig {
  /** Interface to listen on (e.g. `0.0.0.0`, `127.0.0.1`). */
  host: string;
  /** 0 picks a free port; `listen()` returns the actual one. */
  port: number;
  /** Largest request or response body accepted; Cortex raises gRPC's limit to 100 MiB. */
  maxBodyBytes?: number;
  /**
   * The host peers dial when `host` is a wildcard (empty, `0.0.0.0`, `::`): what `listen()`
   * returns in the address (default `127.0.0.1`; a real process passes its host name).
   */
  advertiseHost?: string;
}

const WILDCARD_HOSTS: ReadonlySet<string> = new Set(['', '0.0.0.0', '::', '[::]']);

export const DEFAULT_MAX_RPC_BODY_BYTES = 100 * 1024 * 1024;

/** Sends of one call: on a pooled socket, then once more on a new connection (see sendFresh). */
const MAX_SENDS = 2;

/** A request reset on a reused keep-alive socket before any answer: the peer never read it. */
class StaleSocketError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}

/** Network failures that mean "the peer is not there (any more)". */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * Transport over plain HTTP/1.1 on the internal port: `POST /rpc/<method>` carries the body,
 * its content type and the RPC headers as ordinary HTTP headers; success is 200 with the
 * response body; failure is the code's status with a JSON `{code, message}` body (rpc_wire.ts).
 * Calls reuse connections through a keep-alive agent.
 */
export class HttpTransport implements Transport {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly agent = new http.Agent({ keepAlive: true });
  private readonly maxBodyBytes: number;
  private readonly serving = new Set<AbortController>();
  /** Stops every call in flight; `close()` runs them. */
  private readonly calling = new Set<() => void>();
  private server: http.Server | undefined;
  private closed = false;
  address: string | undefined;

  constructor(
    private readonly config: HttpTransportConfig,
    private readonly deps: { logger: Logger },
  ) {
    this.maxBodyBytes = config.maxBodyBytes ?? DEFAULT_MAX_RPC_BODY_BYTES;
  }

  handle(method: string, handler: RpcHandler): void {
    if (this.handlers.has(method))
      throw new Error(`rpc handler for ${JSON.stringify(method)} already registered`);
    this.handlers.set(method, handler);
  }

  async listen(): Promise<string> {
    if (this.closed) throw new Error('transport closed');
    if (this.server !== undefined)
      throw new Error(`transport already listening on ${this.address ?? '?'}`);
    const server = http.createServer((req, res) => void this.serve(req, res));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // An empty host means every interface (Node's default when the host is omitted).
      server.listen(
        this.config.port,
        this.config.host === '' ? undefined : this.config.host,
        () => {
          server.off('error', reject);
          resolve();
        },
      );
    }).catch((err: unknown) => {
      this.server = undefined;
      throw new Error(
        `rpc listen on ${formatAddress(this.config.host, this.config.port)}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    });
    server.on('error', (err) => this.deps.logger.error('rpc server error', { err: err.message }));
    const { port } = server.address() as AddressInfo;
    const host = WILDCARD_HOSTS.has(this.config.host)
      ? (this.config.advertiseHost ?? '127.0.0.1')
      : this.config.host;
    this.address = formatAddress(host, port);
    return this.address;
  }

  async call(address: string, req: RpcRequest, opts: CallOptions = {}): Promise<RpcResponse> {
    const context = `rpc ${req.method} to ${address}`;
    if (this.closed) throw new RpcError('unavailable', `${context}: transport closed`);
    if (opts.signal?.aborted) throw new RpcError('aborted', `${context}: aborted before start`);
    const { host, port } = parseAddress(address);
    const controller = new AbortController();
    let cause: 'timeout' | 'signal' | 'closed' | undefined;
    const stop = (why: 'timeout' | 'signal' | 'closed'): void => {
      cause ??= why;
      controller.abort();
    };
    const onSignal = (): void => stop('signal');
    opts.signal?.addEventListener('abort', onSignal, { once: true });
    const timer =
      opts.timeoutMs === undefined ? undefined : setTimeout(() => stop('timeout'), opts.timeoutMs);
    const onClose = (): void => stop('closed');
    this.calling.add(onClose);
    try {
      // A call to this process's own address (a single binary's distributor pushing to its
      // ingester) skips the socket and the body copies; callers see the same outcomes.
      if (address === this.address && this.server !== undefined)
        return await this.callLocal(req, controller.signal);
      return await this.sendFresh(host, port, req, controller.signal, context);
    } catch (err) {
      if (err instanceof RpcError && cause === undefined) throw err;
      if (cause === 'timeout') {
        throw new RpcError(
          'deadline_exceeded',
          `${context}: deadline exceeded after ${opts.timeoutMs}ms`,
        );
      }
      if (cause === 'signal') throw new RpcError('aborted', `${context}: aborted by caller`);
      if (cause === 'closed') throw new RpcError('aborted', `${context}: transport closed`);
      throw toRpcError(err, context);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onSignal);
      this.calling.delete(onClose);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stopCall of [...this.calling]) stopCall();
    for (const c of this.serving) c.abort();
    this.agent.destroy();
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async callLocal(req: RpcRequest, signal: AbortSignal): Promise<RpcResponse> {
    const handler = this.handlers.get(req.method);
    if (handler === undefined)
      throw new RpcError('unimplemented', `unknown rpc method ${JSON.stringify(req.method)}`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      const lower = name.toLowerCase();
      if (TRANSPORT_HEADERS.has(lower))
        throw new RpcError(
          'invalid_argument',
          `rpc ${req.method}: header ${JSON.stringify(name)} is reserved by the transport`,
        );
      headers[lower] = value;
    }
    const controller = new AbortController();
    this.serving.add(controller);
    const onAbort = (): void => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const aborted = new Promise<never>((_, reject) => {
        // The outer call maps the cause (timeout, caller's signal, close) to its RpcError.
        controller.signal.addEventListener('abort', () => reject(new Error('local call aborted')), {
          once: true,
        });
      });
      return await Promise.race([
        handler({ ...req, headers }, controller.signal).catch((err: unknown) => {
          throw this.handlerError(req.method, err);
        }),
        aborted,
      ]);
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.serving.delete(controller);
    }
  }

  /** What a handler's failure becomes on the wire (logged when it is not a coded error). */
  private handlerError(method: string, err: unknown): RpcError {
    const rpcErr =
      err instanceof RpcError
        ? err
        : isAbortError(err)
          ? new RpcError('aborted', `rpc ${method}: ${(err as Error).message}`)
          : new RpcError(
              'internal',
              `rpc ${method}: ${err instanceof Error ? err.message : String(err)}`,
            );
    if (rpcErr.code === 'internal') {
      this.deps.logger.error('rpc handler failed', {
        method,
        err: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
    return rpcErr;
  }

  /**
   * Sends `req`, again on another connection when a kept-alive one turns out to be closed:
   * a peer closes idle connections after its keep-alive timeout (Node's default 5 s), and a
   * caller whose event loop was busy longer still takes the dead socket from its pool; the
   * request is then reset before the peer read it. Node's documented remedy is to send such
   * a request again (`request.reusedSocket` with ECONNRESET). Under load this turned a
   * store-gateway call into a spurious 'unavailable'. A reset on a new connection, or once an
   * answer began, is a real failure and is not retried.
   */
  private async sendFresh(
    host: string,
    port: number,
    req: RpcRequest,
    signal: AbortSignal,
    context: string,
  ): Promise<RpcResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        // A retry goes on a connection of its own: the pool may hold more dead sockets.
        return await this.send(host, port, req, signal, context, attempt > 1);
      } catch (err) {
        if (!(err instanceof StaleSocketError) || attempt >= MAX_SENDS)
          throw err instanceof StaleSocketError ? err.cause : err;
      }
    }
  }

  private send(
    host: string,
    port: number,
    req: RpcRequest,
    signal: AbortSignal,
    context: string,
    /** Bypass the keep-alive pool (one connection for this request only). */
    unpooled = false,
  ): Promise<RpcResponse> {
    const headers: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (TRANSPORT_HEADERS.has(name.toLowerCase())) {
        throw new RpcError(
          'invalid_argument',
          `${context}: header ${JSON.stringify(name)} is reserved by the transport`,
        );
      }
      headers[name] = value;
    }
    headers['content-type'] = req.contentType;
    headers['content-length'] = req.body.length;
    return new Promise<RpcResponse>((resolve, reject) => {
      let request: http.ClientRequest;
      try {
        request = http.request({
          host,
          port,
          method: 'POST',
          path: RPC_PATH_PREFIX + encodeURIComponent(req.method),
          headers,
          agent: unpooled ? false : this.agent,
          signal,
        });
      } catch (err) {
        reject(toRpcError(err, context));
        return;
      }
      let answered = false;
      request.on('error', (err: NodeJS.ErrnoException) => {
        const stale = request.reusedSocket && !answered && err.code === 'ECONNRESET';
        reject(stale && !signal.aborted ? new StaleSocketError(err) : err);
      });
      request.on('response', (res) => {
        answered = true;
        readBody(res, this.maxBodyBytes).then((body) => {
          if (res.statusCode === 200) {
            resolve({ body, contentType: res.headers['content-type'] ?? '' });
          } else {
            reject(decodeRpcError(res.statusCode ?? 0, body, context));
          }
        }, reject);
      });
      request.end(req.body);
    });
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith(RPC_PATH_PREFIX)) {
      req.resume();
      reply(
        res,
        encodeRpcError('unimplemented', `not an rpc endpoint: ${req.method ?? '?'} ${url}`),
      );
      return;
    }
    let method: string;
    try {
      method = decodeURIComponent(url.slice(RPC_PATH_PREFIX.length));
    } catch {
      req.resume();
      reply(res, encodeRpcError('invalid_argument', `malformed rpc path ${JSON.stringify(url)}`));
      return;
    }
    const handler = this.handlers.get(method);
    if (handler === undefined) {
      req.resume();
      reply(res, encodeRpcError('unimplemented', `unknown rpc method ${JSON.stringify(method)}`));
      return;
    }
    const controller = new AbortController();
    this.serving.add(controller);
    // The caller went away (timeout, abort, crash) before we answered: stop the handler's work.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
      this.serving.delete(controller);
    });
    try {
      let body: Uint8Array;
      try {
        body = await readBody(req, this.maxBodyBytes);
      } catch (err) {
        if (err instanceof BodyTooLargeError) {
          reply(res, encodeRpcError('resource_exhausted', `rpc ${method}: request ${err.message}`));
          return;
        }
        throw err;
      }
      const response = await handler(
        { method, body, contentType: req.headers['content-type'] ?? '', headers: rpcHeaders(req) },
        controller.signal,
      );
      if (res.destroyed) return;
      res.writeHead(200, {
        'content-type': response.contentType,
        'content-length': response.body.length,
      });
      res.end(response.body);
    } catch (err) {
      if (res.destroyed) return;
      const rpcErr = this.handlerError(method, err);
      reply(res, encodeRpcError(rpcErr.code, rpcErr.message));
    }
  }
}

function reply(
  res: http.ServerResponse,
  { status, body }: { status: number; body: Uint8Array },
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
}

function rpcHeaders(req: http.IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (TRANSPORT_HEADERS.has(name) || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function toRpcError(err: unknown, context: string): RpcError {
  if (err instanceof RpcError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof BodyTooLargeError)
    return new RpcError('resource_exhausted', `${context}: response ${message}`);
  if (typeof code === 'string' && UNAVAILABLE_ERRNOS.has(code)) {
    return new RpcError('unavailable', `${context}: ${code}: ${message}`);
  }
  if (typeof code === 'string' && code.startsWith('ERR_INVALID')) {
    return new RpcError('invalid_argument', `${context}: ${message}`);
  }
  return new RpcError('unavailable', `${context}: ${message}`);
}
