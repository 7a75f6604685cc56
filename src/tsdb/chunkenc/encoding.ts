// Chunk encodings and iterator value types, numbered exactly as Prometheus numbers them:
// the encoding byte is written into chunk segment files and index series entries.

/** Chunk encodings (Prometheus chunkenc.Encoding). */
export const Encoding = {
  None: 0,
  XOR: 1,
  Histogram: 2,
  FloatHistogram: 3,
} as const;
export type Encoding = (typeof Encoding)[keyof typeof Encoding];

/** Prometheus's names for the encodings (Encoding.String()). */
export function encodingName(encoding: number): string {
  switch (encoding) {
    case Encoding.None:
      return 'none';
    case Encoding.XOR:
      return 'XOR';
    case Encoding.Histogram:
      return 'histogram';
    case Encoding.FloatHistogram:
      return 'floathistogram';
    default:
      return '<unknown>';
  }
}

/** True for the encodings a chunk may be written with (Prometheus IsValidEncoding). */
export function isValidEncoding(encoding: number): encoding is Encoding {
  return (
    encoding === Encoding.XOR ||
    encoding === Encoding.Histogram ||
    encoding === Encoding.FloatHistogram
  );
}

/** What an iterator is positioned on (Prometheus chunkenc.ValueType). */
export const ValueType = {
  None: 0,
  Float: 1,
  Histogram: 2,
  FloatHistogram: 3,
} as const;
export type ValueType = (typeof ValueType)[keyof typeof ValueType];
