/**
 * Cortex's `ring.DoBatch` for pushes: every item (a series or a metadata entry) has its own
 * replication set; the items are grouped into one call per ingester, the calls run
 * concurrently, and the push succeeds once every item reached `instances - maxErrors`
 * successes. An item fails as soon as more than `maxErrors` calls failed with errors of one
 * family (4xx or 5xx), or when no call is left that could still make its quorum; the first
 * failing item decides the push's error. Calls still running when the outcome is known go on
 * (each has its own timeout), so every replica gets the samples whatever the others did.
 */
import type { ReplicationSet, RingInstance } from '../ring/index.js';

interface ItemTracker {
  readonly minSuccess: number;
  readonly maxFailures: number;
  succeeded: number;
  failed4xx: number;
  failed5xx: number;
  remaining: number;
  lastError: unknown;
  settled: boolean;
}

interface InstanceBatch {
  readonly instance: RingInstance;
  readonly indexes: number[];
}

export interface BatchRun {
  /** Resolves when every item has its quorum; rejects with the first failing item's error. */
  readonly result: Promise<void>;
  /** Resolves when every call has finished (after `result`); never rejects. */
  readonly settled: Promise<void>;
}

/**
 * Runs `send(instance, itemIndexes)` once per ingester of the items' replication sets.
 * `isClientError` tells a 4xx (the ingester refused the data) from a 5xx (it failed).
 */
export function doBatch(
  sets: readonly ReplicationSet[],
  send: (instance: RingInstance, indexes: number[]) => Promise<void>,
  isClientError: (err: unknown) => boolean,
): BatchRun {
  const trackers: ItemTracker[] = [];
  // Grouped by address as Cortex does; Map order keeps the call order deterministic.
  const batches = new Map<string, InstanceBatch>();
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i] as ReplicationSet;
    trackers.push({
      minSuccess: set.instances.length - set.maxErrors,
      maxFailures: set.maxErrors,
      succeeded: 0,
      failed4xx: 0,
      failed5xx: 0,
      remaining: set.instances.length,
      lastError: undefined,
      settled: false,
    });
    for (const inst of set.instances) {
      let batch = batches.get(inst.addr);
      if (batch === undefined) batches.set(inst.addr, (batch = { instance: inst, indexes: [] }));
      batch.indexes.push(i);
    }
  }

  let pending = trackers.length;
  let finished = false;
  let resolveResult!: () => void;
  let rejectResult!: (err: unknown) => void;
  const result = new Promise<void>((resolve, reject) => {
    resolveResult = resolve;
    rejectResult = reject;
  });
  const fail = (err: unknown): void => {
    if (finished) return;
    finished = true;
    rejectResult(err);
  };
  const itemDone = (): void => {
    pending--;
    if (pending === 0 && !finished) {
      finished = true;
      resolveResult();
    }
  };
  if (pending === 0) {
    finished = true;
    resolveResult();
  }

  const record = (indexes: readonly number[], err: unknown, ok: boolean): void => {
    for (const i of indexes) {
      const t = trackers[i] as ItemTracker;
      t.remaining--;
      if (t.settled) continue;
      if (!ok) {
        t.lastError = err;
        const count = isClientError(err) ? ++t.failed4xx : ++t.failed5xx;
        // Too many failures of one family, or no call left: the item fails with this error.
        if (count > t.maxFailures || t.remaining === 0) {
          t.settled = true;
          fail(err);
        }
        continue;
      }
      t.succeeded++;
      if (t.succeeded >= t.minSuccess) {
        t.settled = true;
        itemDone();
      } else if (t.remaining === 0) {
        // Mixed failures (a 4xx and a 5xx) with no quorum left: the last error decides.
        t.settled = true;
        fail(t.lastError);
      }
    }
  };

  const calls: Promise<void>[] = [];
  for (const batch of batches.values()) {
    calls.push(
      send(batch.instance, batch.indexes).then(
        () => record(batch.indexes, undefined, true),
        (err: unknown) => record(batch.indexes, err, false),
      ),
    );
  }
  return { result, settled: Promise.all(calls).then(() => undefined) };
}
