// The series descriptions of the test scripts (Prometheus parses them with its PromQL lexer
// in a special mode, ParseSeriesDesc): `metric{label="value", "utf8.name"="v"} 1 2+3x4 _ _x2
// stale Inf {{histogram}}`, used both for `load` lines and for expected results.
import { DuplicateLabelError, Labels } from '../../model/index.js';
import { scanQuoted, unquoteGo, UnquoteError } from './go_unquote.js';

/** One position of a sequence: a float, a gap (`_`), or a native histogram (not modelled). */
export type SequenceValue =
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'omitted' }
  | { readonly kind: 'histogram' };

export interface SeriesDesc {
  readonly labels: Labels;
  readonly values: SequenceValue[];
}

export class SeriesDescError extends Error {}

/** Prometheus's stale marker (value.StaleNaN), a NaN with a payload. */
export const STALE_NAN: number = (() => {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, 0x7ff00000);
  view.setUint32(4, 0x00000002);
  return view.getFloat64(0);
})();

const OMITTED: SequenceValue = { kind: 'omitted' };
const HISTOGRAM: SequenceValue = { kind: 'histogram' };

const IDENT_START = /[a-zA-Z_:]/;
const IDENT_PART = /[a-zA-Z0-9_:]/;
const LABEL_START = /[a-zA-Z_]/;
const LABEL_PART = /[a-zA-Z0-9_]/;

/** Parses one series description line. */
export function parseSeriesDesc(line: string): SeriesDesc {
  const p = new MetricScanner(line);
  const labels = p.metric();
  return { labels, values: parseValues(line.slice(p.pos), p.pos) };
}

class MetricScanner {
  pos = 0;
  constructor(private readonly s: string) {}

  private fail(msg: string): never {
    throw new SeriesDescError(`1:${this.pos + 1}: parse error: ${msg}`);
  }

  private skipSpace(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos] as string)) this.pos++;
  }

  private ident(start: RegExp, part: RegExp): string {
    const from = this.pos;
    if (!start.test(this.s[this.pos] ?? '')) return '';
    this.pos++;
    while (part.test(this.s[this.pos] ?? '')) this.pos++;
    return this.s.slice(from, this.pos);
  }

  private quoted(): string {
    const from = this.pos;
    try {
      this.pos = scanQuoted(this.s, from);
      return unquoteGo(this.s.slice(from, this.pos));
    } catch (e) {
      if (e instanceof UnquoteError) this.fail(e.message);
      throw e;
    }
  }

  metric(): Labels {
    this.skipSpace();
    const pairs: [string, string][] = [];
    const name = this.ident(IDENT_START, IDENT_PART);
    if (name !== '') pairs.push(['__name__', name]);
    if (this.s[this.pos] === '{') {
      this.pos++;
      this.labelSet(pairs, name !== '');
    } else if (name === '') {
      this.fail(
        `unexpected character ${JSON.stringify(this.s[this.pos] ?? 'end of input')}, expected a metric name or "{"`,
      );
    }
    try {
      return Labels.fromPairs(pairs);
    } catch (e) {
      if (e instanceof DuplicateLabelError) this.fail(`duplicate label name "${e.labelName}"`);
      throw e;
    }
  }

  private labelSet(pairs: [string, string][], hasName: boolean): void {
    let named = hasName;
    for (;;) {
      this.skipSpace();
      const c = this.s[this.pos];
      if (c === '}') {
        this.pos++;
        return;
      }
      let labelName: string;
      if (c === '"' || c === "'" || c === '`') {
        labelName = this.quoted();
        this.skipSpace();
        if (this.s[this.pos] !== '=') {
          // A lone quoted string is the metric name ({"my.metric", ...}).
          if (named) this.fail(`metric name must not be set twice: "${labelName}"`);
          named = true;
          pairs.push(['__name__', labelName]);
          this.endOfItem();
          continue;
        }
      } else {
        labelName = this.ident(LABEL_START, LABEL_PART);
        if (labelName === '')
          this.fail(`unexpected ${JSON.stringify(c ?? 'end of input')} in label set`);
        this.skipSpace();
      }
      if (this.s[this.pos] !== '=' || this.s[this.pos + 1] === '~') {
        this.fail(
          `unexpected ${JSON.stringify(this.s[this.pos] ?? 'end of input')} in label set, expected "="`,
        );
      }
      this.pos++;
      this.skipSpace();
      const q = this.s[this.pos];
      if (q !== '"' && q !== "'" && q !== '`')
        this.fail(
          `unexpected ${JSON.stringify(q ?? 'end of input')} in label set, expected a string`,
        );
      pairs.push([labelName, this.quoted()]);
      this.endOfItem();
    }
  }

  private endOfItem(): void {
    this.skipSpace();
    const c = this.s[this.pos];
    if (c === ',') this.pos++;
    else if (c !== '}')
      this.fail(
        `unexpected ${JSON.stringify(c ?? 'end of input')} in label set, expected "," or "}"`,
      );
  }
}

type Token =
  | { readonly t: 'space' | '+' | '-' | 'x' | '_' | 'histogram'; readonly pos: number }
  | { readonly t: 'number'; readonly text: string; readonly pos: number }
  | { readonly t: 'ident'; readonly text: string; readonly pos: number };

