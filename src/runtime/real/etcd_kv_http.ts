import http from 'node:http';
import { AbortError } from '../clock.js';

export interface EtcdHttpConfig {
  /** Client URLs (`http://host:port`; a bare `host:port` means http), tried in order. */
  endpoints: readonly string[];
  /** Limit on establishing a connection to one endpoint before trying the next. */
  dialTimeoutMs: number;
  /** Limit on one unary request to one endpoint, connection included. */
  requestTimeoutMs: number;
}

/**
 * An answer etcd gave that another endpoint would give too (a bad request, a key too large):
 * it is not worth failing over, and the caller's CAS loop should not retry it.
 */
export class EtcdRequestError extends Error {
  override readonly name = 'EtcdRequestError';
}

class StaleConnectionError extends Error {}

/** One JSON message of a streaming call (a watch response or an error). */
export type EtcdStreamMessage = Record<string, unknown>;

/**
 * The HTTP side of the etcd client: JSON calls to the v3 gRPC gateway with failover across
 * endpoints (starting with the last one that answered), and newline-delimited streaming for
 * watches. Errors name the operation and every endpoint that failed, with its reason.
 */
export class EtcdHttp {
  private readonly endpoints: readonly URL[];
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  /** Index of the endpoint that answered last; calls start there. */
  private preferred = 0;

  constructor(private readonly config: EtcdHttpConfig) {
    if (config.endpoints.length === 0) throw new RangeError('etcd: no endpoints configured');
    for (const [name, v] of [
      ['dialTimeoutMs', config.dialTimeoutMs],
      ['requestTimeoutMs', config.requestTimeoutMs],
    ] as const) {
      if (!Number.isFinite(v) || v <= 0)
        throw new RangeError(`etcd: ${name} must be > 0, got ${v}`);
    }
    this.endpoints = config.endpoints.map(parseEndpoint);
  }

  /** POSTs `body` to `path`, failing over to the next endpoint when one is unreachable or unavailable. */
  async call<T>(op: string, path: string, body: unknown, signal: AbortSignal): Promise<T> {
    const payload = JSON.stringify(body);
    const failures: string[] = [];
    const n = this.endpoints.length;
    const start = this.preferred;
    for (let i = 0; i < n; i++) {
      if (signal.aborted) throw new AbortError(`etcd ${op} aborted`);
      const idx = (start + i) % n;
      const endpoint = this.endpoints[idx]!;
      let res: { status: number; body: string };
      try {
        res = await this.unary(endpoint, path, payload, signal).catch((err: unknown) => {
          // A pooled connection the member closed (it restarted) fails on first use: that
          // says nothing about the member, so try once more on a fresh connection.
          if (!(err instanceof StaleConnectionError) || signal.aborted) throw err;
          return this.unary(endpoint, path, payload, signal);
        });
      } catch (err) {
        if (signal.aborted) throw new AbortError(`etcd ${op} aborted`);
        failures.push(`${endpoint.origin}: ${errorMessage(err)}`);
        continue;
      }
      if (res.status === 200) {
        this.preferred = idx;
        return JSON.parse(res.body) as T;
      }
      const reason = `HTTP ${res.status}: ${gatewayErrorMessage(res.body)}`;
      // 5xx means this member cannot serve now (no leader, shutting down): another might.
      if (res.status >= 500) {
        failures.push(`${endpoint.origin}: ${reason}`);
        continue;
      }
      throw new EtcdRequestError(`etcd ${op} at ${endpoint.origin}: ${reason}`);
    }
    throw new Error(`etcd ${op} failed on every endpoint: ${failures.join('; ')}`);
  }

