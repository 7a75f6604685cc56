// Parses a PromQL test script into commands, line by line as Prometheus's test.go does:
// comments and blank lines end blocks, `load`/`eval` blocks run until the next blank line,
// and errors name the file and line. The eval expression itself is parsed later, per case,
// by the engine's parser (a parser bug must fail one case, not the whole file).
import { Labels, strconvParseFloat, strconvParseInt } from '../../model/index.js';
import { DurationParseError, parseDuration } from '../parser/index.js';
import { unquoteGo, UnquoteError } from './go_unquote.js';
import { parseSeriesDesc, SeriesDescError, type SeriesDesc } from './series_desc.js';
import {
  ScriptError,
  type EvalCmd,
  type ExpectType,
  type LoadCmd,
  type LoadSeries,
  type ScriptCommand,
} from './script_types.js';

const PAT_SPACE = /[\t ]+/;
const PAT_LOAD = /^load(?:_(with_nhcb))?\s+(.+?)$/;
const PAT_EVAL_INSTANT = /^eval(?:_(fail|warn|ordered|info))?\s+instant\s+(?:at\s+(.+?))?\s+(.+)$/;
const PAT_EVAL_RANGE =
  /^eval(?:_(fail|warn|info))?\s+range\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+?)\s+(.+)$/;
const PAT_EXPECT = /^expect\s+(ordered|fail|warn|no_warn|info|no_info)(?:\s+(regex|msg):(.+))?$/;
const PAT_EXPECT_RANGE = /^expect range vector\s+from\s+(.+)\s+to\s+(.+)\s+step\s+(.+)$/;
const RANGE_VECTOR_PREFIX = 'expect range vector';
const EXPECT_STRING_PREFIX = 'expect string';

/** Parses a whole script; throws ScriptError at the first malformed line. */
export function parseScript(file: string, text: string): ScriptCommand[] {
  const lines = text.split('\n').map((l) => {
    const t = l.trim();
    return t.startsWith('#') ? '' : t;
  });
  const cmds: ScriptCommand[] = [];
  const raise = (i: number, msg: string): never => {
    throw new ScriptError(file, i + 1, msg);
  };
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    if (l === '') continue;
    const c = (l.split(PAT_SPACE)[0] as string).toLowerCase();
    if (c === 'clear') {
      cmds.push({ kind: 'clear', line: i + 1 });
    } else if (c.startsWith('load')) {
      const [next, cmd] = parseLoad(lines, i, raise);
      i = next;
      cmds.push(cmd);
    } else if (c.startsWith('eval')) {
      const [next, cmd] = parseEval(lines, i, raise);
      i = next;
      cmds.push(cmd);
    } else {
      raise(i, `invalid command ${JSON.stringify(l)}`);
    }
  }
  return cmds;
}

type Raise = (i: number, msg: string) => never;

function seriesOrRaise(line: string, i: number, raise: Raise): SeriesDesc {
  try {
    return parseSeriesDesc(line);
  } catch (e) {
    if (e instanceof SeriesDescError) return raise(i, e.message);
    throw e;
  }
}

function durationOrRaise(s: string, i: number, raise: Raise, what: string): number {
  try {
    return parseDuration(s);
  } catch (e) {
    if (e instanceof DurationParseError)
      return raise(i, `invalid ${what} ${JSON.stringify(s)}: ${e.message}`);
    throw e;
  }
}

/** A start-timestamp line: the first word (metric and labels) ends in `@st`. */
function isStartTimestampLine(line: string): boolean {
  const m = /[ \t]/.exec(line);
  return m !== null && line.slice(0, m.index).endsWith('@st');
}

