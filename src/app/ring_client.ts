/**
 * The ingester ring as the components of this process see it: one `Ring` client over the
 * ring's KV (shared by the distributor, ingester and querier running here), its status page
 * at `/ingester/ring` (legacy `/ring`), and the `multi` store's runtime switches.
 */
import type { Config } from '../config/index.js';
import { parseForm } from '../api/index.js';
import { Ring, RingError, ringPageRequest, serveRingPage, type ReadRing } from '../ring/index.js';
import type { KV } from '../runtime/index.js';
import { MultiKV } from '../runtime/index.js';
import { UnavailableError, type HttpServer } from '../server/index.js';
import type { RingKVClients, StrataContext } from './context.js';

/** The KV key of the ingester ring descriptor (Cortex's `ring`). */
export const INGESTER_RING_KEY = 'ring';

export function ingesterRingClient(ctx: StrataContext, kv: KV): Ring {
  const { config, env } = ctx;
  return new Ring(ingesterRingConfig(config), {
    kv,
    clock: env.clock,
    logger: env.logger.child({ module: 'ingester-ring' }),
    metrics: env.metrics,
  });
}

export function ingesterRingConfig(config: Config) {
  const ring = config.ingester.lifecycler.ring;
  return {
    name: 'ingester',
    key: INGESTER_RING_KEY,
    replicationFactor: ring.replication_factor,
    heartbeatTimeoutMs: ring.heartbeat_timeout,
    zoneAwarenessEnabled: false,
  };
}

/** The KV key of the distributor ring descriptor (Cortex's `distributor`). */
export const DISTRIBUTOR_RING_KEY = 'distributor';

export function distributorRingClient(ctx: StrataContext, kv: KV): Ring {
  const { config, env } = ctx;
  return new Ring(
    {
      name: 'distributor',
      key: DISTRIBUTOR_RING_KEY,
      replicationFactor: 1,
      heartbeatTimeoutMs: config.distributor.ring.heartbeat_timeout,
      zoneAwarenessEnabled: false,
    },
    {
      kv,
      clock: env.clock,
      logger: env.logger.child({ module: 'distributor-ring' }),
      metrics: env.metrics,
    },
  );
}

interface RingPage {
  readonly path: string;
  readonly legacy?: string;
  readonly description: string;
  readonly key: string;
  readonly ring: () => Ring | undefined;
  readonly kv: () => KV | undefined;
  /** What the page answers (503) while the ring client does not run. */
  readonly notRunning: string;
}

/** Registers a ring's status page; it answers 503 until the ring client runs. */
export function registerRingPage(http: HttpServer, ctx: StrataContext, page: RingPage): void {
  http.registerRoute({
    methods: ['GET', 'POST'],
    path: page.path,
    aliases: page.legacy === undefined ? [] : [page.legacy],
    module: 'ring',
    description: page.description,
    tenant: false,
    handler: async (req, res) => {
      const ring = page.ring();
      const kv = page.kv();
      if (ring === undefined || kv === undefined) throw new UnavailableError(page.notRunning);
      const out = await serveRingPage(
        ring,
        { kv, key: page.key, nowMs: ctx.env.clock.now(), logger: ctx.env.logger },
        await ringPageRequest(req.method, req.query, () => parseForm(req)),
      );
      res.status(out.status).set(out.headers).send(out.body);
    },
  });
}

export function registerIngesterRingPage(http: HttpServer, ctx: StrataContext): void {
  registerRingPage(http, ctx, {
    path: '/ingester/ring',
    legacy: '/ring',
    description: 'Ingester ring status; forget unhealthy instances',
    key: INGESTER_RING_KEY,
    ring: () => ctx.ingesterRing,
    kv: () => ctx.rings?.ingester,
    notRunning: 'the ingester ring is not running',
  });
}

export function registerDistributorRingPage(http: HttpServer, ctx: StrataContext): void {
  registerRingPage(http, ctx, {
    path: '/distributor/ring',
    description: 'Distributor ring status (state, health, last heartbeat per distributor)',
    key: DISTRIBUTOR_RING_KEY,
    ring: () => ctx.distributorRing,
    kv: () => ctx.rings?.distributor,
    notRunning:
      'the distributor ring is not running: distributors join it only with -distributor.ingestion-rate-limit-strategy=global',
  });
}

/**
 * Applies the runtime config's `multi_kv_config` (primary switch, mirroring) to every ring KV
 * of this process that is a multi store, now and after each reload.
 */
export function followMultiKVConfig(ctx: StrataContext, kvs: readonly KV[]): () => void {
  const manager = ctx.runtimeConfig;
  const multis = kvs.filter((kv): kv is MultiKV => kv instanceof MultiKV);
  if (manager === undefined || multis.length === 0) return () => undefined;
  const apply = (settings: Parameters<MultiKV['applyRuntimeConfig']>[0]): void => {
    for (const kv of multis) kv.applyRuntimeConfig(settings);
  };
  apply(manager.current().multi_kv_config);
  return manager.onChange((cfg) => apply(cfg.multi_kv_config));
}

/**
 * The ingester ring for components built before it runs (modules are initialised first,
 * then started in order): every call goes to the client the `ring` module started, and
 * fails plainly if a component uses it outside that window.
 */
export function ingesterRingProxy(ctx: StrataContext): ReadRing {
  const ring = (): Ring => {
    const r = ctx.ingesterRing;
    if (r === undefined) throw new RingError('the ingester ring client is not running');
    return r;
  };
  return {
    get ringName() {
      return 'ingester';
    },
    get replicationFactor() {
      return ctx.config.ingester.lifecycler.ring.replication_factor;
    },
    get heartbeatTimeoutMs() {
      return ctx.config.ingester.lifecycler.ring.heartbeat_timeout;
    },
    get: (key, op) => ring().get(key, op),
    getAllHealthy: (op) => ring().getAllHealthy(op),
    getReplicationSetForOperation: (op) => ring().getReplicationSetForOperation(op),
    instancesCount: () => ring().instancesCount(),
    healthyInstancesCount: () => ring().healthyInstancesCount(),
    desc: () => ring().desc(),
    ownership: () => ring().ownership(),
    isHealthy: (instance) => ring().isHealthy(instance),
  };
}

/**
 * As ingesterRingProxy, for a KV client the `ring` module opens (the ingester's lifecycler
 * and the HA tracker write through these).
 */
export function deferredKV(ctx: StrataContext, which: keyof RingKVClients): KV {
  const kv = (): KV => {
    const k = ctx.rings?.[which];
    if (k === undefined) throw new Error(`the ${which} KV client is not open`);
    return k;
  };
  return {
    get: (key, signal) => kv().get(key, signal),
    list: (prefix, signal) => kv().list(prefix, signal),
    cas: (key, update, signal) => kv().cas(key, update, signal),
    delete: (key, signal) => kv().delete(key, signal),
    watchKey: (key, signal, onChange) => kv().watchKey(key, signal, onChange),
    watchPrefix: (prefix, signal, onChange) => kv().watchPrefix(prefix, signal, onChange),
    // The ring module owns the client and closes it.
    close: () => Promise.resolve(),
  };
}
