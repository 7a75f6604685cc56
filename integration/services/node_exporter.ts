/**
 * Debian's Prometheus node exporter (`prometheus-node-exporter`, 1.5) as a test service on
 * a free loopback port: a real scrape target whose metrics change between scrapes (CPU,
 * memory, network counters, load), which gives PromQL tests realistic series.
 */
import { freePort } from '../strata-process.js';
import { spawnService, waitUntilReady, type ServiceProcess } from './process.js';

export const NODE_EXPORTER_BIN = '/usr/bin/prometheus-node-exporter';

export interface NodeExporterOptions {
  /** More flags, e.g. `--no-collector.systemd`. */
  readonly extraArgs?: readonly string[];
  readonly readyTimeoutMs?: number;
}

export interface NodeExporterService extends ServiceProcess {
  readonly port: number;
  /** `127.0.0.1:<port>`, as a scrape target. */
  readonly address: string;
}

/** Starts the node exporter and resolves once `/metrics` answers with samples. */
export async function startNodeExporter(
  opts: NodeExporterOptions = {},
): Promise<NodeExporterService> {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const svc = spawnService('node-exporter', NODE_EXPORTER_BIN, [
    `--web.listen-address=${address}`,
    '--log.level=warn',
    ...(opts.extraArgs ?? []),
  ]);
  try {
    await waitUntilReady(
      svc,
      `http://${address}/metrics`,
      opts.readyTimeoutMs ?? 15_000,
      (status, body) => status === 200 && body.includes('node_exporter_build_info'),
    );
  } catch (err) {
    await svc.stop();
    throw err;
  }
  return { ...svc, port, address };
}
