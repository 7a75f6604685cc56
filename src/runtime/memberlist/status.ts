import type { MessageHistory, MessageRecord } from './history.js';
import type { KVState } from './kv_state.js';
import type { Member } from './members.js';
import type { MemberState } from './wire.js';

export interface MemberStatus {
  readonly name: string;
  readonly address: string;
  readonly state: MemberState;
  readonly incarnation: number;
  readonly stateChangeMs: number;
}

export interface KeyStatus {
  readonly key: string;
  readonly codec: string;
  readonly version: number;
  readonly deleted: boolean;
  readonly updatedAtMs: number;
  /** Size of the gossiped state (with tombstones). */
  readonly sizeBytes: number;
  /** Parts of the value (ring instance IDs), tombstones included. */
  readonly parts: number;
}

/** Everything the `/memberlist` page shows (Cortex's memberlist status page). */
export interface MemberlistStatus {
  readonly name: string;
  readonly phase: string;
  readonly address: string | undefined;
  readonly incarnation: number;
  /** Members neither dead nor left, this one included. */
  readonly numMembers: number;
  readonly healthScore: number;
  readonly members: readonly MemberStatus[];
  readonly keys: readonly KeyStatus[];
  readonly queued: { readonly local: number; readonly gossip: number };
  /** Undefined when message history is off (`-memberlist.message-history-buffer-bytes=0`). */
  readonly sentMessages: readonly MessageRecord[] | undefined;
  readonly receivedMessages: readonly MessageRecord[] | undefined;
}

export function memberlistStatus(input: {
  name: string;
  phase: string;
  self: Member | undefined;
  members: readonly Member[];
  numMembers: number;
  healthScore: number;
  state: KVState;
  history: MessageHistory;
  queued: { local: number; gossip: number };
}): MemberlistStatus {
  const keys: KeyStatus[] = [];
  for (const key of input.state.keys()) {
    const e = input.state.read(key);
    if (e === undefined) continue;
    keys.push({
      key,
      codec: e.codec.id,
      version: e.version,
      deleted: e.deleted,
      updatedAtMs: e.updatedAtMs,
      sizeBytes: e.codec.encode(e.value).length,
      parts: e.codec.content(e.value).length,
    });
  }
  const history = input.history.enabled ? input.history.snapshot() : undefined;
  return {
    name: input.name,
    phase: input.phase,
    address: input.self?.address,
    incarnation: input.self?.incarnation ?? 0,
    numMembers: input.numMembers,
    healthScore: input.healthScore,
    members: input.members.map((m) => ({
      name: m.name,
      address: m.address,
      state: m.state,
      incarnation: m.incarnation,
      stateChangeMs: m.stateChangeMs,
    })),
    keys,
    queued: input.queued,
    sentMessages: history?.sent,
    receivedMessages: history?.received,
  };
}
