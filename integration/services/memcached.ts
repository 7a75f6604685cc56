/**
 * Debian's memcached as a test service: one process per call on a free loopback port, no
 * UDP, ready once it accepts TCP connections. `kill()` is the "node lost" fault (SIGKILL,
 * nothing flushed); `stop()` always reaps the process.
 */
import { connect } from 'node:net';
import { freePort } from '../strata-process.js';
import { spawnService, type ServiceProcess } from './process.js';

export const MEMCACHED_BIN = 'memcached';

export interface MemcachedService {
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  output(): string;
  /** SIGKILL: the server vanishes mid-run, with its data. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export async function startMemcached(
  opts: { listen?: readonly string[]; memoryMb?: number; readyTimeoutMs?: number } = {},
): Promise<MemcachedService> {
  const port = await freePort();
  const listen = opts.listen ?? ['127.0.0.1'];
  const args = [
    '-l',
    listen.join(','),
    '-p',
    String(port),
    '-U',
    '0',
    '-m',
    String(opts.memoryMb ?? 64),
  ];
  // memcached refuses to run as root unless told which user to run as.
  if (process.getuid?.() === 0) args.push('-u', 'root');
  const svc = spawnService(`memcached:${port}`, MEMCACHED_BIN, args);
  try {
    await waitForTcp(svc, port, opts.readyTimeoutMs ?? 10_000);
  } catch (err) {
    await svc.stop(1_000);
    throw err;
  }
  return {
    port,
    address: `127.0.0.1:${port}`,
    output: () => svc.output(),
    kill: async () => {
      svc.proc.kill('SIGKILL');
      await svc.stop(1_000);
    },
    stop: async () => {
      await svc.stop(2_000);
    },
  };
}

async function waitForTcp(svc: ServiceProcess, port: number, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (svc.exited()) throw new Error(`${svc.name} exited before ready:\n${svc.output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: '127.0.0.1', port });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) {
      throw new Error(
        `${svc.name} not accepting connections after ${timeoutMs} ms:\n${svc.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
