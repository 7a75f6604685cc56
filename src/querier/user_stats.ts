/**
 * A tenant's realtime stats across the ingesters (Cortex's `Distributor.UserStats`): every
 * ingester of the READ set must answer (no tolerated errors, only tolerated zones), the
 * answers are summed, and the ingestion rate and series count are divided by the
 * replication factor because each series lives on that many ingesters. Cortex leaves the API
 * and rule ingestion rates undivided; so do we, so the numbers match Cortex's.
 */
import type { IngesterClient, WireUserStats } from '../ingester/index.js';
import { READ, type ReadRing } from '../ring/index.js';
import { doReplicationSet } from './replication_set.js';

/** Cortex's `UserStats` JSON, field names included. */
export interface UserStats {
  ingestionRate: number;
  numSeries: number;
  APIIngestionRate: number;
  RuleIngestionRate: number;
}

export interface UserStatsDeps {
  readonly ring: ReadRing;
  readonly client: IngesterClient;
  readonly timeoutMs: number;
}

export async function collectUserStats(
  tenant: string,
  deps: UserStatsDeps,
  signal?: AbortSignal,
): Promise<UserStats> {
  const set = { ...deps.ring.getReplicationSetForOperation(READ), maxErrors: 0 };
  const answers = await doReplicationSet(
    set,
    (inst, callSignal) =>
      deps.client.userStats(
        inst.addr,
        tenant,
        deps.timeoutMs > 0
          ? { signal: callSignal, timeoutMs: deps.timeoutMs }
          : { signal: callSignal },
      ),
    signal,
  );
  return sumUserStats(
    answers.map((a) => a.value),
    deps.ring.replicationFactor,
  );
}

/** Sums per-ingester stats and divides rate and series by the replication factor. */
export function sumUserStats(
  stats: readonly WireUserStats[],
  replicationFactor: number,
): UserStats {
  let ingestionRate = 0;
  let numSeries = 0;
  let api = 0;
  let rule = 0;
  for (const s of stats) {
    ingestionRate += s.ingestionRate;
    numSeries += s.numSeries;
    api += s.apiIngestionRate;
    rule += s.ruleIngestionRate;
  }
  return {
    ingestionRate: ingestionRate / replicationFactor,
    // Cortex divides a uint64: integer division.
    numSeries: Math.floor(numSeries / replicationFactor),
    APIIngestionRate: api,
    RuleIngestionRate: rule,
  };
}

/** The JSON body Cortex's handler writes, keys in its order. */
export function encodeUserStats(stats: UserStats): string {
  return JSON.stringify({
    ingestionRate: stats.ingestionRate,
    numSeries: stats.numSeries,
    APIIngestionRate: stats.APIIngestionRate,
    RuleIngestionRate: stats.RuleIngestionRate,
  });
}
