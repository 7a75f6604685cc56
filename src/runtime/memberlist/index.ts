/**
 * The memberlist (gossip) KV store: Cortex's `-ring.store=memberlist`. Members find each
 * other with a SWIM-style protocol (probes, indirect probes, suspicion, refutation, join and
 * leave) and converge on every key by merging codec-typed mergeable values, gossiping what
 * changed and exchanging full state periodically. One `MemberlistKV` per process serves every
 * ring and the HA tracker through prefix-scoped clients.
 *
 * It talks to other members only through the runtime `Transport` (so the same code runs in
 * the simulator), keeps time only with the injected `Clock` and draws randomness only from the
 * injected `Random`. It must never import a component (ring or HA codecs come in as
 * `MergeCodec`s) and never open sockets itself.
 */
export { MemberlistKV, type MemberlistKVDeps } from './memberlist_kv.js';
export { openMemberlistClient } from './open_client.js';
export type { MemberlistKVConfig } from './config.js';
export type {
  ClientWrite,
  MergeCodec,
  MergeOptions,
  MergeResult,
  TombstoneRemoval,
} from './codec.js';
export type { MessageRecord } from './history.js';
export type { KeyStatus, MemberStatus, MemberlistStatus } from './status.js';
export type { MemberState } from './wire.js';