  /**
   * Opens a streaming call on the first endpoint (from `from`, wrapping) that accepts it and
   * hands every JSON message to `onMessage`. Resolves when the server ends the stream or
   * `signal` aborts; rejects on connection errors or an error status, naming the endpoint.
   */
  async stream(
    op: string,
    path: string,
    body: unknown,
    signal: AbortSignal,
    onMessage: (msg: EtcdStreamMessage) => void,
  ): Promise<void> {
    const payload = JSON.stringify(body);
    const failures: string[] = [];
    const n = this.endpoints.length;
    const start = this.preferred;
    for (let i = 0; i < n; i++) {
      if (signal.aborted) return;
      const endpoint = this.endpoints[(start + i) % n]!;
      let res: http.IncomingMessage;
      try {
        res = await this.open(endpoint, path, payload, signal);
      } catch (err) {
        if (signal.aborted) return;
        failures.push(`${endpoint.origin}: ${errorMessage(err)}`);
        continue;
      }
      if (res.statusCode !== 200) {
        const text = await readAll(res).catch((err: unknown) => errorMessage(err));
        failures.push(`${endpoint.origin}: HTTP ${res.statusCode}: ${gatewayErrorMessage(text)}`);
        continue;
      }
      await consumeLines(res, signal, onMessage).catch((err: unknown) => {
        if (signal.aborted) return;
        throw new Error(`etcd ${op} at ${endpoint.origin}: ${errorMessage(err)}`);
      });
      return;
    }
    throw new Error(`etcd ${op} failed on every endpoint: ${failures.join('; ')}`);
  }

  close(): void {
    this.agent.destroy();
  }

  private unary(
    endpoint: URL,
    path: string,
    payload: string,
    signal: AbortSignal,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = this.request(endpoint, path, payload, signal, this.agent);
      const total = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.config.requestTimeoutMs} ms`)),
        this.config.requestTimeoutMs,
      );
      req.once('close', () => clearTimeout(total));
      req.once('error', (err: Error & { code?: unknown }) => {
        const stale =
          req.reusedSocket && (err.code === 'ECONNRESET' || err.message === 'socket hang up');
        reject(stale ? new StaleConnectionError(err.message, { cause: err }) : err);
      });
      req.once('response', (res) => {
        readAll(res).then((text) => resolve({ status: res.statusCode ?? 0, body: text }), reject);
      });
      req.end(payload);
    });
  }

  private open(
    endpoint: URL,
    path: string,
    payload: string,
    signal: AbortSignal,
  ): Promise<http.IncomingMessage> {
    return new Promise((resolve, reject) => {
      // A watch holds its connection for as long as it runs: keep it out of the shared pool.
      const req = this.request(endpoint, path, payload, signal, false);
      req.once('socket', (sock) => sock.setKeepAlive(true, 10_000));
      req.once('error', reject);
      req.once('response', resolve);
      req.end(payload);
    });
  }

  private request(
    endpoint: URL,
    path: string,
    payload: string,
    signal: AbortSignal,
    agent: http.Agent | false,
  ): http.ClientRequest {
    const req = http.request(new URL(path, endpoint), {
      method: 'POST',
      agent,
      signal,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
      },
    });
    req.once('socket', (sock) => {
      if (!sock.connecting) return;
      const dial = setTimeout(
        () => req.destroy(new Error(`could not connect within ${this.config.dialTimeoutMs} ms`)),
        this.config.dialTimeoutMs,
      );
      sock.once('connect', () => clearTimeout(dial));
      req.once('close', () => clearTimeout(dial));
    });
    return req;
  }
}

function parseEndpoint(raw: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new RangeError(`etcd: invalid endpoint ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:') {
    throw new RangeError(
      `etcd: endpoint ${JSON.stringify(raw)} uses ${url.protocol.slice(0, -1)}; only http is supported`,
    );
  }
  return url;
}

function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.once('error', reject);
    res.once('aborted', () => reject(new Error('response aborted')));
  });
}

/** The gateway writes one JSON message per line; the stream ends when etcd closes it. */
function consumeLines(
  res: http.IncomingMessage,
  signal: AbortSignal,
  onMessage: (msg: EtcdStreamMessage) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      res.destroy();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      if (failed || signal.aborted) return;
      buffered += chunk;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl).trim();
        buffered = buffered.slice(nl + 1);
        if (line === '') continue;
        try {
          onMessage(JSON.parse(line) as EtcdStreamMessage);
        } catch (err) {
          fail(err);
          return;
        }
        if (signal.aborted) return;
      }
    });
    res.once('end', () => {
      if (!failed) resolve();
    });
    res.once('error', fail);
    res.once('close', () => {
      if (signal.aborted) resolve();
      else if (!res.complete) fail(new Error('connection closed mid-stream'));
      else resolve();
    });
  });
}

function gatewayErrorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // not JSON: show the start of the body
  }
  return body.slice(0, 200);
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' && !err.message.includes(code)
      ? `${code}: ${err.message}`
      : err.message;
  }
  return String(err);
}
