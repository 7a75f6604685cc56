/**
 * The OpenMetrics 1.0 text parser, with Prometheus's behaviour and error wording
 * (model/textparse/openmetricsparse.go): single spaces between tokens, timestamps in float
 * seconds truncated to milliseconds, a mandatory final `# EOF`, no free-form comments, and
 * Prometheus 3's quoted UTF-8 metric and label names.
 */
import type { Labels } from '../labels.js';
import { Cursor, HASH, OPEN_BRACE, SPACE, readLabelBlock, unescapeLabelValue } from './cursor.js';
import {
  TextParseError,
  type Exemplar,
  type MetricType,
  type TextEntry,
  type TextInput,
} from './entries.js';
import { FamilyTracker, labelsOrError, sampleLabels, series } from './family.js';
import { parseGoFloat, secondsToMillis } from './go_float.js';
import { splitLines, splitLinesAsync, type RawLine } from './lines.js';

const OPENMETRICS_TYPES: ReadonlySet<string> = new Set([
  'counter',
  'gauge',
  'histogram',
  'gaugehistogram',
  'summary',
  'info',
  'stateset',
  'unknown',
]);

/** Parses an OpenMetrics document (whole or in chunks), yielding entries as lines complete. */
export function* parseOpenMetrics(input: TextInput): Generator<TextEntry> {
  const parser = new OpenMetricsLineParser();
  for (const line of splitLines(input)) {
    const entry = parser.parseLine(line);
    if (entry !== undefined) yield entry;
  }
  parser.finish();
}

