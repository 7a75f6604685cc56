/**
 * The distributor's own entry in the distributor ring. With the `global` ingestion rate
 * strategy each distributor enforces `ingestion_rate / healthy distributors`, so every
 * distributor must be counted: Cortex runs a lifecycler for it (one token, heartbeats every
 * `-distributor.ring.heartbeat-period`, unregistered on shutdown so the others' share grows
 * at once). Without it every distributor would count only itself and enforce the whole limit.
 */
import { Lifecycler } from '../ring/index.js';
import { BasicService, type Service } from '../services/index.js';
import type { StrataContext } from './context.js';
import { DISTRIBUTOR_RING_KEY } from './ring_client.js';

/** The lifecycler as a service; it joins when the `ring` module opened the distributor ring. */
export function distributorLifecyclerService(ctx: StrataContext): Service {
  const { config, env } = ctx;
  const rc = config.distributor.ring;
  let lifecycler: Lifecycler | undefined;
  return new BasicService('distributor-lifecycler', {
    starting: async (signal) => {
      const kv = ctx.rings?.distributor;
      // The ring KV opens only with the global strategy (see ring_kv.ts): nothing to join.
      if (kv === undefined) return;
      lifecycler = new Lifecycler(
        {
          ringName: 'distributor',
          key: DISTRIBUTOR_RING_KEY,
          id: rc.instance_id === '' ? env.nodeName : rc.instance_id,
          addr: env.transport.address ?? env.nodeName,
          zone: '',
          numTokens: 1,
          heartbeatPeriodMs: rc.heartbeat_period,
          joinAfterMs: 0,
          tokensFilePath: '',
          unregisterOnShutdown: true,
        },
        {
          kv,
          clock: env.clock,
          random: env.random,
          logger: env.logger.child({ module: 'distributor-lifecycler' }),
          metrics: env.metrics,
        },
      );
      await lifecycler.start(signal);
    },
    running: (signal) =>
      new Promise<void>((resolve, reject) => {
        lifecycler?.onFailure?.((err) => reject(err));
        signal.addEventListener('abort', () => resolve(), { once: true });
      }),
    stopping: async () => {
      await lifecycler?.stop();
      lifecycler = undefined;
    },
  });
}
