/**
 * The ring descriptor's encoding in the KV store (the gossiped store's merge of two copies is
 * ring_merge.ts).
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

/** Decoding without `stream` keeps no state between calls, so one decoder serves every call. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The JSON ring codec; stateless, one instance may be shared. */
export const JSON_RING_CODEC: RingCodec = {
  decode(bytes) {
    if (bytes === undefined || bytes.length === 0) return emptyRingDesc();
    let raw: unknown;
    try {
      raw = JSON.parse(STRICT_UTF8.decode(bytes));
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
  return {
    addr: stringField(value, 'addr', where),
    timestamp: intField(value, 'timestamp', where),
    state,
    tokens: sortedTokens(value['tokens'] ?? [], where),
    zone: stringField(value, 'zone', where),
    registeredTimestamp: intField(value, 'registered_timestamp', where),
  };
}

/**
 * The instance's tokens ascending without duplicates. Every writer stores them that way, and
 * each heartbeat makes every watcher decode the whole ring, so the common case is one
 * validating pass over the parsed array, which is kept as is; only an unsorted or duplicated
 * list (another writer's) is copied and sorted.
 */
function sortedTokens(tokens: unknown, where: string): number[] {
  if (!Array.isArray(tokens))
    throw new RingCodecError(`${where}: tokens must be an array of uint32`);
  let ascending = true;
  for (let i = 0; i < tokens.length; i++) {
    const t: unknown = tokens[i];
    if (!isUint32(t)) throw new RingCodecError(`${where}: tokens must be an array of uint32`);
    if (i > 0 && (t as number) <= (tokens[i - 1] as number)) ascending = false;
  }
  if (ascending) return tokens as number[];
  const sorted = [...(tokens as number[])].sort((a, b) => a - b);
  return sorted.filter((t, i) => i === 0 || sorted[i - 1] !== t);
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
