/**
 * Calling every instance of a replication set and deciding when enough have answered
 * (Cortex's `ReplicationSet.Do` with its default and zone-aware result trackers): the call
 * succeeds as soon as the set's quorum answered and fails as soon as more calls failed than
 * the set tolerates, naming the failure that tipped it; calls still running are aborted.
 */
import type { ReplicationSet, RingInstance } from '../ring/index.js';
import { AbortError, ChildAbort } from '../runtime/index.js';

/** One successful answer and the instance that gave it. */
export interface InstanceResult<T> {
  readonly instance: RingInstance;
  readonly value: T;
}

interface ResultTracker {
  done(instance: RingInstance, failed: boolean): void;
  succeeded(): boolean;
  failed(): boolean;
}

/** Without zones: `instances - maxErrors` successes needed, more than `maxErrors` failures fatal. */
function defaultTracker(instances: readonly RingInstance[], maxErrors: number): ResultTracker {
  const minSucceeded = instances.length - maxErrors;
  let succeeded = 0;
  let failed = 0;
  return {
    done: (_inst, isFailure) => {
      if (isFailure) failed++;
      else succeeded++;
    },
    succeeded: () => succeeded >= minSucceeded,
    failed: () => failed > maxErrors,
  };
}

/**
 * With zones: every instance of all zones but `maxUnavailableZones` must answer; a failure
 * anywhere condemns its zone, and more condemned zones than tolerated is fatal.
 */
function zoneTracker(
  instances: readonly RingInstance[],
  maxUnavailableZones: number,
): ResultTracker {
  const waiting = new Map<string, number>();
  for (const inst of instances) waiting.set(inst.zone, (waiting.get(inst.zone) ?? 0) + 1);
  const failures = new Set<string>();
  const minSuccessfulZones = waiting.size - maxUnavailableZones;
  return {
    done: (inst, isFailure) => {
      waiting.set(inst.zone, (waiting.get(inst.zone) ?? 0) - 1);
      if (isFailure) failures.add(inst.zone);
    },
    succeeded: () => {
      let ok = 0;
      for (const [zone, n] of waiting) if (n === 0 && !failures.has(zone)) ok++;
      return ok >= minSuccessfulZones;
    },
    failed: () => failures.size > maxUnavailableZones,
  };
}

/**
 * Calls `fn` on every instance of `set` concurrently. Resolves with the answers received
 * by the time the set's quorum was reached, in the set's instance order (so merges do not
 * depend on which reply came first); rejects with the error that made the set fail. The
 * signal handed to `fn` aborts when `signal` does, or when the outcome is decided while
 * calls are still out.
 */
export function doReplicationSet<T>(
  set: ReplicationSet,
  fn: (instance: RingInstance, signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<InstanceResult<T>[]> {
  const tracker =
    set.maxUnavailableZones > 0
      ? zoneTracker(set.instances, set.maxUnavailableZones)
      : defaultTracker(set.instances, set.maxErrors);
  const answers: (InstanceResult<T> | undefined)[] = set.instances.map(() => undefined);
  if (tracker.succeeded()) return Promise.resolve([]);
  const calls = new ChildAbort(signal);
  let pending = set.instances.length;
  return new Promise<InstanceResult<T>[]>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined): void => {
      if (settled) return;
      settled = true;
      // Only calls still out are told (all answered is the common case: one ingester).
      if (pending > 0) calls.abort(() => new AbortError('replication set already decided'));
      calls.release();
      if (err !== undefined) reject(err);
      else resolve(answers.filter((a): a is InstanceResult<T> => a !== undefined));
    };
    // The calls' signal follows the caller's: one listener on the caller's signal, not two.
    const onAbort = (): void => finish(new AbortError('query to ingesters aborted'));
    if (calls.signal.aborted) {
      onAbort();
      return;
    }
    calls.signal.addEventListener('abort', onAbort, { once: true });
    set.instances.forEach((instance, i) => {
      fn(instance, calls.signal).then(
        (value) => {
          pending--;
          if (settled) return;
          answers[i] = { instance, value };
          tracker.done(instance, false);
          if (tracker.succeeded()) finish(undefined);
        },
        (err: unknown) => {
          pending--;
          if (settled) return;
          tracker.done(instance, true);
          if (tracker.failed()) finish(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  });
}