/** Like parseOpenMetrics, over a stream of chunks. */
export async function* parseOpenMetricsStream(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<TextEntry> {
  const parser = new OpenMetricsLineParser();
  for await (const line of splitLinesAsync(input)) {
    const entry = parser.parseLine(line);
    if (entry !== undefined) yield entry;
  }
  parser.finish();
}

/** Line-at-a-time state machine behind both entry points. */
export class OpenMetricsLineParser {
  private eofLine = 0;
  private lastLine = 0;
  private readonly families = new FamilyTracker();

  parseLine(raw: RawLine): TextEntry | undefined {
    this.lastLine = raw.number;
    if (this.eofLine > 0) throw new TextParseError(raw.number, 'unexpected data after # EOF');
    const text = raw.text;
    if (text === '# EOF') {
      this.eofLine = raw.number;
      return undefined;
    }
    // A line the input ends without `\n` can only be `# EOF`.
    if (!raw.terminated) throw new TextParseError(raw.number, 'data does not end with # EOF');
    const c = new Cursor(text, raw.number);
    if (text.length === 0) c.fail('expected a valid start token, got "\\n"');
    if (text.charCodeAt(0) === HASH) return this.parseMeta(c);
    return this.parseSample(c);
  }

  /** Throws unless `# EOF` was seen. */
  finish(): void {
    if (this.eofLine === 0)
      throw new TextParseError(this.lastLine + 1, 'data does not end with # EOF');
  }

  private parseMeta(c: Cursor): TextEntry {
    const keyword = c.text.slice(0, 7);
    if (keyword !== '# HELP ' && keyword !== '# TYPE ' && keyword !== '# UNIT ')
      c.expected('a valid start token');
    const kind = keyword.slice(2, 6);
    c.pos = 7;
    const metric = c.peek() === 0x22 ? c.readQuoted('metric name') : c.readIdentifier(true);
    if (metric === '') c.expected(`metric name after ${kind}`);
    if (c.peek() !== SPACE) c.fail(`expected text in ${kind}`);
    const text = c.text.slice(c.pos + 1);
    const line = c.line;
    switch (kind) {
      case 'TYPE':
        if (!OPENMETRICS_TYPES.has(text)) c.fail(`invalid metric type ${JSON.stringify(text)}`);
        this.families.declare(metric, text as MetricType);
        return { kind: 'type', line, metric, type: text as MetricType };
      case 'HELP':
        return { kind: 'help', line, metric, help: unescapeLabelValue(text) };
      default:
        if (text !== '' && !(metric.endsWith('_' + text) && metric.length > text.length + 1)) {
          c.fail(`unit ${JSON.stringify(text)} not a suffix of metric ${JSON.stringify(metric)}`);
        }
        return { kind: 'unit', line, metric, unit: text };
    }
  }

  private parseSample(c: Cursor): TextEntry {
    const pairs: [string, string][] = [];
    let name: string | undefined;
    if (c.peek() === OPEN_BRACE) {
      c.pos++;
      name = readLabelBlock(c, { blanks: false, metricName: true }, pairs);
    } else {
      name = c.readIdentifier(true);
      if (name === '') c.expected('a valid start token');
      if (c.peek() === OPEN_BRACE) {
        c.pos++;
        if (readLabelBlock(c, { blanks: false, metricName: true }, pairs) !== undefined)
          c.fail(`metric name already set while parsing: ${JSON.stringify(c.text)}`);
      }
    }
    if (name === undefined || name === '')
      c.fail(`metric name not set while parsing: ${JSON.stringify(c.text)}`);
    const labels = sampleLabels(c.line, name, pairs);
    const value = readValue(c, 'metric');
    let timestamp: number | undefined;
    let exemplar: Exemplar | undefined;
    if (!c.atEnd()) {
      c.pos++; // the single space readValue left us on
      if (c.text.startsWith('# {', c.pos)) {
        c.pos += 3;
        exemplar = readExemplar(c);
      } else {
        timestamp = readTimestamp(c, 'timestamp');
        if (!c.atEnd()) {
          if (!c.text.startsWith(' # {', c.pos)) c.expected('next entry after timestamp');
          c.pos += 4;
          exemplar = readExemplar(c);
        }
      }
    }
    // Prometheus accepts exemplars only on counter totals and histogram buckets, by name.
    if (exemplar !== undefined && !name.endsWith('_total') && !name.endsWith('_bucket'))
      c.fail(`metric name ${name} does not support exemplars`);
    const metricType = this.families.typeOf(name);
    return series(c.line, labels, value, timestamp, exemplar, metricType);
  }
}

/** A space, then a float token; leaves the cursor on what follows (end or a space). */
function readValue(c: Cursor, after: string): number {
  if (c.peek() !== SPACE) c.expected(`value after ${after}`);
  c.pos++;
  const token = c.readToken(false);
  if (token === '') c.expected(`value after ${after}`);
  const v = parseGoFloat(token);
  if (typeof v === 'string') c.fail(`${v} while parsing: ${JSON.stringify(c.text)}`);
  return v;
}

function readTimestamp(c: Cursor, what: 'timestamp' | 'exemplar timestamp'): number {
  const token = c.readToken(false);
  if (token === '') c.expected(what);
  const seconds = parseGoFloat(token);
  if (typeof seconds === 'string') c.fail(`${seconds} while parsing: ${JSON.stringify(c.text)}`);
  if (!Number.isFinite(seconds)) c.fail(`invalid ${what} ${goFloatVerb(seconds)}`);
  const ms = secondsToMillis(seconds);
  if (ms === undefined) c.fail(`${what} ${token} out of range`);
  return ms;
}

/** From just after `# {` to the end of the line. */
function readExemplar(c: Cursor): Exemplar {
  const pairs: [string, string][] = [];
  readLabelBlock(c, { blanks: false, metricName: false }, pairs);
  const labels: Labels = labelsOrError(c.line, pairs);
  const value = readValue(c, 'exemplar labels');
  if (c.atEnd()) return { labels, value };
  c.pos++;
  const timestamp = readTimestamp(c, 'exemplar timestamp');
  if (!c.atEnd()) c.expected('next entry after exemplar timestamp');
  return { labels, value, timestamp };
}

/** Go's %f for the non-finite values the timestamp check reports. */
function goFloatVerb(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  return v > 0 ? '+Inf' : '-Inf';
}
