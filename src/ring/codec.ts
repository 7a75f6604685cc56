/**
 * The ring descriptor's encoding in the KV store, and the merge used when two copies of one
 * ring must be reconciled.
 *
 * JSON, not protobuf: every backend stores opaque bytes, so either works over any `KV`; JSON
 * can be read with `etcdctl get` or `consul kv get` while debugging, needs no schema
 * compiler, and the ring is small (a few hundred instances × 128 tokens). Field names follow
 * Cortex's protobuf field names. A protobuf codec can be added behind `RingCodec` when a
 * gossip backend needs compact deltas.
 */
import { emptyRingDesc, isInstanceState, type InstanceDesc, type RingDesc } from './model.js';

export interface RingCodec {
  /** Undefined bytes (missing key) decode to an empty ring. */
  decode(bytes: Uint8Array | undefined): RingDesc;
  encode(desc: RingDesc): Uint8Array;
}

export class RingCodecError extends Error {
  override name = 'RingCodecError';
}

interface WireInstance {
  addr: string;
  timestamp: number;
  state: string;
  tokens: number[];
  zone: string;
  registered_timestamp: number;
}

/** The JSON ring codec; stateless, one instance may be shared. */
export const JSON_RING_CODEC: RingCodec = {
  decode(bytes) {
    if (bytes === undefined || bytes.length === 0) return emptyRingDesc();
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch (err) {
      throw new RingCodecError(`ring descriptor is not valid JSON: ${(err as Error).message}`);
    }
    if (!isObject(raw)) throw new RingCodecError('ring descriptor is not a JSON object');
    const ingesters = raw['ingesters'] ?? {};
    if (!isObject(ingesters))
      throw new RingCodecError('ring descriptor: "ingesters" is not an object');
    const desc = emptyRingDesc();
    for (const [id, value] of Object.entries(ingesters)) {
      desc.ingesters[id] = decodeInstance(id, value);
    }
    return desc;
  },
  encode(desc) {
    const ingesters = Object.create(null) as Record<string, WireInstance>;
    for (const id of Object.keys(desc.ingesters).sort()) {
      const inst = desc.ingesters[id];
      if (inst === undefined) continue;
      ingesters[id] = {
        addr: inst.addr,
        timestamp: inst.timestamp,
        state: inst.state,
        tokens: inst.tokens,
        zone: inst.zone,
        registered_timestamp: inst.registeredTimestamp,
      };
    }
    return new TextEncoder().encode(JSON.stringify({ ingesters }));
  },
};

function decodeInstance(id: string, value: unknown): InstanceDesc {
  const where = `ring descriptor: instance ${JSON.stringify(id)}`;
  if (!isObject(value)) throw new RingCodecError(`${where} is not an object`);
  const state = value['state'] ?? 'ACTIVE';
  if (!isInstanceState(state)) {
    throw new RingCodecError(`${where}: unknown state ${JSON.stringify(state)}`);
  }
  const tokens = value['tokens'] ?? [];
  if (!Array.isArray(tokens) || !tokens.every(isUint32)) {
    throw new RingCodecError(`${where}: tokens must be an array of uint32`);
  }
  const sorted = [...(tokens as number[])].sort((a, b) => a - b);
  return {
    addr: stringField(value, 'addr', where),
    timestamp: intField(value, 'timestamp', where),
    state,
    tokens: sorted.filter((t, i) => i === 0 || sorted[i - 1] !== t),
    zone: stringField(value, 'zone', where),
    registeredTimestamp: intField(value, 'registered_timestamp', where),
  };
}

function stringField(obj: Record<string, unknown>, key: string, where: string): string {
  const v = obj[key] ?? '';
  if (typeof v !== 'string') throw new RingCodecError(`${where}: ${key} must be a string`);
  return v;
}

function intField(obj: Record<string, unknown>, key: string, where: string): number {
  const v = obj[key] ?? 0;
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw new RingCodecError(`${where}: ${key} must be an integer`);
  }
  return v;
}

function isUint32(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Reconciles two copies of a ring (for stores without compare-and-swap, such as gossip, and
 * for repairing a ring after a split): per instance the copy with the newer heartbeat wins,
 * ties go to the later lifecycle state (LEFT beats everything, so a departure is not undone)
 * and then to the lexically larger encoding, which makes the merge commutative and
 * idempotent. A token claimed by two instances afterwards stays with the smaller instance ID
 * and is removed from the other, so every token has exactly one owner.
 */
export function mergeRingDescs(a: RingDesc, b: RingDesc): RingDesc {
  const out = emptyRingDesc();
  const ids = [...new Set([...Object.keys(a.ingesters), ...Object.keys(b.ingesters)])].sort();
  for (const id of ids) {
    const x = ownInstance(a, id);
    const y = ownInstance(b, id);
    const winner = x === undefined ? y : y === undefined ? x : newerInstance(x, y);
    if (winner !== undefined) out.ingesters[id] = { ...winner, tokens: [...winner.tokens] };
  }
  resolveTokenConflicts(out);
  return out;
}

function ownInstance(desc: RingDesc, id: string): InstanceDesc | undefined {
  return Object.hasOwn(desc.ingesters, id) ? desc.ingesters[id] : undefined;
}

const STATE_RANK: Readonly<Record<string, number>> = {
  PENDING: 0,
  JOINING: 1,
  ACTIVE: 2,
  READONLY: 3,
  LEAVING: 4,
  LEFT: 5,
};

function newerInstance(x: InstanceDesc, y: InstanceDesc): InstanceDesc {
  if (x.timestamp !== y.timestamp) return x.timestamp > y.timestamp ? x : y;
  const rx = STATE_RANK[x.state] ?? 0;
  const ry = STATE_RANK[y.state] ?? 0;
  if (rx !== ry) return rx > ry ? x : y;
  return JSON.stringify(x) >= JSON.stringify(y) ? x : y;
}

function resolveTokenConflicts(desc: RingDesc): void {
  const owner = new Map<number, string>();
  for (const id of Object.keys(desc.ingesters).sort()) {
    const inst = desc.ingesters[id];
    if (inst === undefined || inst.state === 'LEFT') continue;
    inst.tokens = inst.tokens.filter((t) => {
      if (owner.has(t)) return false;
      owner.set(t, id);
      return true;
    });
  }
}
