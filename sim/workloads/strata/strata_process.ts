import { Strata } from '../../../src/app/index.js';
import { defaultConfig, formatDuration, type Config } from '../../../src/config/index.js';
import { INGESTER_PUSH } from '../../../src/ingester/index.js';
import {
  jsonBody,
  type CallOptions,
  type Env,
  type RpcHandler,
  type RpcRequest,
  type RpcResponse,
  type Transport,
} from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { StrataWorkloadConfig, TenantSpec } from './config.js';

export const RUNTIME_CONFIG_DIR = '/etc/strata';
export const RUNTIME_CONFIG_PATH = `${RUNTIME_CONFIG_DIR}/runtime.yaml`;
export const TSDB_DIR = '/data/tsdb';

/** The Strata targets the workload runs on nodes (the other roles are clients). */
export type StrataTarget = 'distributor' | 'ingester' | 'querier';

/**
 * The configuration of one simulated Strata process: the defaults, with the node's role as
 * target, the cluster-wide in-memory ring (one store shared by every simulated node), the
 * node name as ring id, quick heartbeats so crashed ingesters turn unhealthy within the run,
 * auth on (tenants come from `X-Scope-OrgID`) and the runtime-config file for overrides.
 */
export function strataNodeConfig(
  target: StrataTarget,
  nodeName: string,
  c: StrataWorkloadConfig,
): Config {
  const config = defaultConfig();
  config.target = target;
  config.auth_enabled = true;
  const lc = config.ingester.lifecycler;
  lc.id = nodeName;
  lc.heartbeat_period = c.heartbeatPeriodMs;
  lc.join_after = 0;
  lc.min_ready_duration = 0;
  lc.ring.kvstore.store = 'inmemory';
  lc.ring.heartbeat_timeout = c.heartbeatTimeoutMs;
  lc.ring.replication_factor = c.replicationFactor;
  config.tsdb.dir = TSDB_DIR;
  const longer = config.tsdb.block_ranges_period.filter((r) => r > c.blockRangeMs);
  config.tsdb.block_ranges_period = [c.blockRangeMs, ...longer];
  if (c.tenants.some((t) => t.outOfOrderWindowMs > 0))
    config.runtime_config.file = RUNTIME_CONFIG_PATH;
  return config;
}

/** The runtime-config file (Cortex format) with each tenant's overrides; '' when none. */
export function runtimeConfigYaml(tenants: readonly TenantSpec[]): string {
  const lines = tenants
    .filter((t) => t.outOfOrderWindowMs > 0)
    .map(
      (t) =>
        `  ${JSON.stringify(t.name)}:\n    out_of_order_time_window: ${formatDuration(t.outOfOrderWindowMs)}\n`,
    );
  return lines.length === 0 ? '' : `overrides:\n${lines.join('')}`;
}

/**
 * A Strata process on a simulated node: writes the runtime-config file to the node's disk
 * (it is the operator's file, rewritten on every start), then `Strata.create` and `start`.
 * A crash simply drops it (the incarnation's timers and calls die with it).
 */
export function strataProcess(env: Env, target: StrataTarget, c: StrataWorkloadConfig): SimProcess {
  const config = strataNodeConfig(target, env.nodeName, c);
  const runtimeYaml = runtimeConfigYaml(c.tenants);
  const procEnv =
    target === 'ingester' && c.brokenIngester === 'ack_before_wal'
      ? { ...env, transport: new AckBeforeWalTransport(env, c.brokenAckDelayMs) }
      : env;
  let strata: Strata | undefined;
  return {
    async start(signal: AbortSignal): Promise<void> {
      if (runtimeYaml !== '') {
        await env.fs.mkdir(RUNTIME_CONFIG_DIR, { recursive: true });
        await env.fs.writeFile(RUNTIME_CONFIG_PATH, runtimeYaml);
      }
      strata = await Strata.create(config, procEnv);
      await strata.start(signal);
    },
    async stop(): Promise<void> {
      await strata?.stop();
    },
  };
}

/**
 * The deliberately broken ingester of `broken_ingester: ack_before_wal`, built from outside
 * the product: `ingester.Push` answers success at once and the real handler runs
 * `delayMs` later, so a crash in between loses acknowledged samples (nothing reached the
 * WAL). Every other method goes to the real handler untouched.
 */
export class AckBeforeWalTransport implements Transport {
  private readonly inner: Transport;

  constructor(
    private readonly env: Env,
    private readonly delayMs: number,
  ) {
    this.inner = env.transport;
  }

  get address(): string | undefined {
    return this.inner.address;
  }

  handle(method: string, handler: RpcHandler): void {
    if (method !== INGESTER_PUSH) {
      this.inner.handle(method, handler);
      return;
    }
    const log = this.env.logger.child({ bug: 'ack_before_wal' });
    this.inner.handle(method, (req: RpcRequest): Promise<RpcResponse> => {
      this.env.clock.setTimer(this.delayMs, () => {
        handler(req, new AbortController().signal).catch((err: unknown) => {
          log.warn('deferred push failed after it was acknowledged', {
            err: err instanceof Error ? err.message : String(err),
          });
        });
      });
      return Promise.resolve(jsonBody({}));
    });
  }

  listen(): Promise<string> {
    return this.inner.listen();
  }

  call(address: string, req: RpcRequest, opts?: CallOptions): Promise<RpcResponse> {
    return this.inner.call(address, req, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
