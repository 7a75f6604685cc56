/**
 * What Strata's modules share while they are wired together: the configuration, the Env, and
 * the objects modules publish for the modules that depend on them (the HTTP server, the
 * runtime config, the overrides, the ring KV clients). A module reads a dependency through
 * `need`, which names the missing dependency if the module forgot to declare it.
 */
import { type Config, renderConfig } from '../config/index.js';
import type { Overrides, RuntimeConfigManager } from '../overrides/index.js';
import type { BuildInfo } from '../api/index.js';
import type { Ingester, IngesterClient } from '../ingester/index.js';
import type { Ring } from '../ring/index.js';
import type { RequestQueueFactory } from '../scheduler/index.js';
import type { Env, KV, MemberlistKV } from '../runtime/index.js';
import type { StoreGateway } from '../storegateway/index.js';
import type { ConfigRenderMode, HttpServer, ModuleStatus, Profiler } from '../server/index.js';

/** An HTTP listener as the real runtime's `listenHttp` returns it. */
export interface HttpListener {
  readonly address: string;
  readonly port: number;
  close(graceMs: number): Promise<void>;
}

export type ListenFn = (handler: HttpServer['handler']) => Promise<HttpListener>;

export interface StrataOptions {
  /**
   * Listens for HTTP when the server module starts (first, so `/ready` answers 503 while the
   * other modules start). Without it nothing listens and callers drive `httpHandler` themselves.
   */
  readonly listen?: ListenFn;
  /** Serves `/debug/pprof/*` and `/debug/fgprof`; without it those answer 501. */
  readonly profiler?: Profiler;
  /** What `/api/v1/status/buildinfo` reports; a development build's when absent. */
  readonly buildInfo?: BuildInfo;
  /** Deliberately broken behaviour for the simulator's mutation canaries; nothing else sets it. */
  readonly simCanaries?: SimCanaryHooks;
}

/**
 * The breakages of the simulator's mutation canaries (`sim/canaries/`) that cannot be built
 * from outside a component. Only the simulator's harness passes these (through
 * `Strata.create`'s options); no configuration key, flag or environment variable reaches them.
 */
export interface SimCanaryHooks {
  /** The querier keeps every replica's copy of a sample instead of merging them. */
  readonly skipReplicaDedupOnRead?: boolean;
  /** Builds the query-frontend's own queue (`fifo_frontend_queue`: one FIFO for all tenants). */
  readonly frontendQueue?: RequestQueueFactory;
}

/** The KV clients of the hash rings (and the HA tracker) this process uses, each under its prefix. */
export interface RingKVClients {
  /** The ingester ring, when a user of it (distributor, ingester, querier, ruler) runs here. */
  readonly ingester?: KV;
  /** The distributor ring, when a distributor runs here. */
  readonly distributor?: KV;
  /** The HA tracker's store, when a distributor runs here with the HA tracker enabled. */
  readonly haTracker?: KV;
  /** The store-gateway ring, when store-gateway sharding is enabled and a user of it runs here. */
  readonly storeGateway?: KV;
  /** The compactor ring, when compactor sharding is enabled and a compactor runs here. */
  readonly compactor?: KV;
}

export class StrataContext {
  http: HttpServer | undefined;
  listener: HttpListener | undefined;
  runtimeConfig: RuntimeConfigManager | undefined;
  overrides: Overrides | undefined;
  rings: RingKVClients | undefined;
  /** The process's memberlist KV, while the `ring` module runs one (some ring store is memberlist). */
  memberlistKV: MemberlistKV | undefined;
  /** The ingester ring client, running while the `ring` module runs (when a user of it runs here). */
  ingesterRing: Ring | undefined;
  /** The distributor ring client, running while the `ring` module runs (when a distributor runs here). */
  distributorRing: Ring | undefined;
  /** The client the distributor and querier of this process share to call ingesters. */
  ingesterClient: IngesterClient | undefined;
  /** The ingester of this process, when it runs one (the ingester client pushes to it directly). */
  localIngester: Ingester | undefined;
  /** The store-gateway of this process, when it runs one (an in-process querier reads it). */
  localStoreGateway: StoreGateway | undefined;

  constructor(
    readonly config: Config,
    readonly env: Env,
    readonly options: StrataOptions,
    /** Every module this process runs (the resolved target closure). */
    readonly modules: () => readonly string[],
    /** Live service states for `/services` and `/ready`. */
    readonly statuses: () => readonly ModuleStatus[],
  ) {}

  /** YAML of the applied configuration for `/config`. */
  renderConfig(mode: ConfigRenderMode): string {
    return renderConfig(this.config, mode);
  }

  /** `value`, or an error saying that `requester` must depend on `provider`. */
  need<T>(value: T | undefined, provider: string, requester: string): T {
    if (value === undefined) {
      throw new Error(
        `module ${requester} needs ${provider}, which is not initialised: declare the dependency on ${provider}`,
      );
    }
    return value;
  }
}
