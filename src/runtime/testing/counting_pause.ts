/**
 * A pause point (the shape `Slicer` has) for tests of sliced loops: due on every `every`-th
 * check, counting the pauses it was asked for.
 */
export interface CountingPause {
  readonly pauses: number;
  due(): boolean;
  yield(): Promise<void>;
}

export function countingPause(every = 1): CountingPause {
  let checks = 0;
  let pauses = 0;
  return {
    get pauses() {
      return pauses;
    },
    due: () => ++checks % every === 0,
    async yield() {
      pauses++;
      await Promise.resolve();
    },
  };
}
