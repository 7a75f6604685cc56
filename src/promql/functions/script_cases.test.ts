// Runs the cases of Prometheus 3.14's own test scripts (functions.test, histograms.test,
// trig_functions.test) whose expression is a single function call over plain selectors,
// scalar literals and string literals, by calling the function directly the way the engine
// would (lookback 5m for instant vectors, (t - range, t] windows for range vectors), and
// compares values (with promqltest's tolerance), order where the script demands it, and
// annotations. Cases involving native histograms, nested expressions or engine-level
// failures are left to the conformance runner.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import type { Expr } from '../parser/ast.js';
import type { Series, Vector } from '../value.js';
import { FUNCTIONS, isRangeFunction, POSITION_FORMATTER_KEY } from './index.js';
import { almostEqual } from './quantile.js';
import { expandValues, makeEnh, num, str, window } from './testing.js';

const TESTDATA = new URL('../../../../shared/conformance/promql-testdata/', import.meta.url);
const LOOKBACK = 5 * 60_000;
const EPSILON = 0.000001; // promqltest's defaultEpsilon

function parseDuration(s: string): number {
  const units: Record<string, number> = {
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
    d: 86_400_000,
    w: 604_800_000,
    y: 31_536_000_000,
  };
  let total = 0;
  const re = /(\d+)(ms|s|m|h|d|w|y)/gy;
  let m: RegExpExecArray | null;
  let consumed = 0;
  while ((m = re.exec(s)) !== null) {
    total += Number(m[1]) * units[m[2]!]!;
    consumed = re.lastIndex;
  }
  if (consumed !== s.length) {
    if (/^\d+$/.test(s)) return Number(s) * 1000;
    throw new Error(`bad duration ${s}`);
  }
  return total;
}

