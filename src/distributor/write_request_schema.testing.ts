/**
 * The remote-write schema as a .proto string for protobufjs, the reference the hand-written
 * codec is checked against in tests. `extended` adds fields 50-54 to every message so tests
 * can produce bytes carrying unknown fields at every level; `unpacked` marks the repeated
 * scalars `[packed=false]`. Imported by tests only.
 */
import protobuf from 'protobufjs';

function schemaText(extra: string, packedOption: string): string {
  return `
syntax = "proto3";
package prometheus;
message WriteRequest {
  repeated TimeSeries timeseries = 1;
  SourceEnum source = 2;
  repeated MetricMetadata metadata = 3;
  bool skip_label_name_validation = 1000;
  enum SourceEnum { API = 0; RULE = 1; }
  ${extra}
}
message TimeSeries {
  repeated Label labels = 1;
  repeated Sample samples = 2;
  repeated Exemplar exemplars = 3;
  repeated Histogram histograms = 4;
  ${extra}
}
message Label { string name = 1; string value = 2; ${extra} }
message Sample { double value = 1; int64 timestamp = 2; ${extra} }
message Exemplar { repeated Label labels = 1; double value = 2; int64 timestamp = 3; ${extra} }
message MetricMetadata {
  enum MetricType { UNKNOWN = 0; COUNTER = 1; GAUGE = 2; HISTOGRAM = 3; GAUGEHISTOGRAM = 4; SUMMARY = 5; INFO = 6; STATESET = 7; }
  MetricType type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
  ${extra}
}
message Histogram {
  enum ResetHint { UNKNOWN = 0; YES = 1; NO = 2; GAUGE = 3; }
  oneof count { uint64 count_int = 1; double count_float = 2; }
  double sum = 3;
  sint32 schema = 4;
  double zero_threshold = 5;
  oneof zero_count { uint64 zero_count_int = 6; double zero_count_float = 7; }
  repeated BucketSpan negative_spans = 8;
  repeated sint64 negative_deltas = 9 ${packedOption};
  repeated double negative_counts = 10 ${packedOption};
  repeated BucketSpan positive_spans = 11;
  repeated sint64 positive_deltas = 12 ${packedOption};
  repeated double positive_counts = 13 ${packedOption};
  ResetHint reset_hint = 14;
  int64 timestamp = 15;
  repeated double custom_values = 16 ${packedOption};
  ${extra}
}
message BucketSpan { sint32 offset = 1; uint32 length = 2; ${extra} }
message Unknown { string s = 1; int64 i = 2; }
`;
}

const EXTRA_FIELDS =
  'string x_string = 50; int64 x_varint = 51; fixed32 x_fixed32 = 52; double x_fixed64 = 53; Unknown x_message = 54;';

export interface WriteRequestSchemas {
  standard: protobuf.Type;
  extended: protobuf.Type;
  unpacked: protobuf.Type;
}

export function loadWriteRequestSchemas(): WriteRequestSchemas {
  const load = (extra: string, packed: string): protobuf.Type =>
    protobuf
      .parse(schemaText(extra, packed), { keepCase: false })
      .root.lookupType('prometheus.WriteRequest');
  return {
    standard: load('', ''),
    extended: load(EXTRA_FIELDS, ''),
    unpacked: load(EXTRA_FIELDS, '[packed = false]'),
  };
}
