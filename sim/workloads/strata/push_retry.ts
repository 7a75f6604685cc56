import type { Logger } from '../../../src/runtime/index.js';
import type { SimNodeEnv } from '../../runtime/index.js';
import type { StrataWorkloadConfig } from './config.js';
import { pushBatch } from './http_client.js';
import type { PushRecord, WriteLedger } from './ledger.js';

export interface PushRetryDeps {
  readonly env: SimNodeEnv;
  readonly ledger: WriteLedger;
  /** Harness time for the ledger (true virtual time, unaffected by the node's clock skew). */
  readonly now: () => number;
  readonly remoteWrite: StrataWorkloadConfig['remoteWrite'];
  /** Aborted when the sender stops. */
  readonly signal: AbortSignal;
  readonly log: Logger;
}

export interface PushRetryPlan {
  readonly tenant: string;
  /** The uncompressed remote-write body (`encodeBatch`), the same on every attempt. */
  readonly body: Uint8Array;
  /** The distributor of the next attempt: called once per attempt, after `beforeAttempt`. */
  readonly distributor: () => string;
  /**
   * Waits until the sender may send (an outage or a quiet window over); false when the
   * sender stopped meanwhile. Called before every attempt.
   */
  readonly beforeAttempt?: () => Promise<boolean>;
}

/**
 * Sends one push as Prometheus's remote-write queue does, recording every attempt in the
 * ledger: until a 2xx (`ok`) or a final 4xx (`rejected`, the batch is dropped), retrying
 * recoverable failures (5xx, 429, timeouts, unreachable) after an exponential backoff from
 * `min_backoff` doubling up to `max_backoff`. Every writer of the workload (plain, HA
 * replicas, limit probes) sends through it, so they all retry alike. Returns false when
 * the sender stopped (an attempt in flight then stays without an answer in the ledger).
 */
export async function sendUntilFinal(
  deps: PushRetryDeps,
  push: PushRecord,
  plan: PushRetryPlan,
): Promise<boolean> {
  const { env, ledger, remoteWrite, signal, log } = deps;
  let backoff = remoteWrite.minBackoffMs;
  for (;;) {
    if (plan.beforeAttempt !== undefined && !(await plan.beforeAttempt())) return false;
    const distributor = plan.distributor();
    const attempt = ledger.attemptStarted(push, deps.now());
    let outcome;
    try {
      outcome = await pushBatch(env.http, distributor, plan.body, {
        tenant: plan.tenant,
        timeoutMs: remoteWrite.timeoutMs,
        signal,
      });
    } catch {
      return false; // stopping: the attempt stays without an answer
    }
    ledger.attemptEnded(attempt, deps.now(), outcome);
    if (outcome.kind === 'ok') return true;
    if (outcome.kind === 'rejected') {
      log.debug('push refused; dropping the batch', {
        push: push.id,
        status: outcome.code,
        message: outcome.message,
      });
      return true;
    }
    log.debug('push failed; retrying', { push: push.id, code: outcome.code });
    try {
      await env.clock.sleep(backoff, signal);
    } catch {
      return false; // stopping
    }
    backoff = Math.min(backoff * 2, remoteWrite.maxBackoffMs);
  }
}