function parseLoad(lines: readonly string[], i: number, raise: Raise): [number, LoadCmd] {
  const parts = PAT_LOAD.exec(lines[i] as string);
  if (parts === null) return raise(i, 'invalid load command. (load[_with_nhcb] <step:duration>)');
  const intervalMs = durationOrRaise(parts[2] as string, i, raise, 'step definition');
  const cmd: LoadCmd = {
    kind: 'load',
    line: i + 1,
    intervalMs,
    withNhcb: parts[1] === 'with_nhcb',
    series: [],
    startTimestampSeries: [],
    defaultStartTimestamps: false,
  };
  const byKey = new Map<string, LoadSeries>();
  let pendingSt: { labels: Labels; line: number } | undefined;
  let defaultSt = false;
  while (i + 1 < lines.length) {
    i++;
    const def = lines[i] as string;
    if (def === '') {
      i--;
      break;
    }
    if (isStartTimestampLine(def)) {
      if (pendingSt !== undefined) raise(pendingSt.line, '@st line has no following sample line');
      const metricPart = def.slice(0, /[ \t]/.exec(def)?.index).slice(0, -'@st'.length);
      if (metricPart === '') {
        defaultSt = true;
        continue;
      }
      pendingSt = { labels: seriesOrRaise(`${metricPart} _`, i, raise).labels, line: i };
      continue;
    }
    const desc = seriesOrRaise(def, i, raise);
    if (pendingSt !== undefined) {
      if (!pendingSt.labels.equals(desc.labels)) {
        raise(pendingSt.line, '@st metric does not match the following sample line metric');
      }
      cmd.startTimestampSeries.push(desc.labels);
      pendingSt = undefined;
    }
    byKey.set(desc.labels.toString(), { line: i + 1, labels: desc.labels, values: desc.values });
  }
  if (pendingSt !== undefined) raise(pendingSt.line, '@st line has no following sample line');
  cmd.series.push(...byKey.values());
  return [i, { ...cmd, defaultStartTimestamps: defaultSt }];
}

function compileRegex(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern);
  } catch {
    return undefined;
  }
}

function parseEval(lines: readonly string[], i: number, raise: Raise): [number, EvalCmd] {
  const line = lines[i] as string;
  const instant = PAT_EVAL_INSTANT.exec(line);
  const range = PAT_EVAL_RANGE.exec(line);
  if (instant === null && range === null) {
    return raise(
      i,
      "invalid evaluation command. Must be either 'eval[_fail|_warn|_ordered] instant [at <offset:duration>] <query>' or 'eval[_fail|_warn] range from <from> to <to> step <step> <query>'",
    );
  }
  const expr = (instant !== null ? instant[3] : range?.[5]) as string;
  const mod = instant !== null ? instant[1] : range?.[1];
  const evalLine = i + 1;
  const formatErr = (at: number, msg: string): never =>
    raise(at, `error in eval ${expr} (line ${evalLine}): ${msg}`);

  const cmd: EvalCmd = {
    kind: 'eval',
    line: evalLine,
    expr,
    isRange: instant === null,
    start: 0,
    end: undefined,
    step: 0,
    evalTime: 0,
    fail: mod === 'fail',
    warn: mod === 'warn',
    info: mod === 'info',
    ordered: mod === 'ordered',
    expectedFailMessage: undefined,
    expectedFailRegexp: undefined,
    expects: { ordered: [], fail: [], warn: [], no_warn: [], info: [], no_info: [] },
    expectScalar: false,
    expected: new Map(),
    expectedString: undefined,
    excludeFromRangeQuery: false,
  };
  if (instant !== null) {
    const at = instant[2] ?? '';
    let t: number;
    try {
      t = parseDuration(at);
    } catch (e) {
      if (!(e instanceof DurationParseError)) throw e;
      return formatErr(i, `invalid timestamp definition ${JSON.stringify(at)}: ${e.message}`);
    }
    cmd.start = t;
    cmd.evalTime = t;
  } else {
    const [from, to, step] = parseRangeTimes(
      range?.[2] ?? '',
      range?.[3] ?? '',
      range?.[4] ?? '',
      (m) => formatErr(i, m),
    );
    cmd.start = from;
    cmd.end = to;
    cmd.step = step;
  }

  let expectRangeVector = false;
  for (let j = 1; i + 1 < lines.length; j++) {
    i++;
    const def = lines[i] as string;
    if (def === '') {
      i--;
      break;
    }
    if (cmd.fail && def.startsWith('expected_fail_message')) {
      cmd.expectedFailMessage = def.slice('expected_fail_message'.length).trim();
      break;
    }
    if (cmd.fail && def.startsWith('expected_fail_regexp')) {
      const pattern = def.slice('expected_fail_regexp'.length).trim();
      const re = compileRegex(pattern);
      if (re === undefined) formatErr(i, `invalid regexp '${pattern}' for expected_fail_regexp`);
      cmd.expectedFailRegexp = re;
      break;
    }
    if (def.startsWith(RANGE_VECTOR_PREFIX)) {
      const parts = PAT_EXPECT_RANGE.exec(def);
      if (parts === null)
        return formatErr(i, `invalid range vector definition ${JSON.stringify(def)}`);
      const [from, to, step] = parseRangeTimes(
        parts[1] as string,
        parts[2] as string,
        parts[3] as string,
        (m) => formatErr(i, m),
      );
      expectRangeVector = true;
      cmd.start = from;
      cmd.end = to;
      cmd.step = step;
      cmd.evalTime = to;
      cmd.excludeFromRangeQuery = true;
      continue;
    }
    if (def.startsWith(EXPECT_STRING_PREFIX)) {
      cmd.expectedString = parseExpectString(def, (m) => formatErr(i, m));
      cmd.excludeFromRangeQuery = true;
      continue;
    }
    // A metric named `expect` can still be written as `expect{}`.
    if (def.split(' ')[0] === 'expect') {
      const [type, matcher] = parseExpect(def, (m) => formatErr(i, m));
      cmd.expects[type].push(matcher);
      j--;
      const problem = validateExpects(cmd);
      if (problem !== undefined) formatErr(i, problem);
      continue;
    }
    const scalar = parseGoNumber(def);
    if (scalar !== undefined) {
      cmd.expectScalar = true;
      cmd.expected.clear();
      cmd.expected.set('', {
        pos: 0,
        labels: Labels.EMPTY,
        values: [{ kind: 'float', value: scalar }],
      });
      break;
    }
    const desc = seriesOrRaise(def, i, raise);
    if (desc.values.length > 1 && instant !== null && !expectRangeVector) {
      formatErr(
        i,
        "expecting multiple values in instant evaluation not allowed. consider using 'expect range vector' directive to enable a range vector result for an instant query",
      );
    }
    if (cmd.expectScalar) {
      cmd.expectScalar = false;
      cmd.expected.clear();
    }
    cmd.expected.set(desc.labels.toString(), { pos: j, labels: desc.labels, values: desc.values });
  }
  return [i, cmd];
}

