/**
 * The Prometheus-compatible HTTP query API (Prometheus 3 web/api/v1): `query`,
 * `query_range`, `series`, `labels`, `label/{name}/values`, `metadata`, `query_exemplars`,
 * `format_query`, `parse_query` and `status/buildinfo`, with Prometheus's parameters, error
 * texts, status codes and byte-exact JSON. A component registers it on the shared HTTP
 * server with per-tenant storage and the engines (`registerPrometheusApi`).
 *
 * It must never evaluate PromQL itself or reach storage other than through the Queryable
 * it is given, never read the clock other than through the injected Clock, and never answer
 * with anything but Prometheus's JSON envelope.
 */
export { registerPrometheusApi } from './register.js';
export { Form, MAX_FORM_BYTES, formFromParts, hasFormBody, parseForm } from './form.js';
export type {
  BuildInfo,
  Engines,
  Exemplar,
  ExemplarQueryResult,
  ExemplarSource,
  MetadataSource,
  MetricMetadata,
  PrometheusApiDeps,
} from './types.js';
export {
  ENGINE_TYPE_HEADER,
  NEUTRAL_ENGINE_TYPE_HEADER,
  type EngineName,
} from './engine_select.js';
export { DEFAULT_MAX_POINTS_PER_SERIES, parseQueryParam } from './query_handlers.js';
export {
  type BodyParts,
  elementsArray,
  encodeElements,
  encodeLabels,
  encodeQueryData,
  encodeResult,
  errorBody,
  joinBodyParts,
  successBody,
} from './encode.js';
// The query API's error kinds and parameter helpers, for the query-frontend, which must
// reject bad input with exactly the querier's status and message.
export { ApiError, badData, invalidParam, param, toApiError } from './errors.js';
export { jsonNumber, jsonString, sampleTimestamp, sampleValue } from './json.js';
export {
  MAX_TIME_FORMATTED,
  MAX_TIME_NS,
  MIN_TIME_FORMATTED,
  MIN_TIME_NS,
  // Named apart from the PromQL parser's parseDuration (ms): these are the API's rules (ns).
  parseDuration as parseApiDuration,
  parseTime as parseApiTime,
  durationToMs,
  nsToMs,
  parseLimit,
  subSaturating,
} from './params.js';
