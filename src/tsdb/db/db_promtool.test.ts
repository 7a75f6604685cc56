// Acceptance against Prometheus's own tool (Debian's promtool 2.42) on a real disk: the block
// cut from the head passes `promtool tsdb analyze`, and `promtool tsdb dump` of the database
// directory (blocks plus our WAL, which promtool replays) prints exactly every sample.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { createSeededRandom, newMetricsRegistry } from '../../runtime/index.js';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { CapturingLogger, ManualClock } from '../../runtime/testing/index.js';
import { formatGoG, formatLabelsPromtool } from '../tools/index.js';
import { TSDB } from './index.js';
import { appendAll, labelsOf, RANGE, regularSamples, type Sample } from './testing/helpers.js';

const PROMTOOL = '/usr/bin/promtool';
const START = 1_700_000_123_456;

function expectedDump(samples: readonly Sample[]): string[] {
  return [...samples]
    .sort((a, b) => Labels.compare(labelsOf(a.series), labelsOf(b.series)) || a.t - b.t)
    .map((s) => `${formatLabelsPromtool(labelsOf(s.series))} ${formatGoG(s.v)} ${s.t}`);
}

describe('a database with a cut block, read by promtool 2.42', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-tsdb-db-'));
  const samples = regularSamples(5, START, START + 2 * RANGE, 15_000);
  let ulid = '';

  beforeAll(async () => {
    const db = await TSDB.open(
      work,
      { stripeSize: 16, walSegmentSize: 32 * 1024 },
      {
        fs: new NodeFileSystem(),
        clock: new ManualClock(START + 2 * RANGE),
        random: createSeededRandom('tsdb-db-promtool').stream('ulid'),
        logger: new CapturingLogger(),
        metrics: newMetricsRegistry(),
      },
    );
    await appendAll(db, samples, 25);
    const { blocks } = await db.compactHead();
    expect(blocks).toHaveLength(1);
    ulid = blocks[0]!.ulid;
    expect(db.head.isEmpty()).toBe(false);
    await db.close();
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('passes promtool tsdb analyze', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'analyze', work, ulid], { encoding: 'utf8' });
    expect(out).toContain(`Block ID: ${ulid}`);
    expect(out).toContain('Series: 5');
  });

  it('promtool tsdb dump prints exactly the block’s and the head’s samples', () => {
    const out = execFileSync(PROMTOOL, ['tsdb', 'dump', work], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
    });
    expect(out.split('\n').filter((l) => l !== '')).toEqual(expectedDump(samples));
  });
});