function parseRangeTimes(
  from: string,
  to: string,
  step: string,
  fail: (msg: string) => never,
): [number, number, number] {
  const d = (s: string, what: string): number => {
    try {
      return parseDuration(s);
    } catch (e) {
      if (!(e instanceof DurationParseError)) throw e;
      return fail(`invalid ${what} definition ${JSON.stringify(s)}: ${e.message}`);
    }
  };
  const start = d(from, 'start timestamp');
  const end = d(to, 'end timestamp');
  if (end < start) {
    fail(`invalid test definition, end timestamp (${to}) is before start timestamp (${from})`);
  }
  return [start, end, d(step, 'step')];
}

function parseExpect(
  def: string,
  fail: (msg: string) => never,
): [ExpectType, { message?: string; regex?: RegExp }] {
  const parts = PAT_EXPECT.exec(def.trim());
  if (parts === null) {
    return fail(
      'invalid expect statement, must match `expect <type> <match_type>: <string>` format',
    );
  }
  const type = parts[1] as ExpectType;
  if (parts[2] === 'msg') return [type, { message: (parts[3] as string).trim() }];
  if (parts[2] === 'regex') {
    const pattern = (parts[3] as string).trim();
    const regex = compileRegex(pattern);
    if (regex === undefined) return fail(`invalid regex ${pattern} for ${type}`);
    return [type, { regex }];
  }
  return [type, { regex: /^.*$/ }];
}

function validateExpects(cmd: EvalCmd): string | undefined {
  const e = cmd.expects;
  if (e.info.length > 0 && e.no_info.length > 0) {
    return 'invalid expect lines, info and no_info cannot be used together';
  }
  if (e.warn.length > 0 && e.no_warn.length > 0) {
    return 'invalid expect lines, warn and no_warn cannot be used together';
  }
  if (e.fail.length > 1) return 'invalid expect lines, multiple expect fail lines are not allowed';
  return undefined;
}

function parseExpectString(line: string, fail: (msg: string) => never): string {
  const str = line === EXPECT_STRING_PREFIX ? '' : line.slice(EXPECT_STRING_PREFIX.length + 1);
  if (str === '' || !line.startsWith(`${EXPECT_STRING_PREFIX} `)) {
    return fail('expected string literal not valid - a quoted string literal is required');
  }
  try {
    return unquoteGo(str);
  } catch (e) {
    if (!(e instanceof UnquoteError)) throw e;
    return fail('expected string literal not valid - check that the string is correctly quoted');
  }
}

/** test.go's parseNumber: strconv.ParseInt(s, 0, 64), falling back to strconv.ParseFloat(s, 64). */
export function parseGoNumber(s: string): number | undefined {
  const int = strconvParseInt(s);
  if ('value' in int) return int.value;
  const float = strconvParseFloat(s);
  return 'value' in float ? float.value : undefined;
}
