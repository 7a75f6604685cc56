/**
 * Which metric family a sample belongs to: the closest preceding `# TYPE` whose name, plus
 * one of the suffixes its type allows, is the sample's name. Also builds the label set of
 * a sample line, turning a repeated label name into a parse error.
 */
import { DuplicateLabelError, Labels } from '../labels.js';
import { METRIC_NAME_LABEL } from '../names.js';
import { TextParseError, type Exemplar, type MetricType, type TextEntry } from './entries.js';

const SUFFIXES: Readonly<Record<MetricType, readonly string[]>> = {
  // '' for counters keeps Prometheus-text-format counters (no `_total` required) typed.
  counter: ['_total', '_created', ''],
  gauge: [''],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['', '_count', '_sum', '_created'],
  info: ['_info'],
  stateset: [''],
  unknown: [''],
  untyped: [''],
};

export class FamilyTracker {
  private name: string | undefined;
  private type: MetricType = 'unknown';

  declare(name: string, type: MetricType): void {
    this.name = name;
    this.type = type;
  }

  typeOf(sampleName: string): MetricType {
    const family = this.name;
    if (family === undefined || !sampleName.startsWith(family)) return 'unknown';
    const suffix = sampleName.slice(family.length);
    return SUFFIXES[this.type].includes(suffix) ? this.type : 'unknown';
  }
}

/** `pairs` without the name; the name is added here. */
export function sampleLabels(line: number, name: string, pairs: [string, string][]): Labels {
  pairs.push([METRIC_NAME_LABEL, name]);
  return labelsOrError(line, pairs);
}

export function labelsOrError(line: number, pairs: [string, string][]): Labels {
  try {
    return Labels.fromPairs(pairs);
  } catch (err) {
    if (err instanceof DuplicateLabelError) throw new TextParseError(line, err.message);
    throw err;
  }
}

/** A series entry without the optional fields that are absent. */
export function series(
  line: number,
  labels: Labels,
  value: number,
  timestamp: number | undefined,
  exemplar: Exemplar | undefined,
  metricType: MetricType,
): TextEntry {
  // exactOptionalPropertyTypes: leave absent fields out rather than set them to undefined.
  if (timestamp === undefined && exemplar === undefined)
    return { kind: 'series', line, labels, value, metricType };
  if (exemplar === undefined)
    return { kind: 'series', line, labels, value, timestamp: timestamp as number, metricType };
  if (timestamp === undefined) return { kind: 'series', line, labels, value, exemplar, metricType };
  return { kind: 'series', line, labels, value, timestamp, exemplar, metricType };
}
