import { setMaxListeners } from 'node:events';
import { RpcError, jsonBody, type Env } from '../../../src/runtime/index.js';
import type { SimProcess } from '../../cluster/index.js';
import type { PingPongConfig } from './config.js';
import type { AckLedger } from './ledger.js';

export const DELIVER_METHOD = 'pingpong.Deliver';

export interface SenderDeps {
  ledger: AckLedger;
  receiver: string;
  epochMs: number;
  /** Harness time for the ledger (true virtual time, unaffected by this node's clock skew). */
  now: () => number;
}

/**
 * The pingpong sender: message i is due at a fixed virtual time; each message is retried
 * until acknowledged. It keeps no state across restarts: a new incarnation resends every
 * message already due (the receiver dedupes), which is simple and still correct.
 */
export function pingPongSender(env: Env, config: PingPongConfig, deps: SenderDeps): SimProcess {
  const log = env.logger.child({ role: 'sender' });
  const controller = new AbortController();
  // Every message in flight listens on this signal (its call, then its backoff sleep).
  setMaxListeners(config.messages + 10, controller.signal);

  const deliver = async (id: number): Promise<void> => {
    for (let attempt = 1; !controller.signal.aborted; attempt++) {
      deps.ledger.sent(id, deps.now());
      try {
        await env.transport.call(
          deps.receiver,
          { method: DELIVER_METHOD, ...jsonBody({ id }) },
          {
            timeoutMs: config.callTimeoutMs,
            signal: controller.signal,
          },
        );
        deps.ledger.acked(id, deps.now());
        if (attempt > 1) log.debug('acked after retries', { id, attempt });
        return;
      } catch (err) {
        const code = err instanceof RpcError ? err.code : 'error';
        log.debug('send failed; retrying', { id, attempt, code });
        try {
          await env.clock.sleep(config.retryBackoffMs, controller.signal);
        } catch {
          return; // stopping
        }
      }
    }
  };

  return {
    start(signal: AbortSignal): Promise<void> {
      signal.addEventListener('abort', () => controller.abort(), { once: true });
      const firstDue = deps.epochMs + config.startMs;
      const now = env.clock.now();
      for (let id = 1; id <= config.messages; id++) {
        const due = firstDue + (id - 1) * config.intervalMs;
        env.clock.setTimer(Math.max(0, due - now), () => {
          if (!controller.signal.aborted) void deliver(id);
        });
      }
      log.info('sender started', { messages: config.messages, receiver: deps.receiver });
      return Promise.resolve();
    },
    stop(): Promise<void> {
      controller.abort();
      return Promise.resolve();
    },
  };
}