function lexValues(s: string, offset: number): Token[] {
  const out: Token[] = [];
  let i = 0;
  const fail = (msg: string): never => {
    throw new SeriesDescError(`1:${offset + i + 1}: parse error: ${msg}`);
  };
  while (i < s.length) {
    const c = s[i] as string;
    const pos = offset + i;
    if (/\s/.test(c)) {
      while (i < s.length && /\s/.test(s[i] as string)) i++;
      out.push({ t: 'space', pos });
    } else if (c === '+' || c === '-' || c === 'x' || c === '_') {
      out.push({ t: c, pos });
      i++;
    } else if (c === '{') {
      const end = s.indexOf('}}', i);
      if (!s.startsWith('{{', i) || end < 0) fail('unterminated histogram, expected "{{…}}"');
      out.push({ t: 'histogram', pos });
      i = end + 2;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      const m = /^[0-9]*(\.[0-9]*)?([eE][+-]?[0-9]+)?/.exec(s.slice(i)) as RegExpExecArray;
      const next = s[i + m[0].length];
      if (next !== undefined && next !== 'x' && /[a-zA-Z0-9_]/.test(next)) {
        fail(`bad number or duration syntax: "${s.slice(i, i + m[0].length + 1)}"`);
      }
      out.push({ t: 'number', text: m[0], pos });
      i += m[0].length;
    } else if (/[a-zA-Z]/.test(c)) {
      const m = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(s.slice(i)) as RegExpExecArray;
      out.push({ t: 'ident', text: m[0], pos });
      i += m[0].length;
    } else {
      fail(`unexpected character in series sequence: ${JSON.stringify(c)}`);
    }
  }
  return out;
}

function numberValue(tok: Token): number | undefined {
  if (tok.t === 'number') return Number(tok.text);
  if (tok.t === 'ident') {
    const w = tok.text.toLowerCase();
    if (w === 'inf') return Infinity;
    if (w === 'nan') return NaN;
  }
  return undefined;
}

function parseValues(s: string, offset: number): SequenceValue[] {
  const toks = lexValues(s, offset);
  const values: SequenceValue[] = [];
  let i = 0;
  const fail = (msg: string, tok?: Token): never => {
    const pos = tok?.pos ?? offset + s.length;
    throw new SeriesDescError(`1:${pos + 1}: parse error: ${msg}`);
  };
  const peek = (): Token | undefined => toks[i];
  const repetition = (): number => {
    const tok = toks[i++];
    if (tok === undefined || tok.t !== 'number' || !/^[0-9]+$/.test(tok.text)) {
      return fail('invalid repetition in series values', tok);
    }
    return Number(tok.text);
  };
  // A signed or unsigned number, or `stale`; undefined if the next token starts none.
  const seriesValue = (): number | undefined => {
    const tok = peek();
    if (tok === undefined) return undefined;
    if (tok.t === '+' || tok.t === '-') {
      const n = toks[i + 1];
      const v = n === undefined ? undefined : numberValue(n);
      if (v === undefined) return fail(`unexpected ${describe(n)} in series values`, n);
      i += 2;
      return tok.t === '-' ? -v : v;
    }
    if (tok.t === 'ident' && tok.text === 'stale') {
      i++;
      return STALE_NAN;
    }
    const v = numberValue(tok);
    if (v !== undefined) i++;
    return v;
  };

  while (i < toks.length) {
    const tok = toks[i] as Token;
    if (tok.t === 'space') {
      i++;
      continue;
    }
    if (tok.t === '_') {
      i++;
      if (peek()?.t === 'x') {
        i++;
        const n = repetition();
        for (let k = 0; k < n; k++) values.push(OMITTED);
      } else values.push(OMITTED);
    } else if (tok.t === 'histogram') {
      i++;
      let n = 0;
      const after = peek();
      if (after?.t === 'x') {
        i++;
        n = repetition();
      } else if ((after?.t === '+' || after?.t === '-') && toks[i + 1]?.t === 'histogram') {
        i += 2;
        if (peek()?.t !== 'x') fail('expected "x<count>" after histogram increment', peek());
        i++;
        n = repetition();
      }
      for (let k = 0; k <= n; k++) values.push(HISTOGRAM);
    } else {
      const start = seriesValue();
      if (start === undefined) {
        return fail(`unexpected ${describe(tok)} in series values`, tok);
      }
      const after = peek();
      if (after?.t === 'x') {
        i++;
        const n = repetition();
        for (let k = 0; k <= n; k++) values.push({ kind: 'float', value: start });
      } else if (after?.t === '+' || after?.t === '-') {
        const delta = seriesValue() as number;
        if (peek()?.t !== 'x') fail('expected "x<count>" after the increment', peek());
        i++;
        const n = repetition();
        // Go adds the increment repeatedly; replaying that keeps float rounding identical.
        let v = start;
        for (let k = 0; k <= n; k++) {
          values.push({ kind: 'float', value: v });
          v += delta;
        }
      } else {
        values.push({ kind: 'float', value: start });
      }
    }
    const sep = peek();
    if (sep !== undefined && sep.t !== 'space')
      fail(`unexpected ${describe(sep)} in series values`, sep);
  }
  return values;
}

function describe(tok: Token | undefined): string {
  if (tok === undefined) return 'end of input';
  if (tok.t === 'number' || tok.t === 'ident') return `"${tok.text}"`;
  if (tok.t === 'space') return 'space';
  return `"${tok.t === 'histogram' ? '{{' : tok.t}"`;
}
