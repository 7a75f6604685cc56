import { ProtoWriter } from './proto_writer.js';
import type {
  BucketSpan,
  Exemplar,
  Histogram,
  MetricMetadata,
  SeriesData,
  WriteRequestData,
} from './write_request.js';

/**
 * Encodes a decoded request back to `prometheus.WriteRequest` bytes, the way Go's gogo
 * marshaller does (fields in number order, proto3 defaults omitted, repeated scalars packed).
 * `seriesIndexes` selects a subset of series (the distributor sends each ingester only its
 * share) and `includeMetadata` whether to send the metadata.
 */
export function encodeWriteRequest(
  req: WriteRequestData,
  options: { seriesIndexes?: readonly number[]; includeMetadata?: boolean } = {},
): Uint8Array {
  const w = new ProtoWriter();
  const { timestamps, values } = req;
  const writeSeries = (s: SeriesData): void => {
    const at = w.begin(1);
    writeLabels(w, s.labels);
    for (let i = s.sampleStart; i < s.sampleEnd; i++)
      w.sample(values[i] as number, timestamps[i] as number);
    // Indexed loops: most series have neither, and an iterator per empty list adds up.
    for (let i = 0; i < s.exemplars.length; i++) writeExemplar(w, s.exemplars[i] as Exemplar);
    for (let i = 0; i < s.histograms.length; i++) writeHistogram(w, s.histograms[i] as Histogram);
    w.end(at);
  };
  if (options.seriesIndexes === undefined) {
    for (const s of req.series) writeSeries(s);
  } else {
    for (const i of options.seriesIndexes) {
      const s = req.series[i];
      if (s === undefined) throw new RangeError(`series index ${i} out of range`);
      writeSeries(s);
    }
  }
  if (req.source !== 0) {
    w.tag(2, 0);
    w.int32(req.source);
  }
  if (options.includeMetadata ?? true) {
    for (const m of req.metadata) writeMetadata(w, m);
  }
  if (req.skipLabelNameValidation) {
    w.tag(1000, 0);
    w.varint32(1);
  }
  return w.finish();
}

function writeLabels(w: ProtoWriter, labels: readonly string[]): void {
  for (let i = 0; i + 1 < labels.length; i += 2) {
    const name = labels[i] as string;
    const value = labels[i + 1] as string;
    const at = w.begin(1);
    if (name !== '') w.stringField(1, name);
    if (value !== '') w.stringField(2, value);
    w.end(at);
  }
}

function writeExemplar(w: ProtoWriter, e: Exemplar): void {
  w.message(3, () => {
    writeLabels(w, e.labels);
    if (!Object.is(e.value, 0)) {
      w.tag(2, 1);
      w.double(e.value);
    }
    if (e.timestamp !== 0) {
      w.tag(3, 0);
      w.int64(e.timestamp);
    }
  });
}

function writeMetadata(w: ProtoWriter, m: MetricMetadata): void {
  w.message(3, () => {
    if (m.type !== 0) {
      w.tag(1, 0);
      w.int32(m.type);
    }
    if (m.metricFamilyName !== '') w.stringField(2, m.metricFamilyName);
    if (m.help !== '') w.stringField(4, m.help);
    if (m.unit !== '') w.stringField(5, m.unit);
  });
}

function writeHistogram(w: ProtoWriter, h: Histogram): void {
  w.message(4, () => {
    if (h.countInt !== undefined) {
      w.tag(1, 0);
      w.int64(h.countInt);
    } else if (h.countFloat !== undefined) {
      w.tag(2, 1);
      w.double(h.countFloat);
    }
    doubleField(w, 3, h.sum);
    if (h.schema !== 0) {
      w.tag(4, 0);
      w.sint32(h.schema);
    }
    doubleField(w, 5, h.zeroThreshold);
    if (h.zeroCountInt !== undefined) {
      w.tag(6, 0);
      w.int64(h.zeroCountInt);
    } else if (h.zeroCountFloat !== undefined) {
      w.tag(7, 1);
      w.double(h.zeroCountFloat);
    }
    spans(w, 8, h.negativeSpans);
    packedSint64(w, 9, h.negativeDeltas);
    packedDouble(w, 10, h.negativeCounts);
    spans(w, 11, h.positiveSpans);
    packedSint64(w, 12, h.positiveDeltas);
    packedDouble(w, 13, h.positiveCounts);
    if (h.resetHint !== 0) {
      w.tag(14, 0);
      w.int32(h.resetHint);
    }
    if (h.timestamp !== 0) {
      w.tag(15, 0);
      w.int64(h.timestamp);
    }
    packedDouble(w, 16, h.customValues);
  });
}

function doubleField(w: ProtoWriter, field: number, v: number): void {
  if (Object.is(v, 0)) return;
  w.tag(field, 1);
  w.double(v);
}

function spans(w: ProtoWriter, field: number, list: readonly BucketSpan[]): void {
  for (const s of list) {
    w.message(field, () => {
      if (s.offset !== 0) {
        w.tag(1, 0);
        w.sint32(s.offset);
      }
      if (s.length !== 0) {
        w.tag(2, 0);
        w.varint32(s.length);
      }
    });
  }
}

function packedSint64(w: ProtoWriter, field: number, list: readonly number[]): void {
  if (list.length === 0) return;
  w.message(field, () => {
    for (const v of list) w.sint64(v);
  });
}

function packedDouble(w: ProtoWriter, field: number, list: readonly number[]): void {
  if (list.length === 0) return;
  w.message(field, () => {
    for (const v of list) w.double(v);
  });
}
