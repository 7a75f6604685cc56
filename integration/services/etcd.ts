/**
 * Debian's etcd (`etcd-server`, 3.4) as a test service: a single member on free loopback
 * ports with its data in a temporary directory. `restart()` stops it and starts it again on
 * the same ports and data (clients see the outage and the same store afterwards); `stop()`
 * always removes the data directory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../strata-process.js';
import { spawnService, waitUntilReady, type ServiceProcess } from './process.js';

export const ETCD_BIN = 'etcd';

export interface EtcdService {
  /** `http://127.0.0.1:<client port>`. */
  readonly endpoint: string;
  output(): string;
  /** Stops the member (SIGTERM, or SIGKILL with `kill`) and starts it again on the same data. */
  restart(opts?: { kill?: boolean; beforeStart?: () => Promise<void> }): Promise<void>;
  stop(): Promise<void>;
}

export async function startEtcd(opts: { readyTimeoutMs?: number } = {}): Promise<EtcdService> {
  const dataDir = await mkdtemp(join(tmpdir(), 'strata-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name=strata-test',
    `--data-dir=${join(dataDir, 'data')}`,
    `--listen-client-urls=${endpoint}`,
    `--advertise-client-urls=${endpoint}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=strata-test=${peer}`,
    '--log-level=warn',
    '--logger=zap',
  ];
  const readyTimeoutMs = opts.readyTimeoutMs ?? 20_000;
  const launch = async (): Promise<ServiceProcess> => {
    const svc = spawnService('etcd', ETCD_BIN, args);
    try {
      await waitUntilReady(
        svc,
        `${endpoint}/health`,
        readyTimeoutMs,
        (status, body) => status === 200 && body.includes('"health":"true"'),
      );
    } catch (err) {
      await svc.stop(2_000);
      throw err;
    }
    return svc;
  };
  let current: ServiceProcess;
  try {
    current = await launch();
  } catch (err) {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    endpoint,
    output: () => current.output(),
    restart: async ({ kill = false, beforeStart } = {}) => {
      if (kill) current.proc.kill('SIGKILL');
      await current.stop(5_000);
      await beforeStart?.();
      current = await launch();
    },
    stop: async () => {
      try {
        await current.stop(5_000);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
