/**
 * Runs a synchronous body and returns its outcome as a promise, so in-memory backends keep
 * the asynchronous contract (throws become rejections) without `async` functions that never
 * await.
 */
export function settle<T>(body: () => T): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (err) {
    return Promise.reject(err instanceof Error ? err : new Error(String(err)));
  }
}
