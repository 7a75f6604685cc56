/**
 * A tiny reverse proxy on loopback that adds `X-Scope-OrgID` to every request: Debian's
 * Prometheus 2.42 cannot send custom remote-write headers, so this is how it writes to a
 * Strata that runs with auth enabled. It counts what it forwarded so tests can see the
 * traffic went through it.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export interface TenantProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Requests forwarded so far, by upstream status. */
  readonly forwarded: Map<number, number>;
  close(): Promise<void>;
}

export async function startTenantProxy(upstream: string, tenant: string): Promise<TenantProxy> {
  const target = new URL(upstream);
  const forwarded = new Map<number, number>();
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, 'x-scope-orgid': tenant, host: target.host };
    const up = request(
      {
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers,
      },
      (upRes: IncomingMessage) => {
        const status = upRes.statusCode ?? 502;
        forwarded.set(status, (forwarded.get(status) ?? 0) + 1);
        res.writeHead(status, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', (err) => {
      forwarded.set(502, (forwarded.get(502) ?? 0) + 1);
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}\n`);
    });
    req.pipe(up);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    forwarded,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
