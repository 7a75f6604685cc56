/**
 * `strata tools tsdb create-blocks-from openmetrics` and `strata tools tsdb dump` against
 * Debian's promtool 2.42, both directions, on generated data spanning several 2h block
 * ranges: many series, irregular intervals, NaN, ±Inf, -0, huge and tiny values.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels, type Matcher } from '../src/model/index.js';
import { formatGoG, formatLabelsPromtool, parseSeriesSelector } from '../src/tsdb/index.js';
import { ensureBuilt, STRATA_BIN } from './strata-process.js';

const PROMTOOL = '/usr/bin/promtool';
const START_MS = 1_700_000_000_000;
const SPAN_MS = 7 * 3_600_000; // four aligned 2h ranges

interface Series {
  labels: Labels;
  ts: number[];
  vs: number[];
}

/** Deterministic generator so a failure replays. */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function generate(seed: number, offsetMs: number): Series[] {
  const rand = lcg(seed);
  const out: Series[] = [];
  for (const [m, metric] of ['requests_total', 'temperature', 'queue_depth'].entries()) {
    for (let s = 0; s < 12; s++) {
      const interval = [15_000, 30_000, 60_000, 7_000][s % 4] as number;
      const ts: number[] = [];
      const vs: number[] = [];
      let counter = 0;
      // Irregular starts and ends: some series live in only part of the span.
      let t = START_MS + offsetMs + Math.floor(rand() * SPAN_MS * 0.3);
      const end = START_MS + SPAN_MS - Math.floor(rand() * SPAN_MS * 0.3);
      while (t < end) {
        let v: number;
        if (m === 0) {
          counter += Math.floor(rand() * 1000);
          v = counter;
        } else {
          const r = rand();
          v =
            r < 0.03
              ? NaN
              : r < 0.04
                ? Infinity
                : r < 0.05
                  ? -Infinity
                  : r < 0.1
                    ? 1e-300 * rand()
                    : r < 0.15
                      ? 1e300 * rand()
                      : r < 0.16
                        ? 5e-324
                        : r < 0.17
                          ? -0
                          : r < 0.25
                            ? Math.round(rand() * 1e8)
                            : r < 0.3
                              ? rand() * 1e-5
                              : (rand() - 0.5) * 1000;
        }
        ts.push(t);
        vs.push(v);
        t += interval + (Math.floor(rand() * 9) - 4) * 125 + (rand() < 0.03 ? interval * 20 : 0);
      }
      out.push({
        labels: Labels.fromObject({
          __name__: metric,
          instance: `host-${s}:9100`,
          job: s % 2 === 0 ? 'node' : 'api',
          ...(s % 3 === 0 ? { path: `/v1/é"q"/${s}` } : {}),
        }),
        ts,
        vs,
      });
    }
  }
  return out;
}

function omValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return Object.is(v, -0) ? '-0' : String(v);
}

function toOpenMetrics(series: readonly Series[]): string {
  const lines: string[] = [];
  const byMetric = new Map<string, Series[]>();
  for (const s of series) {
    const name = s.labels.get('__name__');
    byMetric.set(name, [...(byMetric.get(name) ?? []), s]);
  }
  for (const [name, list] of byMetric) {
    lines.push(`# TYPE ${name} gauge`);
    for (const s of list) {
      const pairs: string[] = [];
      s.labels.forEach((k, v) => {
        if (k !== '__name__') pairs.push(`${k}=${JSON.stringify(v)}`);
      });
      s.ts.forEach((t, i) => {
        const sec = `${Math.floor(t / 1000)}.${String(t % 1000).padStart(3, '0')}`;
        lines.push(`${name}{${pairs.join(',')}} ${omValue(s.vs[i] as number)} ${sec}`);
      });
    }
  }
  lines.push('# EOF', '');
  return lines.join('\n');
}

/** What promtool tsdb dump must print for these samples, with optional filters. */
function expectedDump(
  series: readonly Series[],
  mint = Number.MIN_SAFE_INTEGER,
  maxt = Number.MAX_SAFE_INTEGER,
  matchers: readonly Matcher[] = [],
): string {
  let out = '';
  for (const s of [...series].sort((a, b) => Labels.compare(a.labels, b.labels))) {
    if (!matchers.every((m) => m.matches(s.labels.get(m.name)))) continue;
    s.ts.forEach((t, i) => {
      if (t >= mint && t <= maxt) {
        out += `${formatLabelsPromtool(s.labels)} ${formatGoG(s.vs[i] as number)} ${t}\n`;
      }
    });
  }
  return out;
}

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: readonly string[], cwd: string): Run {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}
const strata = (args: readonly string[], cwd: string): Run =>
  run(process.execPath, [STRATA_BIN, 'tools', 'tsdb', ...args], cwd);
