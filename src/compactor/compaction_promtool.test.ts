// Prometheus's own tool accepts what the compactor uploads: a block merged vertically from
// three replicas and then horizontally into a 12h block passes `promtool tsdb analyze`, and
// `promtool tsdb dump` prints each sample once.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../runtime/real/index.js';
import type { BlockMeta } from '../tsdb/index.js';
import { downloadBlocks } from './block_download.js';
import {
  DAY0,
  HOUR,
  compactionWorld,
  liveBlocks,
  loopFor,
  shipBlock,
  signal,
  testSeries,
} from './compaction_harness.testing.js';

const PROMTOOL = '/usr/bin/promtool';

describe('a compactor output block, read by promtool', () => {
  const work = mkdtempSync(join(tmpdir(), 'strata-compactor-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('passes promtool tsdb analyze and dumps each sample once', async () => {
    const w = compactionWorld('promtool');
    for (let t = DAY0; t < DAY0 + 14 * HOUR; t += 2 * HOUR) {
      for (const ing of ['ingester-0', 'ingester-1', 'ingester-2']) {
        await shipBlock(w, 'tenant', ing, testSeries(20, t, t + 2 * HOUR), {
          minTime: t,
          maxTime: t + 2 * HOUR,
        });
      }
    }
    await loopFor(w).runOnce(signal());
    const live = await liveBlocks(w, 'tenant');
    expect(live.map((b) => [b.minTime - DAY0, b.maxTime - DAY0])).toEqual([
      [0, 12 * HOUR],
      [12 * HOUR, 14 * HOUR],
    ]);
    const half = live[0] as BlockMeta;
    expect(half.compaction.level).toBe(3);
    expect(half.compaction.sources).toHaveLength(18);

    await downloadBlocks('tenant', [half], work, 2, { bucket: w.inner, fs: new NodeFileSystem() });
    const analyze = execFileSync(PROMTOOL, ['tsdb', 'analyze', work, half.ulid], {
      encoding: 'utf8',
    });
    expect(analyze).toContain(`Block ID: ${half.ulid}`);
    expect(analyze).toContain('Series: 20');
    // promtool's dump opens the directory as a TSDB, WAL included.
    mkdirSync(join(work, 'wal'));
    const dump = execFileSync(PROMTOOL, ['tsdb', 'dump', work], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = dump.trimEnd().split('\n');
    expect(lines).toHaveLength(20 * 12 * 240);
    expect(new Set(lines).size).toBe(lines.length);
    expect(half.stats.numSamples).toBe(lines.length);
  });
});