function parseLabels(text: string): Labels {
  const m = /^([A-Za-z_:][\w:]*)?\s*(?:\{(.*)\})?$/s.exec(text.trim());
  if (m === null) throw new Error(`bad series ${text}`);
  const pairs: [string, string][] = [];
  if (m[1] !== undefined) pairs.push(['__name__', m[1]]);
  const re = /\s*([A-Za-z_][\w]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/gy;
  let p: RegExpExecArray | null;
  while ((p = re.exec(m[2] ?? '')) !== null)
    pairs.push([p[1]!, JSON.parse(`"${p[2]!}"`) as string]);
  return Labels.fromPairs(pairs);
}

interface Case {
  readonly file: string;
  readonly line: number;
  readonly expr: string;
  readonly times: number[];
  readonly series: readonly Series[];
  readonly expected: { labels: string; values: (number | undefined)[] }[];
  readonly ordered: boolean;
  readonly expects: string[];
  readonly skip: boolean;
}

/** `name{labels} values` → [series text, values text]; braces may contain spaces. */
function splitSeriesLine(text: string): [string, string] {
  const ws = text.search(/\s/);
  const brace = text.indexOf('{');
  if (brace < 0 || (ws >= 0 && ws < brace)) return [text.slice(0, ws), text.slice(ws)];
  let inString = false;
  for (let k = brace; k < text.length; k++) {
    const c = text[k]!;
    if (inString) {
      if (c === '\\') k++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '}') return [text.slice(0, k + 1), text.slice(k + 1)];
  }
  return [text, ''];
}

/** Splits a script into eval cases with the series loaded at that point. */
function readCases(file: string): Case[] {
  const lines = readFileSync(new URL(file, TESTDATA), 'utf8').split('\n');
  let series: Series[] = [];
  // Names that (also) hold native histograms: cases selecting them are not float-only.
  const histogramNames = new Set<string>();
  // Names with series made only of native histograms (dropped from the float data).
  const histogramOnlyNames = new Set<string>();
  const cases: Case[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!.trim();
    if (line === 'clear') {
      series = [];
      histogramNames.clear();
      histogramOnlyNames.clear();
      i++;
      continue;
    }
    const load = /^load(_with_nhcb)? (\S+)$/.exec(line);
    if (load !== null) {
      const nhcb = load[1] !== undefined;
      const interval = parseDuration(load[2]!);
      i++;
      while (i < lines.length && /^\s+\S/.test(lines[i]!) && !lines[i]!.trim().startsWith('#')) {
        const text = lines[i]!.trim();
        i++;
        const [lt, vt] = splitSeriesLine(text);
        const metric = parseLabels(lt);
        const name = metric.get('__name__');
        if (nhcb) histogramNames.add(name.replace(/_(bucket|sum|count)$/, ''));
        if (vt.includes('{{')) {
          const floatsLeft = vt.replace(/\+?\{\{.*?\}\}(x\d+)?/g, ' ').trim();
          if (floatsLeft === '') histogramOnlyNames.add(name);
          else histogramNames.add(name);
          continue;
        }
        const tokens = vt.trim().replace(/\bstale\b/g, '_');
        const floats = expandValues(tokens).flatMap((v, k) =>
          v === undefined ? [] : [{ t: k * interval, f: v }],
        );
        series = series.filter((s) => !s.metric.equals(metric));
        series.push({ metric, floats });
      }
      continue;
    }
    const ev =
      /^eval(_ordered|_fail|_warn|_info)? (instant at (\S+)|range from (\S+) to (\S+) step (\S+)) (.*)$/.exec(
        line,
      );
    if (ev !== null) {
      const start = i + 1;
      i++;
      const times: number[] = [];
      if (ev[3] !== undefined) times.push(parseDuration(ev[3]));
      else {
        const from = parseDuration(ev[4]!);
        const to = parseDuration(ev[5]!);
        const step = parseDuration(ev[6]!);
        for (let t = from; t <= to; t += step) times.push(t);
      }
      const expected: { labels: string; values: (number | undefined)[] }[] = [];
      const expects: string[] = [];
      let ordered = ev[1] === '_ordered';
      let skip = ev[1] === '_fail' || ev[1] === '_warn' || ev[1] === '_info';
      while (
        i < lines.length &&
        lines[i]!.trim() !== '' &&
        !/^(eval|load|clear)/.test(lines[i]!.trim())
      ) {
        const text = lines[i]!.trim();
        i++;
        if (text.startsWith('#')) continue;
        if (text.startsWith('expect ')) {
          if (text === 'expect ordered') ordered = true;
          else if (
            text.startsWith('expect fail') ||
            text.startsWith('expect string') ||
            text.startsWith('expect range')
          )
            skip = true;
          else expects.push(text.slice('expect '.length));
          continue;
        }
        if (text.includes('{{')) {
          skip = true;
          continue;
        }
        const [labelText, valueText] = splitSeriesLine(text);
        if (!/^[A-Za-z_:{]/.test(labelText) || /^[-+]?(NaN|Inf|\d)/.test(text)) {
          skip = true; // a scalar result
          continue;
        }
        const vals = expandValues(valueText);
        expected.push({ labels: parseLabels(labelText).toString(), values: vals });
      }
      cases.push({
        file,
        line: start,
        expr: ev[7]!,
        times,
        series: [...series],
        expected,
        ordered,
        expects,
        skip: skip || selectsHistograms(ev[7]!),
      });
      continue;
    }
    i++;
  }
  return cases;
  function selectsHistograms(expr: string): boolean {
    const names = expr.match(/[A-Za-z_:][\w:]*(?=\s*[{[),]|\s*$)/g) ?? [];
    if (names.some((n) => histogramNames.has(n))) return true;
    // Instant-vector functions skip native histograms; range functions and the histogram
    // functions may not.
    const readsHistograms =
      /^\s*\w*(_over_time|rate|increase|delta|deriv|changes|resets|predict_linear|smoothing|absent|scalar|histogram\w*)\(/.test(
        expr,
      );
    return readsHistograms && names.some((n) => histogramOnlyNames.has(n));
  }
}

type Arg =
  | { kind: 'scalar'; v: number }
  | { kind: 'string'; v: string }
  | { kind: 'selector'; name: string; matchers: Matcher[]; range?: number; offset: number };

/** Parses `fn(arg, ...)` with literal and selector arguments; undefined for anything else. */
function parseCall(expr: string): { fn: string; args: Arg[] } | undefined {
  const m = /^(\w+)\((.*)\)$/.exec(expr.trim());
  if (m === null) return undefined;
  const args: Arg[] = [];
  const body = m[2]!.trim();
  if (body === '') return { fn: m[1]!, args };
  for (const raw of splitArgs(body)) {
    const a = raw.trim();
    if (/^[-+]?(\d+(\.\d*)?(e[-+]?\d+)?|\.\d+|NaN|Inf)$/i.test(a))
      args.push({ kind: 'scalar', v: Number(a.replace(/inf/i, 'Infinity')) });
    else if (/^\d+[smhdwy]/.test(a)) args.push({ kind: 'scalar', v: parseDuration(a) / 1000 });
    else if (/^"(?:[^"\\]|\\.)*"$/.test(a))
      args.push({ kind: 'string', v: JSON.parse(a) as string });
    else {
      const s = /^([A-Za-z_:][\w:]*)?(\{[^}]*\})?(?:\[(\w+)\])?(?:\s+offset\s+(\w+))?$/.exec(a);
      if (s === null || (s[1] === undefined && s[2] === undefined)) return undefined;
      const matchers: Matcher[] = [];
      if (s[1] !== undefined) matchers.push(Matcher.equal('__name__', s[1]));
      const re = /\s*([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?/gy;
      let p: RegExpExecArray | null;
      const inner = s[2]?.slice(1, -1) ?? '';
      while ((p = re.exec(inner)) !== null)
        matchers.push(new Matcher(p[2] as '=', p[1]!, JSON.parse(`"${p[3]!}"`) as string));
      if (re.lastIndex !== inner.length && inner.trim() !== '') return undefined;
      args.push({
        kind: 'selector',
        name: s[1] ?? '',
        matchers,
        ...(s[3] !== undefined ? { range: parseDuration(s[3]) } : {}),
        offset: s[4] !== undefined ? parseDuration(s[4]) : 0,
      });
    }
  }
  return { fn: m[1]!, args };
}

function splitArgs(body: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let cur = '';
  for (let k = 0; k < body.length; k++) {
    const c = body[k]!;
    if (inString) {
      cur += c;
      if (c === '\\') cur += body[++k] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === '(' || c === '{' || c === '[') depth++;
    if (c === ')' || c === '}' || c === ']') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

function selects(s: Series, matchers: readonly Matcher[]): boolean {
  return matchers.every((m) => m.matches(s.metric.get(m.name)));
}

function toExpr(a: Arg, pos: number): Expr {
  if (a.kind === 'scalar') return num(a.v, pos);
  if (a.kind === 'string') return str(a.v, pos);
  const vs = {
    type: 'VectorSelector' as const,
    name: a.name,
    labelMatchers: a.matchers,
    offset: a.offset,
    originalOffset: a.offset,
    posRange: { start: pos, end: pos + 1 },
  };
  return a.range === undefined
    ? vs
    : { type: 'MatrixSelector', vectorSelector: vs, range: a.range, endPos: pos + 2 };
}

interface Outcome {
  readonly vector: Vector;
  readonly warnings: string[];
  readonly infos: string[];
}

function evaluate(c: Case, fnName: string, args: Arg[], t: number): Outcome {
  const fn = FUNCTIONS.get(fnName)!;
  const exprs = args.map((a, k) => toExpr(a, k * 10));
  const cache = new Map<string, unknown>([[POSITION_FORMATTER_KEY, () => '']]);
  const enh = makeEnh(t, cache);
  const vectorVals: Vector[] = args.map((a) => {
    if (a.kind === 'scalar') return [{ metric: Labels.EMPTY, t, f: a.v }];
    if (a.kind === 'string' || a.range !== undefined) return [];
    const out: Vector = [];
    for (const s of c.series) {
      if (!selects(s, a.matchers)) continue;
      const end = t - a.offset;
      const pts = s.floats.filter((p) => p.t > end - LOOKBACK && p.t <= end);
      const last = pts[pts.length - 1];
      if (last !== undefined) out.push({ metric: s.metric, t: last.t, f: last.f });
    }
    return out;
  });
  const matrixArg = args.findIndex((a) => a.kind === 'selector' && a.range !== undefined);
  let vector: Vector = [];
  if (matrixArg >= 0) {
    const a = args[matrixArg] as Extract<Arg, { kind: 'selector' }>;
    for (const s of c.series) {
      if (!selects(s, a.matchers)) continue;
      const w = window(s, t, a.range!, a.offset);
      if (w.floats.length === 0) continue;
      enh.out = [];
      vector.push(...fn(vectorVals, [w], exprs, enh));
    }
  } else {
    vector = [...fn(fnName === 'time' || args.length > 0 ? vectorVals : [], [], exprs, enh)];
  }
  return { vector, warnings: enh.annotations.warnings(), infos: enh.annotations.infos() };
}

function check(c: Case): void {
  const call = parseCall(c.expr)!;
  const got = new Map<string, (number | undefined)[]>();
  const order: string[][] = [];
  const warnings = new Set<string>();
  const infos = new Set<string>();
  c.times.forEach((t, step) => {
    const out = evaluate(c, call.fn, call.args, t);
    out.warnings.forEach((w) => warnings.add(w));
    out.infos.forEach((w) => infos.add(w));
    order.push(
      out.vector.map((s) => (s.dropName === true ? s.metric.withoutName() : s.metric).toString()),
    );
    for (const s of out.vector) {
      const key = (s.dropName === true ? s.metric.withoutName() : s.metric).toString();
      const row = got.get(key) ?? new Array<number | undefined>(c.times.length).fill(undefined);
      row[step] = s.f;
      got.set(key, row);
    }
  });
  const where = `${c.file}:${c.line} ${c.expr}`;
  expect([...got.keys()].sort(), where).toEqual(c.expected.map((e) => e.labels).sort());
  for (const e of c.expected) {
    const row = got.get(e.labels)!;
    e.values.forEach((v, k) => {
      const a = row[k];
      if (v === undefined || a === undefined) expect(a, where).toBe(v);
      else
        expect(almostEqual(v, a, EPSILON), `${where}: ${e.labels} want ${v} got ${a}`).toBe(true);
    });
  }
  if (c.ordered && c.times.length === 1)
    expect(order[0], where).toEqual(c.expected.map((e) => e.labels));
  for (const x of c.expects) {
    const [kind, rest] = [
      x.split(' ')[0]!,
      x.includes(' msg: ') ? x.slice(x.indexOf(' msg: ') + 6) : undefined,
    ];
    if (kind === 'warn') {
      expect(warnings.size, `${where}: ${x}`).toBeGreaterThan(0);
      if (rest !== undefined) expect([...warnings], where).toContain(rest);
    }
    if (kind === 'no_warn') expect([...warnings], where).toEqual([]);
    if (kind === 'info') {
      expect(infos.size, `${where}: ${x}`).toBeGreaterThan(0);
      if (rest !== undefined) expect([...infos], where).toContain(rest);
    }
    if (kind === 'no_info') expect([...infos], where).toEqual([]);
  }
}

const ENGINE_LEVEL = new Set(['absent_over_time', 'label_replace', 'label_join']);

describe.each(['functions.test', 'histograms.test', 'trig_functions.test'])('%s', (file) => {
  const cases = readCases(file).filter((c) => {
    if (c.skip) return false;
    const call = parseCall(c.expr);
    if (call === undefined || !FUNCTIONS.has(call.fn)) return false;
    // absent_over_time's output series is built by the engine; label functions' duplicate
    // checks too. Range arguments only for range functions (timestamp(x[5m]) is invalid).
    if (ENGINE_LEVEL.has(call.fn)) return false;
    const hasRange = call.args.some((a) => a.kind === 'selector' && a.range !== undefined);
    return hasRange === isRangeFunction(call.fn);
  });

  it('has cases to run', () => {
    expect(cases.length).toBeGreaterThan(file === 'functions.test' ? 140 : 10);
  });

  it.each(cases.map((c) => [`${c.line}: ${c.expr}`, c] as const))('%s', (_name, c) => {
    check(c);
  });
});
