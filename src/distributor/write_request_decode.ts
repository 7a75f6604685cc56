import { ProtoReader, WIRE_BYTES, WIRE_FIXED64, WIRE_VARINT } from './proto_reader.js';
import type { CachedLabels, SeriesLabelsCache } from './series_labels_cache.js';
import { StringInterner } from './string_intern.js';
import type {
  BucketSpan,
  Exemplar,
  Histogram,
  MetricMetadata,
  SeriesData,
  WriteRequestData,
} from './write_request.js';

/**
 * A hand-written decoder for `prometheus.WriteRequest` (remote write 1.0). It follows the
 * proto3 rules protobufjs and protobuf-go apply: unknown fields are skipped, a known field
 * sent with an unexpected wire type is skipped like an unknown one, the last value of a
 * scalar wins, packed and unpacked repeated scalars are both accepted, and nothing may run
 * past its enclosing message. Errors are `ProtoDecodeError`s naming the byte offset.
 *
 * With a `labelsCache`, a series whose label bytes match a previous request's returns that
 * request's label array (the same object, see SeriesLabelsCache): the result is equal either
 * way, but such arrays are shared and must not be changed.
 */
export function decodeWriteRequest(
  buf: Uint8Array,
  labelsCache?: SeriesLabelsCache,
): WriteRequestData {
  return new WriteRequestDecoder(buf, labelsCache).decode();
}

const EMPTY: readonly never[] = Object.freeze([]);
/** TimeSeries.labels: field 1, length-delimited. */
const LABELS_TAG = 0x0a;

/**
 * The key of a label run in the SeriesLabelsCache: a multiply-rotate hash over
 * `buf[start, end)` (label runs are hundreds of bytes, hashed for every series), cut to 30
 * bits so that it stays a small integer V8 keys Maps with unboxed. `words` views the same
 * bytes as 32-bit words from `buf`'s start: one load per four bytes, and two lanes over
 * alternate words halve the chain of dependent multiplies. The cache compares the bytes of
 * every hit, so the hash only needs to spread (1M distinct label sets of the benchmark give
 * 442 collisions in 2^30, as a random function would: about 466).
 */
