/** Keeps Errors as they are (their class and code matter to callers); wraps anything else thrown. */
export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
