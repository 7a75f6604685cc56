// Running async work over a list with at most `limit` calls in flight (startup opens, head
// compactions): every item is attempted, and the first error is thrown once all settled.

export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  const width = Math.max(1, Math.min(Math.trunc(limit) || 1, items.length));
  let next = 0;
  let firstError: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        firstError ??= { err };
      }
    }
  };
  const workers: Promise<void>[] = [];
  for (let i = 0; i < width; i++) workers.push(worker());
  await Promise.all(workers);
  if (firstError !== undefined) throw firstError.err;
}
