import { Strata } from '../../../src/app/index.js';
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
import type { SimNodeEnv } from '../../runtime/index.js';
import { DeleteBeforeShipFileSystem, ObservedFileSystem, type BlockDiskLog } from './block_disk.js';
import { brokenCompactorEnv } from './compactor_bugs.js';
import { applyCanaryModes, canaryStrataOptions } from './canaries.js';
import { writeLimitsRuntimeConfig } from './config_limits.js';
import { brokenDistributorEnv } from './ha_limits_bugs.js';
import type { StrataWorkloadConfig } from './config.js';
import { RUNTIME_CONFIG_DIR, RUNTIME_CONFIG_PATH } from './node_paths.js';
import {
  runsIngester,
  runtimeConfigYaml,
  strataNodeConfig,
  type StrataTarget,
} from './node_config.js';

export interface StrataProcessDeps {
  /** Where ingesters' block cuts and local deletions go (with the long-term path). */
  blockLog?: BlockDiskLog;
  /** Harness time for the block log (true virtual time, unaffected by clock skew). */
  now: () => number;
  /** Every Strata node of the cluster (memberlist members join the others). */
  strataNodes?: readonly string[];
  /** Virtual time zero (absolute ms): the limits phases are offsets after it. */
  epochMs?: number;
}

/**
 * A Strata process on a simulated node: writes the runtime-config file to the node's disk
 * (it is the operator's file, rewritten on every start), then `Strata.create` and `start`,
 * its HTTP server listening on the node's simulated HTTP address (clients reach its express
 * routes over the simulated network, as they would reach `listenHttp`'s socket).
 * A crash simply drops it (the incarnation's timers and calls die with it). An ingester's
 * file system is watched for block cuts when blocks ship, and a broken ingester gets its
 * Transport or FileSystem broken from outside (a broken compactor its bucket or ring KV).
 */
export function strataProcess(
  env: SimNodeEnv,
  target: StrataTarget,
  c: StrataWorkloadConfig,
  deps: StrataProcessDeps,
): SimProcess {
  const config = strataNodeConfig(target, env.nodeName, c, deps.strataNodes);
  const runtimeYaml = runtimeConfigYaml(c.tenants);
  // The mutation canaries' broken modes wrap last (they may also change `config`).
  const procEnv = applyCanaryModes(
    target,
    config,
    runsIngester(target)
      ? ingesterEnv(env, c, deps)
      : target === 'compactor'
        ? brokenCompactorEnv(env, c.longTerm?.compactor.broken ?? 'none')
        : target === 'distributor'
          ? brokenDistributorEnv(env, c.ha?.broken ?? 'none', c.limits?.broken ?? 'none')
          : env,
    c,
  );
  let strata: Strata | undefined;
  return {
    async start(signal: AbortSignal): Promise<void> {
      if (c.limits !== undefined)
        await writeLimitsRuntimeConfig(env, c.limits, c.tenants, deps.epochMs ?? 0, deps.now);
      else if (runtimeYaml !== '') {
        await env.fs.mkdir(RUNTIME_CONFIG_DIR, { recursive: true });
        await env.fs.writeFile(RUNTIME_CONFIG_PATH, runtimeYaml);
      }
      strata = await Strata.create(config, procEnv, {
        listen: (handler) => env.http.listen(handler),
        ...canaryStrataOptions(target, c),
      });
      await strata.start(signal);
    },
    async stop(): Promise<void> {
      await strata?.stop();
    },
  };
}

function ingesterEnv(env: Env, c: StrataWorkloadConfig, deps: StrataProcessDeps): Env {
  let fs = env.fs;
  if (deps.blockLog !== undefined)
    fs = new ObservedFileSystem(fs, env.nodeName, deps.blockLog, deps.now);
  if (c.brokenIngester === 'delete_before_ship')
    fs = new DeleteBeforeShipFileSystem(fs, env.logger.child({ bug: 'delete_before_ship' }));
  const transport =
    c.brokenIngester === 'ack_before_wal'
      ? new AckBeforeWalTransport(env, c.brokenAckDelayMs)
      : env.transport;
  return { ...env, fs, transport };
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
