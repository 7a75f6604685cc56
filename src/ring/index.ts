/**
 * Hash rings: how Strata's components find each other and decide which instances hold a
 * series. The ring descriptor (instances with address, zone, state, tokens and heartbeat)
 * lives under one key of a `KV` store; the `Lifecycler` registers an instance and keeps its
 * entry fresh, the `Ring` client watches the key and answers replica-set lookups with
 * Cortex's replication and quorum rules, and the status page shows and repairs the ring.
 *
 * This module must never open a KV backend itself (it takes a `KV`), never read the wall
 * clock or randomness except through the injected `Clock` and `Random`, and never import a
 * component: components depend on it, not the other way round.
 */
export {
  INSTANCE_STATES,
  READ,
  REPORTING,
  WRITE,
  WRITE_NO_EXTEND,
  allTokens,
  emptyRingDesc,
  isHeartbeatHealthy,
  isInstanceHealthy,
  isInstanceState,
  unixSeconds,
  type InstanceDesc,
  type InstanceState,
  type Operation,
  type RingDesc,
} from './model.js';
export { JSON_RING_CODEC, RingCodecError, type RingCodec } from './codec.js';
export {
  RING_CODEC_ID,
  RING_MERGE_CODEC,
  compareInstances,
  mergeRing,
  removeRingTombstones,
  resolveTokenConflicts,
  ringView,
} from './ring_merge.js';
export {
  TokensFileError,
  encodeTokensFile,
  generateTokens,
  loadTokensFile,
  parseTokensFile,
  storeTokensFile,
  tokenOwnership,
  type TokenOwner,
} from './tokens.js';
export {
  EMPTY_RING_MESSAGE,
  RingError,
  TOO_MANY_UNHEALTHY_MESSAGE,
  filterReplicaSet,
  quorum,
  type ReplicationSet,
  type RingInstance,
} from './replication.js';
export { Ring, type ReadRing, type RingConfig, type RingDeps } from './ring.js';
export { shuffleShard, shuffleShardSeed, type ShuffleShardOptions } from './shuffle_shard.js';
export { Lifecycler, type LifecyclerConfig, type LifecyclerDeps } from './lifecycler.js';
export {
  BasicLifecycler,
  type BasicLifecyclerConfig,
  type BasicLifecyclerDeps,
} from './basic_lifecycler.js';
export {
  forgetInstance,
  renderRingPage,
  ringPageRequest,
  serveRingPage,
  type RingPageOptions,
  type RingPageRequest,
  type RingPageResponse,
} from './http.js';
