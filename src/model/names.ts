/**
 * Label and metric name validation as Prometheus 3 does it (prometheus/common model): the
 * legacy scheme allows `[a-zA-Z_][a-zA-Z0-9_]*` for label names (plus `:` for metric names);
 * the UTF-8 scheme, Prometheus 3's default, allows any non-empty valid UTF-8 string.
 */
import { isWellFormedUnicode } from './go_strings.js';

export type NameValidationScheme = 'legacy' | 'utf8';

const LEGACY_LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const LEGACY_METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

/** The label name of the metric name. */
export const METRIC_NAME_LABEL = '__name__';

export function isValidLegacyLabelName(name: string): boolean {
  return LEGACY_LABEL_NAME.test(name);
}

export function isValidLegacyMetricName(name: string): boolean {
  return LEGACY_METRIC_NAME.test(name);
}

export function isValidLabelName(name: string, scheme: NameValidationScheme = 'utf8'): boolean {
  if (scheme === 'legacy') return isValidLegacyLabelName(name);
  return name.length > 0 && isWellFormedUnicode(name);
}

export function isValidMetricName(name: string, scheme: NameValidationScheme = 'utf8'): boolean {
  if (scheme === 'legacy') return isValidLegacyMetricName(name);
  return name.length > 0 && isWellFormedUnicode(name);
}
