// The ways the ingester refuses a series for its tenant's limits, as coded errors that map
// to HTTP 400 through the server's error table (the client's fault; Cortex answers 400 so
// that Prometheus does not retry), with Cortex's message text so log searches still match.
import type { Labels } from '../model/index.js';
import { HttpError } from '../server/index.js';

/** Which series limit refused a new series (also the metric/discard reason label). */
export type SeriesLimitKind = 'per_user_series_limit' | 'per_metric_series_limit';

/** A new series would exceed the tenant's per-user or per-metric series limit. */
export class SeriesLimitError extends HttpError {
  override name = 'SeriesLimitError';
  constructor(
    readonly kind: SeriesLimitKind,
    /** The configured global limit (Cortex prints min-non-zero of local and global). */
    readonly globalLimit: number,
    /** The limit this ingester enforces after converting the global one. */
    readonly localLimit: number,
    /** The refused series (named in the per-metric message, as Cortex does). */
    readonly labels: Labels,
  ) {
    super('bad_data', seriesLimitMessage(kind, globalLimit, localLimit, labels));
  }
}

function seriesLimitMessage(
  kind: SeriesLimitKind,
  globalLimit: number,
  localLimit: number,
  labels: Labels,
): string {
  // Cortex's Limiter.formatMaxSeries*Error; Strata has no separate local limit setting, so
  // "local limit" is always 0 and "actual local limit" is the converted global limit.
  const which = kind === 'per_user_series_limit' ? 'per-user' : 'per-metric';
  const text = `${which} series limit of ${globalLimit} exceeded, please contact administrator to raise it (local limit: 0 global limit: ${globalLimit} actual local limit: ${localLimit})`;
  // Cortex's makeMetricLimitError appends the series for the per-metric limit only.
  return kind === 'per_metric_series_limit' ? `${text} for series ${labels.toString()}` : text;
}

/** Cortex's wrappedTSDBIngestErr text for a sample the head refused. */
export function sampleErrorMessage(err: Error, timestamp: number, labels: Labels): string {
  return `err: ${err.message}. timestamp=${formatRFC3339Nano(timestamp)}, series=${labels.toString()}`;
}

/** Go's time.RFC3339Nano in UTC for a millisecond timestamp (trailing zeros trimmed). */
export function formatRFC3339Nano(ms: number): string {
  const millis = ((ms % 1000) + 1000) % 1000;
  const seconds = (ms - millis) / 1000;
  const days = Math.floor(seconds / 86_400);
  const secOfDay = seconds - days * 86_400;
  const { y, m, d } = civilFromDays(days);
  const hh = Math.floor(secOfDay / 3600);
  const mm = Math.floor((secOfDay % 3600) / 60);
  const ss = secOfDay % 60;
  const frac = millis === 0 ? '' : `.${String(millis).padStart(3, '0').replace(/0+$/, '')}`;
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const year = y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${year}-${p2(m)}-${p2(d)}T${p2(hh)}:${p2(mm)}:${p2(ss)}${frac}Z`;
}

/** Howard Hinnant's days-to-civil: the proleptic Gregorian date of a day count since 1970. */
function civilFromDays(days: number): { y: number; m: number; d: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}
