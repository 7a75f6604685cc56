// Pins our OpenMetrics reading to Prometheus's own: Debian's promtool 2.42 (installed by the
// test setup) backfills a generated file into blocks and dumps them, and the dump must list
// exactly the samples our parser yields from the same file — the same series, the same
// millisecond timestamps (Prometheus truncates seconds * 1000) and the same values. Files
// promtool refuses must be refused by us too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Labels } from '../labels.js';
import { parseGoFloat } from './go_float.js';
import { parseOpenMetrics } from './openmetrics_parser.js';
import { formatOpenMetricsSample, formatOpenMetricsTimestamp } from './openmetrics_render.js';

const PROMTOOL = '/usr/bin/promtool';
const work = mkdtempSync(join(tmpdir(), 'strata-textparse-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function promtool(...args: string[]): { status: number | null; output: string } {
  const res = spawnSync(PROMTOOL, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (res.error !== undefined)
    throw new Error(`cannot run ${PROMTOOL} (the test setup installs it): ${res.error.message}`);
  return { status: res.status, output: res.stdout + res.stderr };
}

/** A small deterministic PRNG (mulberry32) so the generated file is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPECIAL_VALUES = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -0,
  5e-324,
  1.7976931348623157e308,
  -1e-300,
  0.1,
  1e21,
];
const BASE_MS = 1_700_000_000_000;

/** Many series of several shapes with irregular timestamps, plus hand-written seconds. */
function generateFile(): string {
  const rand = prng(42);
  let text = '# TYPE jobs counter\n# HELP jobs Jobs "done".\n';
  for (let s = 0; s < 60; s++) {
    const shape = s % 4;
    const name = ['jobs_total', 'temperature', 'const_gauge', 'random_float'][shape] as string;
    const labels = Labels.fromStrings(
      '__name__',
      name,
      'instance',
      `host-${s}`,
      'path',
      `/a\\b"c\n${s % 3}`,
    );
    let t = BASE_MS + Math.floor(rand() * 10_000);
    let counter = 0;
    const n = 20 + Math.floor(rand() * 60);
    for (let i = 0; i < n; i++) {
      t += 1 + Math.floor(rand() * 30_000); // irregular, includes ms the seconds form must nudge
      let v: number;
      if (shape === 0) v = counter += Math.floor(rand() * 10);
      else if (shape === 1)
        v =
          i % 7 === 0
            ? (SPECIAL_VALUES[i % SPECIAL_VALUES.length] as number)
            : (rand() - 0.5) * 100;
      else if (shape === 2) v = 42;
      else v = (rand() - 0.5) * 2 ** Math.floor(rand() * 200 - 100);
      text += formatOpenMetricsSample(labels, v, t);
    }
  }
  // Seconds exactly as a human or another tool might write them: truncation decides the ms.
  const seconds = [
    '1700000000.005',
    '1700000000.0051',
    '1700000001.9999999',
    '1.7000000025e9',
    '1700000003.0005',
    '1700000004.1234567',
  ];
  seconds.forEach((s, i) => (text += `handwritten{src="${i}"} 1 ${s}\n`));
  // An exemplar, metadata and an empty label set must not change the samples.
  text += `exemplified_total 3 ${formatOpenMetricsTimestamp(BASE_MS + 5)} # {trace_id="abc"} 1 ${formatOpenMetricsTimestamp(BASE_MS)}\n`;
  return text + '# EOF\n';
}

type Row = [labels: string, timestamp: number, value: number];

function ours(text: string): Row[] {
  const rows: Row[] = [];
  for (const e of parseOpenMetrics(text)) {
    if (e.kind !== 'series') continue;
    if (e.timestamp === undefined) throw new Error(`line ${e.line} has no timestamp`);
    rows.push([e.labels.toString(), e.timestamp, e.value]);
  }
  return sortRows(rows);
}

/** `promtool tsdb dump` prints `{labels} %g-value ms-timestamp` per sample. */
function theirs(dump: string): Row[] {
  const rows: Row[] = [];
  for (const line of dump.split('\n')) {
    if (line === '') continue;
    const tsAt = line.lastIndexOf(' ');
    const valueAt = line.lastIndexOf(' ', tsAt - 1);
    const value = parseGoFloat(line.slice(valueAt + 1, tsAt));
    if (typeof value === 'string') throw new Error(`bad dump value in ${line}: ${value}`);
    rows.push([line.slice(0, valueAt), Number(line.slice(tsAt + 1)), value]);
  }
  return sortRows(rows);
}

function sortRows(rows: Row[]): Row[] {
  return rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
}

describe('OpenMetrics parsing matches promtool 2.42', () => {
  it('backfilled and dumped samples equal what our parser yields', () => {
    const text = generateFile();
    const file = join(work, 'input.om');
    const blocks = join(work, 'blocks');
    writeFileSync(file, text);
    const created = promtool('tsdb', 'create-blocks-from', 'openmetrics', file, blocks);
    expect(created.status, created.output).toBe(0);
    mkdirSync(join(blocks, 'wal')); // promtool 2.42's dump opens the directory as a DB
    const dumped = promtool('tsdb', 'dump', blocks);
    expect(dumped.status, dumped.output).toBe(0);

    const expected = ours(text);
    const actual = theirs(dumped.output.replace(/^level=.*$/gm, ''));
    const key = (r: Row): string => `${r[0]} ${r[1]}`;
    const actualKeys = new Set(actual.map(key));
    const expectedKeys = new Set(expected.map(key));
    expect(expected.filter((r) => !actualKeys.has(key(r))).map(key), 'missing from dump').toEqual(
      [],
    );
    expect(actual.filter((r) => !expectedKeys.has(key(r))).map(key), 'only in dump').toEqual([]);
    expect(actual.length).toBe(expected.length);
    expect(expected.length).toBeGreaterThan(2000);
    // Strings keep NaN and -0 readable in a failure diff; Object.is decides equality.
    for (let i = 0; i < expected.length; i++) {
      const [l1, t1, v1] = expected[i] as Row;
      const [l2, t2, v2] = actual[i] as Row;
      expect([l2, t2, String(v2)]).toEqual([l1, t1, String(v1)]);
      expect(Object.is(v1, v2) || (v1 === 0 && v2 === 0), `${l1} @${t1}: ${v1} vs ${v2}`).toBe(
        true,
      );
    }
    const handwritten = expected
      .filter((r) => r[0].startsWith('{__name__="handwritten"'))
      .map((r) => r[1]);
    expect(handwritten).toEqual([
      1700000000005, 1700000000005, 1700000002000, 1700000002500, 1700000003000, 1700000004123,
    ]);
  });

  it('truncates seconds * 1000 toward zero exactly as promtool does', () => {
    // Near zero the float product falls short of the decimal: 1.005 * 1000 = 1004.9999999999999.
    const seconds = [
      '1.005',
      '1.015',
      '0.0019999',
      '2.0005',
      '3e-3',
      '4.1234567',
      '5.9999999999',
      '0.57',
    ];
    const text = seconds.map((s, i) => `small{src="${i}"} ${i} ${s}\n`).join('') + '# EOF\n';
    const file = join(work, 'small.om');
    const blocks = join(work, 'small-blocks');
    writeFileSync(file, text);
    const created = promtool('tsdb', 'create-blocks-from', 'openmetrics', file, blocks);
    expect(created.status, created.output).toBe(0);
    mkdirSync(join(blocks, 'wal'));
    const dumped = promtool('tsdb', 'dump', blocks);
    expect(dumped.status, dumped.output).toBe(0);
    const expected = ours(text);
    expect(theirs(dumped.output.replace(/^level=.*$/gm, ''))).toEqual(expected);
    expect(expected.map((r) => r[1])).toEqual([1004, 1014, 1, 2000, 3, 4123, 5999, 570]);
  });

  it.each([
    ['no # EOF', 'a 1 1\n'],
    ['data after # EOF', 'a 1 1\n# EOF\nb 1 1\n'],
    ['a blank line', 'a 1 1\n\n# EOF\n'],
    ['a free comment', '# hello\na 1 1\n# EOF\n'],
    ['two spaces', 'a  1 1\n# EOF\n'],
    ['a trailing space', 'a 1 1 \n# EOF\n'],
    ['a missing comma', 'a{b="c"d="e"} 1 1\n# EOF\n'],
    ['single quotes', "a{b='c'} 1 1\n# EOF\n"],
    ['a bad value', 'a one 1\n# EOF\n'],
    ['an overflowing value', 'a 1e400 1\n# EOF\n'],
    ['a hex value', 'a 0x1p3 1\n# EOF\n'],
    ['a NaN timestamp', 'a 1 NaN\n# EOF\n'],
    ['the untyped type', '# TYPE a untyped\na 1 1\n# EOF\n'],
    ['HELP without text', '# HELP a\na 1 1\n# EOF\n'],
    ['a unit that is not a suffix', '# UNIT a seconds\na 1 1\n# EOF\n'],
    ['an exemplar on a gauge', 'a 1 1 # {x="y"} 1\n# EOF\n'],
    ['an exemplar without value', 'a_total 1 1 # {x="y"}\n# EOF\n'],
  ])('both reject %s', (_what, text) => {
    const file = join(work, 'bad.om');
    writeFileSync(file, text);
    const dir = join(work, `bad-${Math.abs(hashCode(text))}`);
    const res = promtool('tsdb', 'create-blocks-from', 'openmetrics', file, dir);
    expect(res.status, `promtool accepted ${JSON.stringify(text)}: ${res.output}`).not.toBe(0);
    expect(() => [...parseOpenMetrics(text)]).toThrow(/^line \d+: /);
  });
});

function hashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
