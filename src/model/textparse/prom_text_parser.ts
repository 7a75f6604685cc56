/**
 * The Prometheus text exposition format 0.0.4 parser (what `/metrics` endpoints serve),
 * following Prometheus's model/textparse/promparse.go: blanks between tokens, integer
 * millisecond timestamps, `# HELP`/`# TYPE`, other `#` lines as comments, no `# EOF`.
 */
import { Cursor, HASH, OPEN_BRACE, TAB, SPACE, readLabelBlock, unescapeHelp } from './cursor.js';
import { type MetricType, type TextEntry, type TextInput } from './entries.js';
import { FamilyTracker, sampleLabels, series } from './family.js';
import { parseGoFloat } from './go_float.js';
import { splitLines, splitLinesAsync, type RawLine } from './lines.js';

const TEXT_TYPES: ReadonlySet<string> = new Set([
  'counter',
  'gauge',
  'histogram',
  'summary',
  'untyped',
]);
const INTEGER = /^-?\d+$/;

/** Parses a text-format document (whole or in chunks), yielding entries as lines complete. */
export function* parsePrometheusText(input: TextInput): Generator<TextEntry> {
  const parser = new PrometheusTextLineParser();
  for (const line of splitLines(input)) {
    const entry = parser.parseLine(line);
    if (entry !== undefined) yield entry;
  }
}

/** Like parsePrometheusText, over a stream of chunks. */
export async function* parsePrometheusTextStream(
  input: AsyncIterable<string | Uint8Array>,
): AsyncGenerator<TextEntry> {
  const parser = new PrometheusTextLineParser();
  for await (const line of splitLinesAsync(input)) {
    const entry = parser.parseLine(line);
    if (entry !== undefined) yield entry;
  }
}

export class PrometheusTextLineParser {
  private readonly families = new FamilyTracker();

  /** Blank lines yield nothing. A last line without `\n` is accepted, as scrapers do. */
  parseLine(raw: RawLine): TextEntry | undefined {
    const c = new Cursor(raw.text, raw.number);
    c.skipBlanks();
    if (c.atEnd()) return undefined;
    if (c.peek() === HASH) return this.parseComment(c);
    return this.parseSample(c);
  }

  private parseComment(c: Cursor): TextEntry {
    const hashAt = c.pos;
    c.pos++;
    const blanksFrom = c.pos;
    c.skipBlanks();
    const keyword = c.text.slice(c.pos, c.pos + 4);
    const afterKeyword = c.text.charCodeAt(c.pos + 4);
    const isMeta =
      c.pos > blanksFrom &&
      (keyword === 'HELP' || keyword === 'TYPE') &&
      (afterKeyword === SPACE || afterKeyword === TAB);
    if (!isMeta)
      return { kind: 'comment', line: c.line, text: c.text.slice(hashAt + 1).trimStart() };
    c.pos += 4;
    c.skipBlanks();
    const metric = c.peek() === 0x22 ? c.readQuoted('metric name') : c.readIdentifier(true);
    if (metric === '') c.expected(`metric name after ${keyword}`);
    let text = '';
    if (!c.atEnd()) {
      const sep = c.peek();
      if (sep !== SPACE && sep !== TAB) c.fail(`expected text in ${keyword}`);
      // Prometheus drops exactly one separator before HELP text and keeps the rest.
      text = c.text.slice(c.pos + 1);
    }
    if (keyword === 'HELP') return { kind: 'help', line: c.line, metric, help: unescapeHelp(text) };
    const type = text.trim();
    if (!TEXT_TYPES.has(type)) c.fail(`invalid metric type ${JSON.stringify(type)}`);
    this.families.declare(metric, type as MetricType);
    return { kind: 'type', line: c.line, metric, type: type as MetricType };
  }

  private parseSample(c: Cursor): TextEntry {
    const pairs: [string, string][] = [];
    let name: string | undefined;
    if (c.peek() === OPEN_BRACE) {
      c.pos++;
      name = readLabelBlock(c, { blanks: true, metricName: true }, pairs);
    } else {
      name = c.readIdentifier(true);
      if (name === '') c.expected('a valid start token');
      c.skipBlanks();
      if (c.peek() === OPEN_BRACE) {
        c.pos++;
        if (readLabelBlock(c, { blanks: true, metricName: true }, pairs) !== undefined)
          c.fail(`metric name already set while parsing: ${JSON.stringify(c.text)}`);
      }
    }
    if (name === undefined || name === '')
      c.fail(`metric name not set while parsing: ${JSON.stringify(c.text)}`);
    const labels = sampleLabels(c.line, name, pairs);
    c.skipBlanks();
    const valueToken = c.readToken(true);
    if (valueToken === '' || valueToken.includes('{')) {
      c.pos -= valueToken.length;
      c.expected('value after metric');
    }
    const value = parseGoFloat(valueToken);
    if (typeof value === 'string') c.fail(`${value} while parsing: ${JSON.stringify(c.text)}`);
    c.skipBlanks();
    let timestamp: number | undefined;
    if (!c.atEnd()) {
      const token = c.readToken(true);
      if (!INTEGER.test(token)) {
        c.pos -= token.length;
        c.expected('timestamp or new record');
      }
      timestamp = Number(token) + 0; // "-0" is 0
      if (!Number.isSafeInteger(timestamp)) c.fail(`timestamp ${token} out of range`);
      c.skipBlanks();
      if (!c.atEnd()) c.expected('next entry after timestamp');
    }
    return series(c.line, labels, value, timestamp, undefined, this.families.typeOf(name));
  }
}
