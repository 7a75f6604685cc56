import { ProtoReader, WIRE_BYTES, WIRE_VARINT } from './proto_reader.js';
import { ProtoWriter } from './proto_writer.js';

/**
 * The value kept in the KV store per (tenant, cluster): Cortex's `distributor.ReplicaDesc`
 * protobuf (replica = 1, received_at = 2, deleted_at = 3; times in ms), so a Strata and a
 * Cortex distributor can share an HA-tracker key space.
 */
export interface ReplicaDesc {
  readonly replica: string;
  readonly receivedAt: number;
  /** Non-zero: marked for deletion by the cleanup at this time. */
  readonly deletedAt: number;
}

export function encodeReplicaDesc(d: ReplicaDesc): Uint8Array {
  const w = new ProtoWriter();
  if (d.replica !== '') w.stringField(1, d.replica);
  if (d.receivedAt !== 0) {
    w.tag(2, WIRE_VARINT);
    w.int64(d.receivedAt);
  }
  if (d.deletedAt !== 0) {
    w.tag(3, WIRE_VARINT);
    w.int64(d.deletedAt);
  }
  return w.finish();
}

/** Throws a ProtoDecodeError (with the offset) on a malformed value. */
export function decodeReplicaDesc(buf: Uint8Array): ReplicaDesc {
  const r = new ProtoReader(buf);
  let replica = '';
  let receivedAt = 0;
  let deletedAt = 0;
  while (r.pos < r.end) {
    const t = r.tag();
    const field = t >>> 3;
    const wt = t & 7;
    if (field === 1 && wt === WIRE_BYTES) {
      const stop = r.delimitedEnd();
      replica = new TextDecoder().decode(buf.subarray(r.pos, stop));
      r.pos = stop;
    } else if (field === 2 && wt === WIRE_VARINT) receivedAt = r.int64();
    else if (field === 3 && wt === WIRE_VARINT) deletedAt = r.int64();
    else r.skip(wt, field);
  }
  return { replica, receivedAt, deletedAt };
}
