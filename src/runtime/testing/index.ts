/**
 * Test helpers for the runtime interfaces: contract suites every implementation (memory,
 * real, simulated, real services) runs, and a manually driven Clock. These files import
 * vitest, so only test files may import this module (through this index); production code
 * never does, which is why the runtime's own index does not re-export it.
 */
export { describeBucketContract, type BucketUnderTest } from './bucket_contract.js';
export { describeKVContract, type KVUnderTest } from './kv_contract.js';
export {
  describeCacheContract,
  type CacheUnderTest,
  type CacheFactoryOptions,
  type CacheContractCapabilities,
} from './cache_contract.js';
export { describeFileSystemContract, type FileSystemUnderTest } from './filesystem_contract.js';
export { ManualClock } from './manual_clock.js';
export { countingPause, type CountingPause } from './counting_pause.js';
export { CapturingLogger, type CapturedLine } from './capturing_logger.js';