const promtool = (args: readonly string[], cwd: string): Run =>
  run(PROMTOOL, ['tsdb', ...args], cwd);

/** The table of created blocks without ULIDs (and sizes unless kept), for comparison. */
function tableShape(stdout: string, keepSize: boolean): string[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((l) => l.replace(/^[0-9A-Z]{26}/, 'ULID').replace(keepSize ? /$^/ : / +\d+$/, ''));
}

const work = mkdtempSync(join(tmpdir(), 'strata-tsdb-tools-'));
const series = generate(3, 0);
const totalSamples = series.reduce((n, s) => n + s.ts.length, 0);

beforeAll(() => {
  ensureBuilt();
  writeFileSync(join(work, 'input.om'), toOpenMetrics(series));
  // promtool's blocks, built once and shared by (b) and (c).
  const r = promtool(['create-blocks-from', 'openmetrics', 'input.om', 'theirs'], work);
  if (r.status !== 0) throw new Error(`promtool create-blocks-from failed: ${r.stderr}`);
  mkdirSync(join(work, 'theirs', 'wal'));
}, 300_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('strata tools tsdb create-blocks-from openmetrics, read by promtool', () => {
  let created: Run;
  beforeAll(() => {
    created = strata(['create-blocks-from', 'openmetrics', 'input.om', 'ours'], work);
  });

  it('exits 0 and prints promtool’s table of the created blocks', () => {
    expect(created.status, created.stderr).toBe(0);
    const blocks = readdirSync(join(work, 'ours')).sort();
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const lines = created.stdout.trimEnd().split('\n');
    expect(lines[0]?.split(/ {2,}/)).toEqual([
      'BLOCK ULID',
      'MIN TIME',
      'MAX TIME',
      'DURATION',
      'NUM SAMPLES',
      'NUM CHUNKS',
      'NUM SERIES',
      'SIZE',
    ]);
    expect(lines[0]).toMatch(/^BLOCK ULID {18}MIN TIME {7}MAX TIME {7}DURATION {2,}NUM SAMPLES/);
    expect(lines.slice(1).map((l) => l.slice(0, 26))).toEqual(blocks);
    // Same blocks as promtool's (ranges, samples, series); chunk counts and sizes may differ
    // because Strata cuts chunks with the current Prometheus rules by default.
    const cols = (l: string): string[] => {
      const c = l.split(/ {2,}/);
      return [c[1], c[2], c[3], c[4], c[6]] as string[];
    };
    const theirs = promtool(
      ['create-blocks-from', 'openmetrics', 'input.om', 'theirs-table'],
      work,
    );
    expect(lines.slice(1).map(cols)).toEqual(
      theirs.stdout.trimEnd().split('\n').slice(1).map(cols),
    );
  });

  it('reports progress on stderr', () => {
    expect(created.stderr).toContain(`${totalSamples} samples between`);
    expect(created.stderr).toMatch(/block 1\/\d+ \[\d+, \d+\): \d+ series, \d+ samples -> ours\//);
  });

  it('promtool tsdb dump prints exactly the input samples', () => {
    mkdirSync(join(work, 'ours', 'wal'), { recursive: true });
    const dump = promtool(['dump', 'ours'], work);
    expect(dump.status, dump.stderr).toBe(0);
    expect(dump.stdout).toBe(expectedDump(series));
    expect(dump.stdout.split('\n').length - 1).toBe(totalSamples);
  });

  it('every block passes promtool tsdb analyze', () => {
    const blocks = readdirSync(join(work, 'ours')).filter((n) => /^[0-9A-Z]{26}$/.test(n));
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const ulid of blocks) {
      const r = promtool(['analyze', 'ours', ulid], work);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Block ID: ${ulid}`);
    }
  });

  it('with --chunk-rules=v2.42 writes blocks byte-identical to promtool’s but for the ULID', () => {
    const r = strata(
      ['create-blocks-from', 'openmetrics', '--chunk-rules=v2.42', '-q', 'input.om', 'ours-242'],
      work,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const ours = readdirSync(join(work, 'ours-242')).sort();
    const theirs = readdirSync(join(work, 'theirs'))
      .filter((n) => n !== 'wal')
      .sort();
    expect(ours).toHaveLength(theirs.length);
    ours.forEach((o, i) => {
      const t = theirs[i] as string;
      for (const f of ['index', 'chunks/000001', 'tombstones']) {
        expect(
          Buffer.compare(
            readFileSync(join(work, 'ours-242', o, f)),
            readFileSync(join(work, 'theirs', t, f)),
          ),
        ).toBe(0);
      }
      expect(readFileSync(join(work, 'ours-242', o, 'meta.json'), 'utf8').replaceAll(o, 'U')).toBe(
        readFileSync(join(work, 'theirs', t, 'meta.json'), 'utf8').replaceAll(t, 'U'),
      );
    });
  });

  it('honours --max-block-duration like promtool (rounded down to 2h·3^n)', () => {
    const ours = strata(
      ['create-blocks-from', 'openmetrics', '--max-block-duration=7h', 'input.om', 'ours-6h'],
      work,
    );
    const theirs = promtool(
      ['create-blocks-from', 'openmetrics', '--max-block-duration=7h', 'input.om', 'theirs-6h'],
      work,
    );
    expect(ours.status, ours.stderr).toBe(0);
    expect(theirs.status).toBe(0);
    expect(ours.stderr).toContain('block(s) of 6h0m0s');
    const shape = (s: string): string[] =>
      tableShape(s, false).map((l) => l.split(/ {2,}/).slice(0, 5).join(' '));
    expect(shape(ours.stdout)).toEqual(shape(theirs.stdout));
  });

  it('fails with exit 1 naming the line of a bad sample', () => {
    writeFileSync(join(work, 'bad.om'), 'up 1 1700000000\nup{job="x" 2 1700000001\n# EOF\n');
    const r = strata(['create-blocks-from', 'openmetrics', 'bad.om', 'bad'], work);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^getting min and max timestamp: line 2: /);
    writeFileSync(join(work, 'nots.om'), 'up 1 1700000000\nup 2\n# EOF\n');
    const n = strata(['create-blocks-from', 'openmetrics', 'nots.om', 'bad'], work);
    expect(n.status).toBe(1);
    expect(n.stderr).toContain('line 2: expected timestamp for series {__name__="up"}, got none');
  });
});

describe('strata tools tsdb dump on promtool’s blocks', () => {
  it('prints byte-for-byte what promtool tsdb dump prints', () => {
    const ours = strata(['dump', 'theirs'], work);
    const theirs = promtool(['dump', 'theirs'], work);
    expect(ours.status, ours.stderr).toBe(0);
    expect(theirs.status).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout).toBe(expectedDump(series));
  });

  const filters: string[][] = [
    ['--min-time=1700003600000'],
    ['--max-time=1700010000000'],
    ['--min-time=1700005000123', '--max-time=1700016000000'],
    ['--match={job="api"}'],
    ['--match=temperature{instance=~"host-[0-5]:.*", path!=""}'],
    ['--match', '{__name__!~\'req.*\', job!="node"}', '--min-time', '1700012345678'],
    ['--match={}'],
  ];
  for (const flags of filters) {
    it(`agrees with promtool for ${flags.join(' ')}`, () => {
      const ours = strata(['dump', ...flags, 'theirs'], work);
      const theirs = promtool(['dump', ...flags, 'theirs'], work);
      expect(ours.status, ours.stderr).toBe(0);
      expect(theirs.status, theirs.stderr).toBe(0);
      expect(ours.stdout).toBe(theirs.stdout);
    });
  }

  it('filters exactly as an independent model of the flags', () => {
    const ours = strata(
      [
        'dump',
        '--min-time=1700003600000',
        '--max-time=1700020000000',
        '--match={job="api"}',
        'theirs',
      ],
      work,
    );
    expect(ours.stdout).toBe(
      expectedDump(series, 1700003600000, 1700020000000, parseSeriesSelector('{job="api"}')),
    );
    expect(ours.stdout.length).toBeGreaterThan(0);
  });

  it('merges overlapping blocks per series like promtool', () => {
    // promtool's blocks, Strata's blocks of the same samples, and blocks of other samples
    // interleaved in time: overlapping blocks whose series must be merged and de-duplicated.
    const other = generate(5, 500);
    writeFileSync(join(work, 'other.om'), toOpenMetrics(other));
    expect(
      strata(['create-blocks-from', 'openmetrics', '-q', 'other.om', 'mixed'], work).status,
    ).toBe(0);
    for (const src of ['theirs', 'ours']) {
      for (const b of readdirSync(join(work, src)).filter((n) => /^[0-9A-Z]{26}$/.test(n))) {
        cpSync(join(work, src, b), join(work, 'mixed', b), { recursive: true });
      }
    }
    mkdirSync(join(work, 'mixed', 'wal'), { recursive: true });
    const ours = strata(['dump', 'mixed'], work);
    const theirs = promtool(['dump', 'mixed'], work);
    expect(ours.status, ours.stderr).toBe(0);
    expect(ours.stdout).toBe(theirs.stdout);
    expect(ours.stdout.split('\n').length - 1).toBeGreaterThan(totalSamples);
  });

  it('fails with exit 1 on a bad selector, naming it', () => {
    const r = strata(['dump', '--match={a="b" c="d"}', 'theirs'], work);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('position 8');
  });
});
