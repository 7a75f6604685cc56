import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatAddress } from './rpc_wire.js';

export interface HttpListener {
  /** `host:port` with the actual port. */
  readonly address: string;
  readonly port: number;
  /**
   * Stops accepting connections, lets requests in flight finish for up to `graceMs`, then
   * destroys whatever connections remain. Resolves once the server is fully closed.
   */
  close(graceMs: number): Promise<void>;
}

/**
 * Serves `handler` (an express app, for instance) on `host:port`; port 0 picks a free port.
 * This is the one way the HTTP API reaches node:http, so components stay free of it.
 */
export async function listenHttp(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  opts: { host: string; port: number },
): Promise<HttpListener> {
  const server = http.createServer(handler);
  let inFlight = 0;
  let closing = false;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    inFlight++;
    res.on('close', () => {
      inFlight--;
      // Once closing, a connection that just finished its last request is idle: let it go
      // now rather than waiting for its keep-alive timeout.
      if (closing) server.closeIdleConnections();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: unknown) => {
    throw new Error(
      `http listen on ${formatAddress(opts.host, opts.port)}: ${err instanceof Error ? err.message : String(err)}`,
      {
        cause: err,
      },
    );
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | undefined;
  return {
    address: formatAddress(opts.host, port),
    port,
    close(graceMs: number): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        closing = true;
        const deadline = setTimeout(() => server.closeAllConnections(), Math.max(0, graceMs));
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
        if (inFlight === 0) server.closeAllConnections();
      });
      return closed;
    },
  };
}
