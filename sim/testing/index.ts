/**
 * Helpers for tests of simulated code: a small world (kernel, shared services, cluster) with
 * default knobs, built the same way the scenario runner builds one, and `DiskFileSystem`, a
 * kernel-free FileSystem over the simulated disk that unit tests of storage code (`src/tsdb`)
 * use to check crash safety. Test support only: imported by `*.test.ts` files, never by
 * production code; no scenario logic, no checks, and nothing here may touch the real clock
 * or real IO.
 */
import { createSeededRandom, type Random } from '../../src/runtime/index.js';
import { SimCluster } from '../cluster/index.js';
import { SimKernel } from '../kernel/index.js';
import { SimServices, defaultSimRuntimeConfig, type SimRuntimeConfig } from '../runtime/index.js';

export {
  DiskFileSystem,
  type DiskOperation,
  type DiskOperationMatcher,
} from './disk_filesystem.js';

export const TEST_EPOCH_MS = Date.UTC(2026, 0, 1);

export interface TestWorld {
  kernel: SimKernel;
  random: Random;
  services: SimServices;
  cluster: SimCluster;
}

export function createTestWorld(
  opts: { seed?: string; configure?: (config: SimRuntimeConfig) => void } = {},
): TestWorld {
  const random = createSeededRandom(opts.seed ?? 'test');
  const kernel = new SimKernel({ epochMs: TEST_EPOCH_MS, scheduling: random.stream('scheduling') });
  const config = defaultSimRuntimeConfig();
  opts.configure?.(config);
  const services = new SimServices(config, { kernel, random });
  const cluster = new SimCluster({ services });
  return { kernel, random, services, cluster };
}

/** Runs `fn` inside a kernel event at the current virtual time (so it counts as simulated code). */
export function inEvent(kernel: SimKernel, fn: () => void, kind = 'test'): void {
  kernel.after(0, { kind }, fn);
}
