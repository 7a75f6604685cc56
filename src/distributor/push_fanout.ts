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
  // Per item, as columns (no object per series): successes needed, failures allowed, counts
  // so far, calls not answered yet, whether it is decided, and its last error.
  const n = sets.length;
  const minSuccess = new Int32Array(n);
  const maxFailures = new Int32Array(n);
  const succeeded = new Int32Array(n);
  const failed4xx = new Int32Array(n);
  const failed5xx = new Int32Array(n);
  const remaining = new Int32Array(n);
  const settledItems = new Uint8Array(n);
  const lastErrors = new Map<number, unknown>();
  // Grouped by address as Cortex does; Map order keeps the call order deterministic.
  const batches = new Map<string, InstanceBatch>();
  // Items sharing a token share one ReplicationSet object: its batches are looked up once.
  let lastSet: ReplicationSet | undefined;
  let lastBatches: InstanceBatch[] = [];
  for (let i = 0; i < n; i++) {
    const set = sets[i] as ReplicationSet;
    minSuccess[i] = set.instances.length - set.maxErrors;
    maxFailures[i] = set.maxErrors;
    remaining[i] = set.instances.length;
    if (set !== lastSet) {
      lastSet = set;
      lastBatches = [];
      for (const inst of set.instances) {
        let batch = batches.get(inst.addr);
        if (batch === undefined) batches.set(inst.addr, (batch = { instance: inst, indexes: [] }));
        lastBatches.push(batch);
      }
    }
    for (const batch of lastBatches) batch.indexes.push(i);
  }

  let pending = n;
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
      const left = --(remaining[i] as number);
      if (settledItems[i] === 1) continue;
      if (!ok) {
        lastErrors.set(i, err);
        const count = isClientError(err) ? ++(failed4xx[i] as number) : ++(failed5xx[i] as number);
        // Too many failures of one family, or no call left: the item fails with this error.
        if (count > (maxFailures[i] as number) || left === 0) {
          settledItems[i] = 1;
          fail(err);
        }
        continue;
      }
      if (++(succeeded[i] as number) >= (minSuccess[i] as number)) {
        settledItems[i] = 1;
        itemDone();
      } else if (left === 0) {
        // Mixed failures (a 4xx and a 5xx) with no quorum left: the last error decides.
        settledItems[i] = 1;
        fail(lastErrors.get(i));
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
