import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Matcher } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { ValueType } from '../chunkenc/index.js';
import { BlockReader, type BlockMeta } from '../block/index.js';
import {
  blockTable,
  compatibleBlockDuration,
  createBlocksFromOpenMetrics,
  dumpSamples,
  parseDurationMs,
  runTsdbTool,
} from './index.js';

const H = 3_600_000;
const work = mkdtempSync(join(tmpdir(), 'strata-tsdb-tools-unit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const fs = new NodeFileSystem();
let counter = 0;

function fresh(): string {
  counter++;
  return join(work, `case-${counter}`);
}

async function create(
  om: string,
  extra: { maxBlockDurationMs?: number; progressEverySamples?: number } = {},
): Promise<{ metas: BlockMeta[]; out: string; err: string; dir: string }> {
  const dir = fresh();
  writeFileSync(`${dir}.om`, om);
  let out = '';
  let err = '';
  const metas = await createBlocksFromOpenMetrics(
    { inputPath: `${dir}.om`, outputDir: dir, ...extra },
    {
      fs,
      clock: new ManualClock(1_700_000_000_000),
      random: createSeededRandom(`tools-test-${counter}`).stream('ulid'),
      stdout: (s) => (out += s),
      stderr: (s) => (err += s),
    },
  );
  return { metas, out, err, dir };
}

async function dump(dir: string, matchers = [Matcher.regex('__name__', '.*')]): Promise<string> {
  let out = '';
  await dumpSamples({ dbPath: dir, matchers }, { fs, write: (s) => (out += s) });
  return out;
}

describe('compatibleBlockDuration (promtool getCompatibleBlockDuration)', () => {
  it('rounds down to 2h·3^n and never below 2h', () => {
    expect(compatibleBlockDuration(0)).toBe(2 * H);
    expect(compatibleBlockDuration(H)).toBe(2 * H);
    expect(compatibleBlockDuration(6 * H - 1)).toBe(2 * H);
    expect(compatibleBlockDuration(6 * H)).toBe(6 * H);
    expect(compatibleBlockDuration(53 * H)).toBe(18 * H);
    expect(compatibleBlockDuration(1e15)).toBe(2 * H * 3 ** 9);
  });
});

describe('parseDurationMs', () => {
  it('parses Go-style durations', () => {
    expect(parseDurationMs('2h')).toBe(2 * H);
    expect(parseDurationMs('1h30m')).toBe(1.5 * H);
    expect(parseDurationMs('6h0m0s')).toBe(6 * H);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(() => parseDurationMs('2x')).toThrow(/invalid duration "2x"/);
  });
});

describe('blockTable', () => {
  it('pads like a Go tabwriter with min width 13 and padding 2', () => {
    const meta = {
      ulid: '01M809NH6TPRMDS6KQSAG3P0TX',
      minTime: 1700000000500,
      maxTime: 1700000000501,
      stats: { numSamples: 1, numChunks: 1, numSeries: 1 },
    } as BlockMeta;
    expect(blockTable(meta, 577, true)).toBe(
      'BLOCK ULID                  MIN TIME       MAX TIME       DURATION     NUM SAMPLES  NUM CHUNKS   NUM SERIES   SIZE\n' +
        '01M809NH6TPRMDS6KQSAG3P0TX  1700000000500  1700000000501  1ms          1            1            1            577\n',
    );
  });
});

describe('createBlocksFromOpenMetrics', () => {
  it('cuts one block per aligned range; a sample on a boundary opens the next block', async () => {
    const t0 = 1_699_999_200_000; // aligned to 2h
    const om =
      `a 1 ${t0 / 1000}\n` +
      `a 2 ${(t0 + 2 * H - 1) / 1000}\n` +
      `a 3 ${(t0 + 2 * H) / 1000}\n` +
      `b NaN ${(t0 + 5 * H) / 1000}\n# EOF\n`;
    const { metas, out, err, dir } = await create(om, { progressEverySamples: 2 });
    expect(metas.map((m) => [m.minTime, m.maxTime, m.stats.numSamples])).toEqual([
      [t0, t0 + 2 * H, 2],
      [t0 + 2 * H, t0 + 2 * H + 1, 1],
      [t0 + 5 * H, t0 + 5 * H + 1, 1],
    ]);
    expect(out.trimEnd().split('\n')).toHaveLength(4);
    expect(err).toContain('scanning: 2 samples read (line 2)');
    expect(err).toContain('4 samples between');
    expect(err).toContain('up to 3 block(s) of 2h0m0s');
    expect(await dump(dir)).toBe(
      `{__name__="a"} 1 ${t0}\n{__name__="a"} 2 ${t0 + 2 * H - 1}\n` +
        `{__name__="a"} 3 ${t0 + 2 * H}\n{__name__="b"} NaN ${t0 + 5 * H}\n`,
    );
    // NaN is stored as Go's math.NaN(), as promtool stores it.
    const last = metas[2] as BlockMeta;
    const reader = await BlockReader.open(`${dir}/${last.ulid}`, { fs });
    for await (const s of reader.select(
      [Matcher.equal('__name__', 'b')],
      0,
      Number.MAX_SAFE_INTEGER,
    )) {
      const it = s.iterator();
      expect(it.next()).toBe(ValueType.Float);
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, it.atF());
      expect(view.getBigUint64(0)).toBe(0x7ff8000000000001n);
    }
    await reader.close();
  });

  it('ignores identical duplicates and rejects conflicting or out-of-order samples by line', async () => {
    const ok = await create('a 1 1000\na 1 1000\na 2 1001\n# EOF\n');
    expect(ok.metas[0]?.stats.numSamples).toBe(2);
    await expect(create('a 1 1000\na 2 1000\n# EOF\n')).rejects.toThrow(
      /process blocks: line 2: duplicate sample for timestamp 1000000 with a different value for series \{__name__="a"\}/,
    );
    await expect(create('a 1 1000\nb 1 999\na 2 999\n# EOF\n')).rejects.toThrow(
      /line 3: out of order sample: ts=999000, last ts=1000000/,
    );
  });

  it('writes nothing for input without samples', async () => {
    const { metas, out, err } = await create('# TYPE a gauge\n# EOF\n');
    expect(metas).toEqual([]);
    expect(out).toBe('');
    expect(err).toContain('no samples');
  });
});

describe('dumpSamples', () => {
  it('merges overlapping blocks per series and prints duplicate timestamps once', async () => {
    const one = await create('a{x="1"} 1 1000\na{x="1"} 3 1002\nb 7 1000\n# EOF\n');
    const two = await create('a{x="1"} 1 1000\na{x="1"} 2 1001\nc 9 1005\n# EOF\n');
    const merged = fresh();
    await fs.mkdir(merged, { recursive: true });
    for (const src of [one, two]) {
      for (const m of src.metas) await fs.rename(`${src.dir}/${m.ulid}`, `${merged}/${m.ulid}`);
    }
    await fs.mkdir(`${merged}/wal`);
    await fs.mkdir(`${merged}/${one.metas[0]?.ulid ?? ''}.tmp-for-creation`);
    expect(await dump(merged)).toBe(
      '{__name__="a", x="1"} 1 1000000\n{__name__="a", x="1"} 2 1001000\n' +
        '{__name__="a", x="1"} 3 1002000\n{__name__="b"} 7 1000000\n{__name__="c"} 9 1005000\n',
    );
    expect(await dump(merged, [Matcher.notEqual('x', '')])).toBe(
      '{__name__="a", x="1"} 1 1000000\n{__name__="a", x="1"} 2 1001000\n{__name__="a", x="1"} 3 1002000\n',
    );
    expect(await dump(merged, [])).toBe('');
  });

  it('names a missing database path', async () => {
    await expect(dump(join(work, 'nope'))).rejects.toThrow(/nope" is not a directory/);
  });
});

describe('runTsdbTool', () => {
  const deps = {
    fs,
    clock: new ManualClock(0),
    random: createSeededRandom('cli').stream('ulid'),
  };
  const runIt = async (argv: string[]): Promise<{ code: number; out: string; err: string }> => {
    let out = '';
    let err = '';
    const code = await runTsdbTool(
      argv,
      { stdout: (s) => (out += s), stderr: (s) => (err += s) },
      deps,
    );
    return { code, out, err };
  };

  it('exits 2 with usage on bad invocations', async () => {
    expect((await runIt([])).code).toBe(2);
    expect((await runIt(['frobnicate'])).err).toContain('unknown tsdb command "frobnicate"');
    expect((await runIt(['create-blocks-from', 'csv', 'x'])).err).toContain(
      'unknown input format "csv"',
    );
    expect((await runIt(['dump', '--bogus=1'])).err).toContain('unknown flag "--bogus=1"');
    expect((await runIt(['dump', '--min-time=abc'])).err).toContain('invalid --min-time "abc"');
    expect((await runIt(['help'])).out).toContain('create-blocks-from openmetrics');
  });

  it('exits 1 naming the problem on runtime errors', async () => {
    const r = await runIt(['create-blocks-from', 'openmetrics', join(work, 'missing.om'), fresh()]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('missing.om');
  });
});
