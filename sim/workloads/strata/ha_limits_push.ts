import type { SimNodeEnv } from '../../runtime/index.js';
import { pushBatch } from './http_client.js';
import type { AttemptOutcome } from './ledger.js';

/**
 * One remote-write attempt of the HA and limits writers over simulated HTTP (remote write
 * 1.0 to the distributor's `/api/v1/push`), classified for the ledger as Prometheus's sender
 * does (`pushBatch`): `ok` with the status (200, or 202 for a de-duplicated HA replica),
 * `rejected` for a 4xx other than 429 (dropped), `unknown` otherwise (retried). Rejects only
 * when `signal` aborted (the writer is stopping; the attempt stays unanswered).
 */
export function pushAttempt(
  env: SimNodeEnv,
  distributor: string,
  tenant: string,
  body: Uint8Array,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<AttemptOutcome> {
  return pushBatch(env.http, distributor, body, { tenant, ...opts });
}
