/**
 * The data model shared by every layer: label sets (sorted in Go string order, hashed and
 * printed exactly like Prometheus), name validation, and label matchers whose regular
 * expressions follow RE2 rather than JavaScript. It must stay free of IO, time and component
 * imports: it is pure data and pure functions that the storage engine, PromQL and the API
 * all build on.
 */
export { FastRegexMatcher, MAX_SET_MATCHES } from './fast_regex.js';
export { formatFloatE, formatFloatF, formatFloatFixed6, formatFloatG } from './go_format.js';
export { strconvParseFloat, strconvParseInt, type GoParsedNumber } from './go_parse.js';
export {
  compareGoStrings,
  goQuote,
  goQuoteRune,
  goUnicodeVerb,
  isWellFormedUnicode,
} from './go_strings.js';
export { DuplicateLabelError, Labels, type Label } from './labels.js';
export { sortByLabelsInSlices, type Pause } from './labels_sort.js';
export { Matcher, isMatchType, type MatchType } from './matchers.js';
export {
  METRIC_NAME_LABEL,
  isValidLabelName,
  isValidLegacyLabelName,
  isValidLegacyMetricName,
  isValidMetricName,
  type NameValidationScheme,
} from './names.js';
export {
  Re2SyntaxError,
  SubmatchRegex,
  parseRe2,
  type Node as Re2Node,
  type Re2ErrorCode,
} from './re2/index.js';
export { xxhash64 } from './xxhash64.js';
export * from './textparse/index.js';
