/**
 * Renders samples as OpenMetrics text that Prometheus (and our parser) read back to the
 * same labels, values and millisecond timestamps. Timestamps need care: Prometheus
 * truncates `seconds * 1000`, so "1.005" reads back as 1004 ms; we print the shortest
 * seconds value that truncates to the intended millisecond.
 */
import type { Labels } from '../labels.js';
import { isValidLegacyLabelName, isValidLegacyMetricName, METRIC_NAME_LABEL } from '../names.js';
import type { Exemplar, MetricType } from './entries.js';
import { formatGoFloat, secondsToMillis } from './go_float.js';

export type OpenMetricsRenderable =
  | {
      readonly kind: 'series';
      readonly labels: Labels;
      readonly value: number;
      readonly timestamp?: number;
      readonly exemplar?: Exemplar;
    }
  | { readonly kind: 'type'; readonly metric: string; readonly type: MetricType }
  | { readonly kind: 'help'; readonly metric: string; readonly help: string }
  | { readonly kind: 'unit'; readonly metric: string; readonly unit: string };

/** One line per entry (each ending in `\n`), then `# EOF\n`. */
export function* renderOpenMetrics(entries: Iterable<OpenMetricsRenderable>): Generator<string> {
  for (const e of entries) {
    switch (e.kind) {
      case 'series':
        yield formatOpenMetricsSample(e.labels, e.value, e.timestamp, e.exemplar);
        break;
      case 'type':
        if (e.type === 'untyped')
          throw new Error(`metric type "untyped" of ${e.metric} does not exist in OpenMetrics`);
        yield `# TYPE ${formatMetricName(e.metric)} ${e.type}\n`;
        break;
      case 'help':
        yield `# HELP ${formatMetricName(e.metric)} ${escapeLabelValue(e.help)}\n`;
        break;
      case 'unit':
        yield `# UNIT ${formatMetricName(e.metric)} ${e.unit}\n`;
        break;
    }
  }
  yield '# EOF\n';
}

/** `name{a="b"} value [seconds] [# {…} value [seconds]]\n`. */
export function formatOpenMetricsSample(
  labels: Labels,
  value: number,
  timestampMs?: number,
  exemplar?: Exemplar,
): string {
  let line = formatSeriesLabels(labels) + ' ' + formatGoFloat(value);
  if (timestampMs !== undefined) line += ' ' + formatOpenMetricsTimestamp(timestampMs);
  if (exemplar !== undefined) {
    line +=
      ' # ' + formatLabelBlock(exemplar.labels, undefined) + ' ' + formatGoFloat(exemplar.value);
    if (exemplar.timestamp !== undefined)
      line += ' ' + formatOpenMetricsTimestamp(exemplar.timestamp);
  }
  return line + '\n';
}

/** `name{labels}`; a name outside the legacy character set goes quoted inside the braces. */
export function formatSeriesLabels(labels: Labels): string {
  const name = labels.get(METRIC_NAME_LABEL);
  if (name === '') return formatLabelBlock(labels, undefined);
  const rest = labels.without(METRIC_NAME_LABEL);
  if (isValidLegacyMetricName(name))
    return rest.isEmpty() ? name : name + formatLabelBlock(rest, undefined);
  return formatLabelBlock(rest, name);
}

function formatLabelBlock(labels: Labels, quotedName: string | undefined): string {
  const parts: string[] = [];
  if (quotedName !== undefined) parts.push('"' + escapeLabelValue(quotedName) + '"');
  labels.forEach((name, value) => {
    const n = isValidLegacyLabelName(name) ? name : '"' + escapeLabelValue(name) + '"';
    parts.push(n + '="' + escapeLabelValue(value) + '"');
  });
  return '{' + parts.join(',') + '}';
}

function formatMetricName(name: string): string {
  return isValidLegacyMetricName(name) ? name : '"' + escapeLabelValue(name) + '"';
}

/** The escapes Prometheus undoes in label values: backslash, double quote, newline. */
export function escapeLabelValue(s: string): string {
  return s.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : '\\' + ch));
}

/** Seconds text that Prometheus's `int64(seconds * 1000)` turns back into `ms`. */
export function formatOpenMetricsTimestamp(ms: number): string {
  if (!Number.isSafeInteger(ms)) throw new RangeError(`timestamp ${ms} ms is not a safe integer`);
  const exact = exactSeconds(ms);
  let seconds = Number(exact);
  if (secondsToMillis(seconds) === ms) return exact;
  // The nearest float to ms/1000 times 1000 fell just short of ms; step away from zero.
  const view = new DataView(new ArrayBuffer(8));
  for (let step = 0; step < 16; step++) {
    view.setFloat64(0, seconds);
    view.setBigUint64(0, view.getBigUint64(0) + 1n);
    seconds = view.getFloat64(0);
    if (secondsToMillis(seconds) === ms) return String(seconds);
  }
  throw new RangeError(`no seconds value converts back to ${ms} ms`);
}

function exactSeconds(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  const whole = Math.trunc(abs / 1000);
  const frac = abs - whole * 1000;
  if (frac === 0) return sign + String(whole);
  return sign + String(whole) + '.' + String(frac).padStart(3, '0').replace(/0+$/, '');
}
