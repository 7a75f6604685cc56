/**
 * The ring descriptor as a gossiped, mergeable value (Cortex's `Desc.Merge`,
 * `RemoveTombstones` and `resolveConflicts` in pkg/ring/model.go), for the memberlist KV:
 *
 * - per instance the copy with the newer heartbeat `timestamp` wins; on equal timestamps a
 *   LEFT copy beats a live one (a departure is never undone by an old heartbeat);
 * - a local CAS that drops an instance turns it into a LEFT tombstone stamped "now";
 * - LEFT instances carry no tokens and are dropped after `left_ingesters_timeout`;
 * - clients never see LEFT instances, and a token claimed by two instances goes to the
 *   non-LEAVING one, else to the smaller instance ID.
 *
 * One deviation from Cortex, for convergence: on equal timestamps and equal LEFT-ness Cortex
 * keeps the receiver's copy, so two members holding different copies with the same
 * timestamp never agree. Here the copy with the larger canonical encoding wins, which makes
 * the merge a join of a total order per instance: commutative, associative and idempotent.
 * Token conflicts are resolved in the client view instead of the stored state for the same
 * reason (resolving in place is not associative).
 */
import type { MergeCodec, MergeResult, TombstoneRemoval } from '../runtime/index.js';
import { JSON_RING_CODEC } from './codec.js';
import { emptyRingDesc, unixSeconds, type InstanceDesc, type RingDesc } from './model.js';

/** Cortex's ring codec ID (its protobuf codec's; the bytes here are Strata's JSON). */
export const RING_CODEC_ID = 'ringDesc';

export const RING_MERGE_CODEC: MergeCodec<RingDesc> = {
  id: RING_CODEC_ID,
  encode: (desc) => JSON_RING_CODEC.encode(desc),
  decode: (bytes) => normalize(JSON_RING_CODEC.decode(bytes)),
  fromClient: (bytes) => normalize(JSON_RING_CODEC.decode(bytes)),
  toClient: (desc) => JSON_RING_CODEC.encode(ringView(desc)),
  merge: (current, incoming, opts) => mergeRing(current, incoming, opts.localCAS, opts.nowMs),
  removeTombstones: (desc, limitMs) => removeRingTombstones(desc, limitMs),
  content: (desc) => Object.keys(desc.ingesters).sort(),
};

/**
 * `incoming` merged into `current` (neither is modified): the merged ring and the instances
 * that changed, or undefined when none did. With `localCAS`, instances of `current` missing
 * from `incoming` become LEFT with timestamp max(now, theirs).
 */
export function mergeRing(
  current: RingDesc,
  incoming: RingDesc,
  localCAS: boolean,
  nowMs: number,
): MergeResult<RingDesc> | undefined {
  const out = cloneRing(current);
  const updated: string[] = [];
  for (const id of Object.keys(incoming.ingesters).sort()) {
    const theirs = own(incoming, id);
    if (theirs === undefined) continue;
    const o = normalizeInstance(theirs);
    const t = own(out, id);
    if (t === undefined || compareInstances(o, t) > 0) {
      out.ingesters[id] = o;
      updated.push(id);
    }
  }
  if (localCAS) {
    for (const id of Object.keys(out.ingesters).sort()) {
      const t = own(out, id);
      if (t === undefined || t.state === 'LEFT' || own(incoming, id) !== undefined) continue;
      out.ingesters[id] = {
        ...t,
        state: 'LEFT',
        tokens: [],
        // Not the old timestamp: a heartbeat still in flight (newer than it) would resurrect the entry.
        timestamp: Math.max(unixSeconds(nowMs), t.timestamp),
      };
      updated.push(id);
    }
  }
  if (updated.length === 0) return undefined;
  const change = emptyRingDesc();
  for (const id of updated.sort()) change.ingesters[id] = cloneInstance(out.ingesters[id]!);
  return { value: out, change };
}

/**
 * The total order of one instance's copies: newer timestamp, then LEFT over live (Cortex),
 * then the larger canonical encoding (Strata's tie-break).
 */
