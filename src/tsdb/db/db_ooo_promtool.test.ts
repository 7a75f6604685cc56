// Out-of-order blocks against Prometheus's own tool (Debian's promtool 2.42) on a real disk:
// after head and out-of-order compaction, `promtool tsdb dump` of the database (overlapping
// in-order and out-of-order blocks plus the WAL) prints every sample exactly once, and
// `strata tools tsdb dump` prints the same for the range the blocks cover. (promtool's
// read-only open replays the WAL only after the max time of the block with the highest min
// time, out-of-order or not, so the late samples here stay within the in-order blocks'
// range; see docs/tsdb-out-of-order.md.)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import { createSeededRandom, newMetricsRegistry } from '../../runtime/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { CapturingLogger, ManualClock } from '../../runtime/testing/index.js';
import { isFromOutOfOrder } from '../block/index.js';
import { dumpSamples, formatGoG, formatLabelsPromtool } from '../tools/index.js';
import { TSDB } from './index.js';
import { appendAll, labelsOf, RANGE, regularSamples, type Sample } from './testing/helpers.js';

const PROMTOOL = '/usr/bin/promtool';
const START = 1_700_000_123_456;

function promtoolLines(samples: readonly Sample[]): string[] {
  return [...samples]
    .sort((a, b) => Labels.compare(labelsOf(a.series), labelsOf(b.series)) || a.t - b.t)
    .map((s) => `${formatLabelsPromtool(labelsOf(s.series))} ${formatGoG(s.v)} ${s.t}`);
}

describe('a database with out-of-order blocks, read by promtool 2.42', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-tsdb-ooo-'));
  // In order every 30s; then, late, the samples in between for the first range.
  const inOrder = regularSamples(4, START, START + 2.5 * RANGE, 30_000);
  const late = regularSamples(4, START + 15_000, START + RANGE, 30_000).map((s) => ({
    ...s,
    v: -s.v,
  }));
  let inOrderMax = 0;
  let oooBlocks = 0;

  beforeAll(async () => {
    const db = await TSDB.open(
      work,
      { stripeSize: 16, outOfOrderTimeWindow: 3 * RANGE },
      {
        fs: new NodeFileSystem(),
        clock: new ManualClock(START + 3 * RANGE),
        random: createSeededRandom('tsdb-db-ooo-promtool').stream('ulid'),
        logger: new CapturingLogger(),
        metrics: newMetricsRegistry(),
      },
    );
    await appendAll(db, inOrder, 50);
    await appendAll(db, late, 50);
    const result = await db.compactHead();
    expect(result.blocks.length).toBeGreaterThan(0);
    expect(result.oooBlocks.length).toBeGreaterThan(0);
    expect(result.oooBlocks.every(isFromOutOfOrder)).toBe(true);
    oooBlocks = result.oooBlocks.length;
    inOrderMax = Math.max(...result.blocks.map((b) => b.maxTime));
    await db.close();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('promtool tsdb dump prints every sample once', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'dump', work], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(out.split('\n').filter((l) => l !== '')).toEqual(promtoolLines([...inOrder, ...late]));
  });

  it('promtool tsdb analyze reads the out-of-order blocks', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'analyze', work], { encoding: 'utf8' });
    expect(out).toContain('Series: 4');
    expect(oooBlocks).toBeGreaterThan(0);
  });

  it('strata tools tsdb dump prints the same as promtool over the blocks', async () => {
    const chunks: string[] = [];
    await dumpSamples(
      { dbPath: work, maxTime: inOrderMax - 1, matchers: [Matcher.regex('__name__', '.+')] },
      { fs: new NodeFileSystem(), write: (s) => chunks.push(s) },
    );
    const ours = chunks
      .join('')
      .split('\n')
      .filter((l) => l !== '');
    const theirs = execFileSync(PROMTOOL, ['tsdb', 'dump', `--max-time=${inOrderMax - 1}`, work], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    })
      .split('\n')
      .filter((l) => l !== '');
    const all = [...inOrder, ...late].filter((s) => s.t < inOrderMax);
    expect(ours).toEqual(promtoolLines(all));
    expect(theirs).toEqual(ours);
  });
});
