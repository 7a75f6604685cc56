/**
 * Parsers for the two Prometheus text formats — OpenMetrics 1.0 (what `promtool tsdb
 * create-blocks-from openmetrics` reads) and the text exposition format 0.0.4 (what
 * `/metrics` serves) — with Prometheus's behaviour and error wording, streaming line by line
 * over strings or byte chunks; and an OpenMetrics renderer whose output both parsers read
 * back exactly. It must stay pure: no IO (callers hand in chunks), no time, no global state.
 */
export {
  TextParseError,
  type CommentEntry,
  type Exemplar,
  type HelpEntry,
  type MetricType,
  type SeriesEntry,
  type TextEntry,
  type TextInput,
  type TypeEntry,
  type UnitEntry,
} from './entries.js';
export { formatGoFloat, parseGoFloat, secondsToMillis } from './go_float.js';
export { LineSplitter, splitLines, splitLinesAsync, type RawLine } from './lines.js';
export {
  OpenMetricsLineParser,
  parseOpenMetrics,
  parseOpenMetricsStream,
} from './openmetrics_parser.js';
export {
  PrometheusTextLineParser,
  parsePrometheusText,
  parsePrometheusTextStream,
} from './prom_text_parser.js';
export {
  escapeLabelValue,
  formatOpenMetricsSample,
  formatOpenMetricsTimestamp,
  formatSeriesLabels,
  renderOpenMetrics,
  type OpenMetricsRenderable,
} from './openmetrics_render.js';
