/**
 * Bounded concurrency over a list (Cortex's concurrency.ForEachUser): at most `limit` calls
 * in flight, items taken in list order, every item attempted even when some fail. Nothing
 * here reads time or randomness, so under the simulator the interleaving is as
 * deterministic as the calls themselves.
 */
import { throwIfAborted } from '../runtime/index.js';

export interface ItemFailure<T> {
  item: T;
  error: Error;
}

/**
 * Runs `fn` for every item; resolves with the failures (in item order) once all settled, or
 * rejects with an AbortError once the calls in flight when `signal` aborted have settled.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  signal?: AbortSignal,
): Promise<ItemFailure<T>[]> {
  const errors = new Map<number, Error>();
  let next = 0;
  const worker = async (): Promise<void> => {
    // On abort a worker stops taking items but lets its current call finish, so nothing the
    // run started is still in flight when the run rejects.
    while (signal?.aborted !== true) {
      const i = next++;
      if (i >= items.length) return;
      try {
        await fn(items[i] as T);
      } catch (err) {
        errors.set(i, err instanceof Error ? err : new Error(String(err)));
      }
    }
  };
  const workers = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  throwIfAborted(signal);
  return [...errors.keys()]
    .sort((a, b) => a - b)
    .map((i) => ({ item: items[i] as T, error: errors.get(i) as Error }));
}
