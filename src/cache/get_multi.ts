import type { Clock } from '../runtime/clock.js';
import { MemcachedError, type MemcachedConnection } from './connection.js';
import { bytesEqual, encodeGetMulti, Opcode, Status } from './memcached_protocol.js';

const encoder = new TextEncoder();

/**
 * One pipelined multi-get on one connection: a GetKQ per key (opaque = the key's index),
 * then a Noop whose answer ends the exchange. Quiet gets answer only hits, so the frames
 * between are hits or per-key errors. Every hit must carry the opaque AND the key of a
 * request: a frame that does not (a confused server, a stray frame from an earlier
 * exchange) fails the whole batch, which the client turns into misses.
 */
export function fetchBatch(
  conn: MemcachedConnection,
  keys: readonly string[],
  timeoutMs: number,
  clock: Clock,
): Promise<Map<string, Uint8Array>> {
  const encoded = keys.map((k) => encoder.encode(k));
  const hits = new Map<string, Uint8Array>();
  return conn.roundTrip(
    encodeGetMulti(encoded),
    (frame) => {
      if (frame.opcode === Opcode.Noop) {
        if (frame.opaque !== keys.length) throw garbage(`noop with opaque ${frame.opaque}`);
        return hits;
      }
      if (frame.opcode !== Opcode.GetKQ && frame.opcode !== Opcode.GetK) {
        throw garbage(`unexpected opcode 0x${frame.opcode.toString(16)}`);
      }
      const i = frame.opaque;
      if (i >= keys.length || !bytesEqual(frame.key, encoded[i]!)) {
        throw garbage(`response for a key that was not requested (opaque ${i})`);
      }
      if (frame.status === Status.KeyNotFound) return undefined;
      if (frame.status !== Status.NoError) {
        throw new MemcachedError('server-error', `get: status 0x${frame.status.toString(16)}`);
      }
      if (frame.extras.length !== 4)
        throw garbage(`get response with ${frame.extras.length} bytes of extras`);
      if (hits.has(keys[i]!)) throw garbage('two responses for one key');
      hits.set(keys[i]!, frame.value);
      return undefined;
    },
    timeoutMs,
    clock,
  );
}

function garbage(message: string): MemcachedError {
  return new MemcachedError('other', `bad get response: ${message}`);
}
