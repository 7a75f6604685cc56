import { RpcError, type RpcCode } from '../transport.js';

/**
 * How RPC outcomes travel over HTTP: each RpcCode has its own status (mostly grpc-gateway's
 * mapping, made one-to-one so the status alone still identifies the code when a proxy eats
 * the JSON body), and error bodies are JSON `{code, message}`.
 */
export const RPC_STATUS: Readonly<Record<RpcCode, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  not_found: 404,
  aborted: 409,
  failed_precondition: 412,
  resource_exhausted: 429,
  internal: 500,
  unimplemented: 501,
  unavailable: 503,
  deadline_exceeded: 504,
};

const CODE_BY_STATUS = new Map<number, RpcCode>(
  Object.entries(RPC_STATUS).map(([code, status]) => [status, code as RpcCode]),
);

export function isRpcCode(value: unknown): value is RpcCode {
  return typeof value === 'string' && Object.hasOwn(RPC_STATUS, value);
}

export const RPC_PATH_PREFIX = '/rpc/';

/**
 * Request headers that belong to HTTP itself, not to the RPC: the server drops them when it
 * rebuilds `RpcRequest.headers`, and callers cannot set them.
 */
export const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'accept',
  'accept-encoding',
  'user-agent',
  'proxy-authorization',
  'proxy-connection',
]);

const encoder = new TextEncoder();

export function encodeRpcError(
  code: RpcCode,
  message: string,
): { status: number; body: Uint8Array } {
  return { status: RPC_STATUS[code], body: encoder.encode(JSON.stringify({ code, message })) };
}

/** The RpcError an HTTP error response stands for; the JSON body wins over the status. */
export function decodeRpcError(status: number, body: Uint8Array, context: string): RpcError {
  const text = new TextDecoder().decode(body);
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (isRpcCode(parsed.code) && typeof parsed.message === 'string')
      return new RpcError(parsed.code, parsed.message);
  } catch {
    // Not our JSON (a proxy's error page, say): fall back to the status below.
  }
  const code = CODE_BY_STATUS.get(status) ?? (status >= 500 ? 'unavailable' : 'internal');
  return new RpcError(code, `${context}: HTTP ${status}: ${text.slice(0, 200)}`);
}

/** Splits `host:port` or `[v6]:port`; the error names the address. */
export function parseAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const port = m === null ? NaN : Number(m[3]);
  if (m === null || port > 65535) {
    throw new RpcError(
      'invalid_argument',
      `invalid peer address ${JSON.stringify(address)}: want host:port`,
    );
  }
  return { host: m[1] ?? m[2] ?? '', port };
}

export function formatAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