export function compareInstances(a: InstanceDesc, b: InstanceDesc): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  const aLeft = a.state === 'LEFT';
  const bLeft = b.state === 'LEFT';
  if (aLeft !== bLeft) return aLeft ? 1 : -1;
  const ka = canonical(a);
  const kb = canonical(b);
  return ka === kb ? 0 : ka < kb ? -1 : 1;
}

/** Drops LEFT instances whose timestamp is before `limitMs` (all of them when undefined). */
export function removeRingTombstones(
  desc: RingDesc,
  limitMs: number | undefined,
): TombstoneRemoval<RingDesc> {
  const out = emptyRingDesc();
  let total = 0;
  let removed = 0;
  for (const id of Object.keys(desc.ingesters)) {
    const inst = own(desc, id);
    if (inst === undefined) continue;
    if (inst.state === 'LEFT') {
      if (limitMs === undefined || inst.timestamp * 1000 < limitMs) {
        removed++;
        continue;
      }
      total++;
    }
    out.ingesters[id] = inst;
  }
  return { value: removed === 0 ? desc : out, total, removed };
}

/** What ring clients see: no tombstones, every token with exactly one owner. */
export function ringView(desc: RingDesc): RingDesc {
  const view = cloneRing(removeRingTombstones(desc, undefined).value);
  resolveTokenConflicts(view);
  return view;
}

/**
 * Cortex's resolveConflicts: a token held by several instances stays with a non-LEAVING one
 * over a LEAVING one, otherwise with the smallest instance ID; the others lose it.
 */
export function resolveTokenConflicts(desc: RingDesc): void {
  const owner = new Map<number, string>();
  let conflicts = false;
  for (const id of Object.keys(desc.ingesters).sort()) {
    const inst = desc.ingesters[id]!;
    for (const token of inst.tokens) {
      const prev = owner.get(token);
      if (prev === undefined) {
        owner.set(token, id);
        continue;
      }
      conflicts = true;
      const prevLeaving = desc.ingesters[prev]!.state === 'LEAVING';
      const leaving = inst.state === 'LEAVING';
      // IDs are visited in ascending order, so `prev` is the smaller ID.
      if (prevLeaving && !leaving) owner.set(token, id);
    }
  }
  if (!conflicts) return;
  for (const id of Object.keys(desc.ingesters)) {
    const inst = desc.ingesters[id]!;
    inst.tokens = inst.tokens.filter((t) => owner.get(t) === id);
  }
}

function normalize(desc: RingDesc): RingDesc {
  const out = emptyRingDesc();
  for (const id of Object.keys(desc.ingesters)) {
    const inst = own(desc, id);
    if (inst !== undefined) out.ingesters[id] = normalizeInstance(inst);
  }
  return out;
}

/** LEFT instances have no tokens; tokens sorted and unique. */
function normalizeInstance(inst: InstanceDesc): InstanceDesc {
  if (inst.state === 'LEFT') return { ...inst, tokens: [] };
  const sorted = [...inst.tokens].sort((a, b) => a - b);
  return { ...inst, tokens: sorted.filter((t, i) => i === 0 || sorted[i - 1] !== t) };
}

function canonical(i: InstanceDesc): string {
  return JSON.stringify([i.state, i.addr, i.zone, i.registeredTimestamp, i.tokens]);
}

function own(desc: RingDesc, id: string): InstanceDesc | undefined {
  return Object.hasOwn(desc.ingesters, id) ? desc.ingesters[id] : undefined;
}

function cloneInstance(inst: InstanceDesc): InstanceDesc {
  return { ...inst, tokens: [...inst.tokens] };
}

function cloneRing(desc: RingDesc): RingDesc {
  const out = emptyRingDesc();
  for (const id of Object.keys(desc.ingesters)) {
    const inst = own(desc, id);
    if (inst !== undefined) out.ingesters[id] = cloneInstance(inst);
  }
  return out;
}
