import { connect as netConnect } from 'node:net';
import type { ByteStream, Dialer, StreamHandlers } from '../../cache/index.js';

/**
 * TCP for the memcached client (`src/cache`): Nagle off (requests are small and latency
 * bound), a connect timeout, and received Buffers handed on as plain Uint8Array views (whose
 * `slice` copies, unlike Buffer's) so the protocol parser can keep what it slices.
 */
export class NetDialer implements Dialer {
  connect(
    host: string,
    port: number,
    handlers: StreamHandlers,
    timeoutMs: number,
  ): Promise<ByteStream> {
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host, port });
      socket.setNoDelay(true);
      let connected = false;
      let lastError: Error | undefined;
      const timer = setTimeout(() => {
        socket.destroy(new Error(`connect to ${host}:${port} timed out after ${timeoutMs}ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        connected = true;
        clearTimeout(timer);
        resolve({
          write: (data) => {
            socket.write(data);
          },
          destroy: () => {
            socket.destroy();
          },
        });
      });
      socket.on('data', (chunk: Buffer) => {
        handlers.onData(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      socket.on('error', (err) => {
        lastError = err;
      });
      socket.once('close', () => {
        clearTimeout(timer);
        if (connected) handlers.onClose(lastError);
        else reject(lastError ?? new Error(`connection to ${host}:${port} closed`));
      });
    });
  }
}
