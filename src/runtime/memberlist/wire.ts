/**
 * What members send each other, as JSON bodies of two runtime Transport methods:
 * `memberlist.Packet` (ping, indirect ping, gossip: memberlist's UDP-style packets) and
 * `memberlist.Stream` (push/pull full state: memberlist's TCP streams). Not Go memberlist's
 * binary format: Strata members only gossip with Strata members. Every decoder validates and
 * throws an RpcError('invalid_argument') naming what was wrong.
 */
import { RpcError, jsonBody, parseJsonBody, type RpcRequest } from '../transport.js';

export const PACKET_METHOD = 'memberlist.Packet';
export const STREAM_METHOD = 'memberlist.Stream';

export type MemberState = 'alive' | 'suspect' | 'dead' | 'left';
const MEMBER_STATES: readonly string[] = ['alive', 'suspect', 'dead', 'left'];

/** Membership broadcasts (memberlist's alive/suspect/dead; dead from the node itself = left). */
export type MembershipMessage =
  | {
      readonly type: 'alive';
      readonly node: string;
      readonly address: string;
      readonly incarnation: number;
    }
  | {
      readonly type: 'suspect';
      readonly node: string;
      readonly incarnation: number;
      readonly from: string;
    }
  | {
      readonly type: 'dead';
      readonly node: string;
      readonly incarnation: number;
      readonly from: string;
    };

/** One key's state (Cortex's KeyValuePair); `value` is the codec's encoding in base64. */
export interface WireKVPair {
  readonly key: string;
  readonly value: string;
  readonly codec: string;
  readonly deleted: boolean;
  /** Last delete/undelete decision time, ms (0: never). */
  readonly updatedAt: number;
}

export type GossipMessage = MembershipMessage | { readonly type: 'kv'; readonly pair: WireKVPair };

export type PacketRequest =
  | { readonly kind: 'ping'; readonly seq: number; readonly node: string; readonly from: string }
  | {
      readonly kind: 'ping-req';
      readonly seq: number;
      readonly node: string;
      readonly address: string;
      readonly from: string;
    }
  | { readonly kind: 'gossip'; readonly from: string; readonly messages: readonly GossipMessage[] };

export type PacketResponse =
  | { readonly kind: 'ack'; readonly seq: number }
  | { readonly kind: 'nack'; readonly seq: number }
  | { readonly kind: 'ok' };

/** A member as push/pull reports it (memberlist's pushNodeState). */
export interface PushNodeState {
  readonly name: string;
  readonly address: string;
  readonly incarnation: number;
  readonly state: MemberState;
}

export interface PushPullState {
  readonly from: string;
  readonly join: boolean;
  readonly nodes: readonly PushNodeState[];
  readonly kv: readonly WireKVPair[];
}

export function packetRequest(req: PacketRequest): RpcRequest {
  return { method: PACKET_METHOD, ...jsonBody(req) };
}

export function streamRequest(state: PushPullState): RpcRequest {
  return { method: STREAM_METHOD, ...jsonBody(state) };
}

export function decodePacketRequest(req: { body: Uint8Array; contentType: string }): PacketRequest {
  const o = object(parseJsonBody<unknown>(req), 'packet');
  const kind = str(o, 'kind', 'packet');
  switch (kind) {
    case 'ping':
      return {
        kind,
        seq: int(o, 'seq', kind),
        node: str(o, 'node', kind),
        from: str(o, 'from', kind),
      };
    case 'ping-req':
      return {
        kind,
        seq: int(o, 'seq', kind),
        node: str(o, 'node', kind),
        address: str(o, 'address', kind),
        from: str(o, 'from', kind),
      };
    case 'gossip':
      return {
        kind,
        from: str(o, 'from', kind),
        messages: array(o, 'messages', kind).map((m, i) => gossipMessage(m, `gossip message ${i}`)),
      };
    default:
      throw invalid(`packet: unknown kind ${JSON.stringify(kind)}`);
  }
}

export function decodePacketResponse(res: {
  body: Uint8Array;
  contentType: string;
}): PacketResponse {
  const o = object(parseJsonBody<unknown>(res), 'packet response');
  const kind = str(o, 'kind', 'packet response');
  if (kind === 'ack' || kind === 'nack') return { kind, seq: int(o, 'seq', kind) };
  if (kind === 'ok') return { kind };
  throw invalid(`packet response: unknown kind ${JSON.stringify(kind)}`);
}

export function decodePushPull(msg: { body: Uint8Array; contentType: string }): PushPullState {
  const where = 'push/pull state';
  const o = object(parseJsonBody<unknown>(msg), where);
  return {
    from: str(o, 'from', where),
    join: bool(o, 'join', where),
    nodes: array(o, 'nodes', where).map((n, i) => pushNode(n, `${where} node ${i}`)),
    kv: array(o, 'kv', where).map((p, i) => kvPair(p, `${where} kv pair ${i}`)),
  };
}

function gossipMessage(v: unknown, where: string): GossipMessage {
  const o = object(v, where);
  const type = str(o, 'type', where);
  switch (type) {
    case 'alive':
      return {
        type,
        node: str(o, 'node', where),
        address: str(o, 'address', where),
        incarnation: int(o, 'incarnation', where),
      };
    case 'suspect':
    case 'dead':
      return {
        type,
        node: str(o, 'node', where),
        incarnation: int(o, 'incarnation', where),
        from: str(o, 'from', where),
      };
    case 'kv':
      return { type, pair: kvPair(o['pair'], `${where} pair`) };
    default:
      throw invalid(`${where}: unknown type ${JSON.stringify(type)}`);
  }
}

function pushNode(v: unknown, where: string): PushNodeState {
  const o = object(v, where);
  const state = str(o, 'state', where);
  if (!MEMBER_STATES.includes(state))
    throw invalid(`${where}: unknown state ${JSON.stringify(state)}`);
  return {
    name: str(o, 'name', where),
    address: str(o, 'address', where),
    incarnation: int(o, 'incarnation', where),
    state: state as MemberState,
  };
}

function kvPair(v: unknown, where: string): WireKVPair {
  const o = object(v, where);
  const key = str(o, 'key', where);
  if (key === '') throw invalid(`${where}: empty key`);
  return {
    key,
    value: str(o, 'value', where),
    codec: str(o, 'codec', where),
    deleted: bool(o, 'deleted', where),
    updatedAt: int(o, 'updatedAt', where),
  };
}

function invalid(message: string): RpcError {
  return new RpcError('invalid_argument', `memberlist: ${message}`);
}

function object(v: unknown, where: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalid(`${where} is not an object`);
  return v as Record<string, unknown>;
}

function str(o: Record<string, unknown>, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw invalid(`${where}: ${key} must be a string`);
  return v;
}

function int(o: Record<string, unknown>, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw invalid(`${where}: ${key} must be a non-negative integer`);
  return v;
}

function bool(o: Record<string, unknown>, key: string, where: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') throw invalid(`${where}: ${key} must be a boolean`);
  return v;
}

function array(o: Record<string, unknown>, key: string, where: string): unknown[] {
  const v = o[key];
  if (!Array.isArray(v)) throw invalid(`${where}: ${key} must be an array`);
  return v;
}
