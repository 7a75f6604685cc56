// The stall measurement's push bodies (query_bench_stall.ts): one remote-write request of
// fixed series, one sample each, whose timestamp and value change every push. Encoding
// 1,000 series' labels afresh cost the load generator ~1.7 ms per push, more than Strata
// spent serving it, and its two clients share one event loop: a response waited behind the
// other client's encoding, so the generator's own work showed up as push latency. The
// request is encoded once and each push rewrites its samples' bytes in place.
import { buildWriteRequest, encodeWriteRequest } from '../src/distributor/index.js';

/** Timestamps in [2^35, 2^42) ms (1971 to 2109) take six bytes as a varint. */
const TS_MIN = 2 ** 35;
const TS_MAX = 2 ** 42;
const TS_BYTES = 6;
/** A value no real push uses, to find each sample in the encoded template. */
const SENTINEL = -1.25e-300;
/** `Sample.value` (field 1, fixed64) and `Sample.timestamp` (field 2, varint) tags. */
const VALUE_TAG = 0x09;
const TIMESTAMP_TAG = 0x10;

export class StallPushBody {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  /** Offset of each sample's value (its timestamp's varint follows the next tag). */
  private readonly valueAt: Int32Array;

  constructor(series: readonly [string, string][][]) {
    const req = buildWriteRequest({
      series: series.map((labels) => ({
        labels,
        samples: [{ value: SENTINEL, timestamp: TS_MIN }],
      })),
    });
    this.bytes = encodeWriteRequest(req);
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.valueAt = findSamples(this.bytes, this.view, series.length);
  }

  /** The request with every sample at `timestampMs` and `value` (the same bytes every call). */
  body(timestampMs: number, value: number): Uint8Array {
    if (!Number.isInteger(timestampMs) || timestampMs < TS_MIN || timestampMs >= TS_MAX) {
      throw new RangeError(`timestamp ${timestampMs} outside [2^35, 2^42) ms`);
    }
    // A proto3 encoder omits a zero value; the template always has the field.
    if (Object.is(value, 0)) throw new RangeError('value 0 has no bytes of its own in proto3');
    for (const at of this.valueAt) {
      this.view.setFloat64(at, value, true);
      let t = timestampMs;
      for (let i = 0; i < TS_BYTES; i++) {
        const low = t % 128;
        t = (t - low) / 128;
        this.bytes[at + 9 + i] = i < TS_BYTES - 1 ? low | 0x80 : low;
      }
    }
    return this.bytes;
  }
}

function findSamples(bytes: Uint8Array, view: DataView, count: number): Int32Array {
  const out = new Int32Array(count);
  let n = 0;
  for (let i = 1; i + 8 + 1 + TS_BYTES <= bytes.length && n < count; i++) {
    if (bytes[i - 1] !== VALUE_TAG || view.getFloat64(i, true) !== SENTINEL) continue;
    if (bytes[i + 8] !== TIMESTAMP_TAG) continue;
    out[n++] = i;
    i += 8 + TS_BYTES;
  }
  if (n !== count) throw new Error(`found ${n} of ${count} samples in the encoded request`);
  return out;
}