function hashBytes(buf: Uint8Array, words: Uint32Array, start: number, end: number): number {
  let h = end - start;
  let i = start;
  // Leading bytes up to the first word boundary, one at a time.
  for (; i < end && (i & 3) !== 0; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  // Two lanes over alternate words: half the dependency chain per byte.
  let g = 0x9747b28c;
  for (; i + 8 <= end; i += 8) {
    const w = i >>> 2;
    h = Math.imul(h ^ (words[w] as number), 0xcc9e2d51);
    g = Math.imul(g ^ (words[w + 1] as number), 0x1b873593);
    h = (h << 15) | (h >>> 17);
    g = (g << 13) | (g >>> 19);
  }
  h = Math.imul(h ^ ((g << 7) | (g >>> 25)), 0x85ebca6b);
  for (; i < end; i++) h = Math.imul(h ^ (buf[i] as number), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & 0x3fffffff;
}

/**
 * `buf` as 32-bit words (platform order: little-endian on every target Node supports well;
 * the hash only has to be consistent within a process). A buffer not on a 4-byte boundary is
 * copied once so that the view can exist.
 */
const NO_WORDS = new Uint32Array(0);

function wordView(buf: Uint8Array): Uint32Array {
  const aligned = (buf.byteOffset & 3) === 0 ? buf : buf.slice();
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >>> 2);
}

class WriteRequestDecoder {
  private readonly r: ProtoReader;
  private readonly words: Uint32Array;
  private readonly strings: StringInterner;
  private timestamps = new Float64Array(1024);
  private values = new Float64Array(1024);
  private samples = 0;
  private exemplarCount = 0;
  private histogramCount = 0;

  constructor(
    private readonly buf: Uint8Array,
    private readonly cache: SeriesLabelsCache | undefined,
  ) {
    this.r = new ProtoReader(buf);
    // Only the label cache's hash reads words.
    this.words = cache === undefined ? NO_WORDS : wordView(buf);
    this.strings = new StringInterner(buf);
  }

  decode(): WriteRequestData {
    const r = this.r;
    const series: SeriesData[] = [];
    const metadata: MetricMetadata[] = [];
    let source = 0;
    let skipLabelNameValidation = false;
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (field === 1 && wt === WIRE_BYTES) series.push(this.timeSeries());
      else if (field === 2 && wt === WIRE_VARINT) source = r.int32();
      else if (field === 3 && wt === WIRE_BYTES) metadata.push(this.metadata());
      else if (field === 1000 && wt === WIRE_VARINT) skipLabelNameValidation = r.bool();
      else r.skip(wt, field);
    }
    return {
      series,
      timestamps: this.timestamps.subarray(0, this.samples),
      values: this.values.subarray(0, this.samples),
      metadata,
      source,
      skipLabelNameValidation,
      exemplarCount: this.exemplarCount,
      histogramCount: this.histogramCount,
    };
  }

  /** Enters a length-delimited submessage; returns the outer end to restore. */
  private enter(): number {
    const r = this.r;
    const stop = r.delimitedEnd();
    const outer = r.end;
    r.end = stop;
    return outer;
  }

  private leave(outer: number): void {
    this.r.end = outer;
  }

  private timeSeries(): SeriesData {
    const r = this.r;
    const outer = this.enter();
    // Allocated only on a cache miss: a hit uses the cached array.
    let labels: string[] | undefined;
    const sampleStart = this.samples;
    let exemplars: Exemplar[] | undefined;
    let histograms: Histogram[] | undefined;
    // The leading run of Label fields (where encoders put them) is looked up in the cache.
    const runStart = r.pos;
    const runEnd = this.cache === undefined ? runStart : this.labelRunEnd();
    const hash = runEnd > runStart ? hashBytes(this.buf, this.words, runStart, runEnd) : 0;
    let shared = false;
    let cached: CachedLabels | undefined;
    if (runEnd > runStart) {
      cached = (this.cache as SeriesLabelsCache).lookup(hash, this.buf, runStart, runEnd);
      if (cached !== undefined) {
        // The array is shared, never written: see the copy below for labels sent later.
        labels = cached.flat as string[];
        shared = true;
        r.pos = runEnd;
      }
    }
    let labelsAfterRun = false;
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (wt === WIRE_BYTES && field >= 1 && field <= 4) {
        if (field === 1) {
          if (r.pos > runEnd) labelsAfterRun = true;
          if (shared) {
            labels = (labels as string[]).slice();
            shared = false;
            cached = undefined;
          }
          this.label((labels ??= []));
        } else if (field === 2) this.sample();
        else if (field === 3) (exemplars ??= []).push(this.exemplar());
        else (histograms ??= []).push(this.histogram());
      } else {
        r.skip(wt, field);
      }
    }
    this.leave(outer);
    labels ??= [];
    if (runEnd > runStart && !shared && !labelsAfterRun)
      cached = (this.cache as SeriesLabelsCache).insert(hash, this.buf, runStart, runEnd, labels);
    if (exemplars !== undefined) this.exemplarCount += exemplars.length;
    if (histograms !== undefined) this.histogramCount += histograms.length;
    return {
      labels,
      cached,
      sampleStart,
      sampleEnd: this.samples,
      exemplars: exemplars ?? EMPTY,
      histograms: histograms ?? EMPTY,
    };
  }

  /**
   * Where the run of `labels` fields starting at the reader's position ends (the position
   * itself when there is none), found by skipping lengths only; anything malformed ends the
   * run early and is left to the normal decoding path to report.
   */
  private labelRunEnd(): number {
    const buf = this.buf;
    const end = this.r.end;
    let p = this.r.pos;
    while (p < end && buf[p] === LABELS_TAG) {
      const first = buf[p + 1] as number;
      if (first < 0x80) {
        // A label under 128 bytes (nearly all): a one-byte length.
        if (p + 2 + first > end) return p;
        p += 2 + first;
        continue;
      }
      let len = 0;
      let shift = 0;
      let q = p + 1;
      for (;;) {
        if (q >= end || shift > 28) return p;
        const b = buf[q++] as number;
        len += (b & 0x7f) * 2 ** shift;
        if (b < 0x80) break;
        shift += 7;
      }
      if (q + len > end) return p;
      p = q + len;
    }
    return p;
  }

  /** Appends `name, value` of one `Label` message to `out`. */
  private label(out: string[]): void {
    const r = this.r;
    const outer = this.enter();
    let name = '';
    let value = '';
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (wt === WIRE_BYTES && (field === 1 || field === 2)) {
        const stop = r.delimitedEnd();
        const s = this.strings.intern(r.pos, stop);
        r.pos = stop;
        if (field === 1) name = s;
        else value = s;
      } else {
        r.skip(wt, field);
      }
    }
    this.leave(outer);
    out.push(name, value);
  }

  private sample(): void {
    const r = this.r;
    const outer = this.enter();
    let value = 0;
    let timestamp = 0;
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (field === 1 && wt === WIRE_FIXED64) value = r.double();
      else if (field === 2 && wt === WIRE_VARINT) timestamp = r.int64();
      else r.skip(wt, field);
    }
    this.leave(outer);
    if (this.samples === this.timestamps.length) this.growSamples();
    this.timestamps[this.samples] = timestamp;
    this.values[this.samples] = value;
    this.samples++;
  }

  private growSamples(): void {
    const ts = new Float64Array(this.timestamps.length * 2);
    ts.set(this.timestamps);
    this.timestamps = ts;
    const vs = new Float64Array(this.values.length * 2);
    vs.set(this.values);
    this.values = vs;
  }

  private exemplar(): Exemplar {
    const r = this.r;
    const outer = this.enter();
    const labels: string[] = [];
    let value = 0;
    let timestamp = 0;
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (field === 1 && wt === WIRE_BYTES) this.label(labels);
      else if (field === 2 && wt === WIRE_FIXED64) value = r.double();
      else if (field === 3 && wt === WIRE_VARINT) timestamp = r.int64();
      else r.skip(wt, field);
    }
    this.leave(outer);
    return { labels, value, timestamp };
  }

  private metadata(): MetricMetadata {
    const r = this.r;
    const outer = this.enter();
    let type = 0;
    let metricFamilyName = '';
    let help = '';
    let unit = '';
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (field === 1 && wt === WIRE_VARINT) {
        type = r.int32();
      } else if (wt === WIRE_BYTES && (field === 2 || field === 4 || field === 5)) {
        const stop = r.delimitedEnd();
        const s = this.strings.intern(r.pos, stop);
        r.pos = stop;
        if (field === 2) metricFamilyName = s;
        else if (field === 4) help = s;
        else unit = s;
      } else {
        r.skip(wt, field);
      }
    }
    this.leave(outer);
    return { type, metricFamilyName, help, unit };
  }

  private histogram(): Histogram {
    const r = this.r;
    const outer = this.enter();
    const h: Histogram = {
      sum: 0,
      schema: 0,
      zeroThreshold: 0,
      negativeSpans: [],
      negativeDeltas: [],
      negativeCounts: [],
      positiveSpans: [],
      positiveDeltas: [],
      positiveCounts: [],
      resetHint: 0,
      timestamp: 0,
      customValues: [],
    };
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      switch (field) {
        case 1:
          if (wt !== WIRE_VARINT) break;
          h.countInt = r.uint64();
          delete h.countFloat;
          continue;
        case 2:
          if (wt !== WIRE_FIXED64) break;
          h.countFloat = r.double();
          delete h.countInt;
          continue;
        case 3:
          if (wt !== WIRE_FIXED64) break;
          h.sum = r.double();
          continue;
        case 4:
          if (wt !== WIRE_VARINT) break;
          h.schema = r.sint32();
          continue;
        case 5:
          if (wt !== WIRE_FIXED64) break;
          h.zeroThreshold = r.double();
          continue;
        case 6:
          if (wt !== WIRE_VARINT) break;
          h.zeroCountInt = r.uint64();
          delete h.zeroCountFloat;
          continue;
        case 7:
          if (wt !== WIRE_FIXED64) break;
          h.zeroCountFloat = r.double();
          delete h.zeroCountInt;
          continue;
        case 8:
        case 11:
          if (wt !== WIRE_BYTES) break;
          (field === 8 ? h.negativeSpans : h.positiveSpans).push(this.bucketSpan());
          continue;
        case 9:
        case 12:
          if (this.repeatedSint64(wt, field === 9 ? h.negativeDeltas : h.positiveDeltas)) continue;
          break;
        case 10:
        case 13:
        case 16: {
          const into =
            field === 10 ? h.negativeCounts : field === 13 ? h.positiveCounts : h.customValues;
          if (this.repeatedDouble(wt, into)) continue;
          break;
        }
        case 14:
          if (wt !== WIRE_VARINT) break;
          h.resetHint = r.int32();
          continue;
        case 15:
          if (wt !== WIRE_VARINT) break;
          h.timestamp = r.int64();
          continue;
      }
      r.skip(wt, field);
    }
    this.leave(outer);
    return h;
  }

  private bucketSpan(): BucketSpan {
    const r = this.r;
    const outer = this.enter();
    let offset = 0;
    let length = 0;
    while (r.pos < r.end) {
      const t = r.tag();
      const field = t >>> 3;
      const wt = t & 7;
      if (field === 1 && wt === WIRE_VARINT) offset = r.sint32();
      else if (field === 2 && wt === WIRE_VARINT) length = r.uint32();
      else r.skip(wt, field);
    }
    this.leave(outer);
    return { offset, length };
  }

  /** Packed (wire type 2) or one unpacked element; false when the wire type fits neither. */
  private repeatedSint64(wt: number, into: number[]): boolean {
    const r = this.r;
    if (wt === WIRE_VARINT) {
      into.push(r.sint64());
      return true;
    }
    if (wt !== WIRE_BYTES) return false;
    const outer = this.enter();
    while (r.pos < r.end) into.push(r.sint64());
    this.leave(outer);
    return true;
  }

  private repeatedDouble(wt: number, into: number[]): boolean {
    const r = this.r;
    if (wt === WIRE_FIXED64) {
      into.push(r.double());
      return true;
    }
    if (wt !== WIRE_BYTES) return false;
    const start = r.pos;
    const stop = r.delimitedEnd();
    if ((stop - r.pos) % 8 !== 0) {
      r.fail(`packed doubles of ${stop - r.pos} bytes (not a multiple of 8)`, start);
    }
    while (r.pos < stop) into.push(r.double());
    return true;
  }
}
