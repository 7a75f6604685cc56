import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Labels } from '../model/index.js';
import { createSeededRandom } from '../runtime/index.js';
import { ManualClock } from '../runtime/testing/index.js';
import { writeBlock, type BlockSeriesInput } from '../tsdb/index.js';
import { findSampleConflicts } from './sample_conflicts.js';

const STALE_NAN = 0x7ff0000000000002n;

function staleMarker(): number {
  const b = new BigUint64Array([STALE_NAN]);
  return new Float64Array(b.buffer)[0] as number;
}

/** Writes one block per entry of `blocks`; each entry maps a series name to [t, v] samples. */
async function blocks(
  entries: ReadonlyArray<Record<string, ReadonlyArray<readonly [number, number]>>>,
): Promise<{ fs: DiskFileSystem; dirs: string[]; ids: string[] }> {
  const fs = new DiskFileSystem();
  const clock = new ManualClock(1_000_000);
  const random = createSeededRandom('conflicts').stream('ulids');
  const dirs: string[] = [];
  const ids: string[] = [];
  for (const entry of entries) {
    const input: BlockSeriesInput[] = Object.entries(entry).map(([name, samples]) => ({
      labels: Labels.fromObject({ __name__: name }),
      timestamps: Float64Array.from(samples.map(([t]) => t)),
      values: Float64Array.from(samples.map(([, v]) => v)),
    }));
    const meta = await writeBlock(
      '/b',
      input,
      { meta: { minTime: 0, maxTime: 100 } },
      {
        fs,
        clock,
        random,
      },
    );
    dirs.push(`/b/${meta.ulid}`);
    ids.push(meta.ulid);
  }
  return { fs, dirs, ids };
}

describe('findSampleConflicts', () => {
  it('finds nothing in identical or disjoint replicas, stale markers included', async () => {
    const stale = staleMarker();
    const { fs, dirs, ids } = await blocks([
      {
        a: [
          [1, 1],
          [2, stale],
          [3, 3],
        ],
        b: [[5, 5]],
      },
      {
        a: [
          [1, 1],
          [2, stale],
          [4, 4],
        ],
      },
      { a: [[3, 3]], c: [[1, 9]] },
    ]);
    const found = await findSampleConflicts(dirs, ids, { minTime: 0, maxTime: 100 }, { fs });
    expect(found).toEqual({ samples: 0, series: 0 });
  });

  it('counts each dropped differing sample and names the kept and dropped block', async () => {
    const { fs, dirs, ids } = await blocks([
      {
        a: [
          [1, 1],
          [2, 2],
        ],
        b: [[1, 1]],
      },
      {
        a: [
          [1, 1],
          [2, 20],
        ],
        b: [[1, staleMarker()]],
      },
      { a: [[2, 200]] },
    ]);
    const found = await findSampleConflicts(dirs, ids, { minTime: 0, maxTime: 100 }, { fs });
    expect(found.samples).toBe(3);
    expect(found.series).toBe(2);
    expect(found.first).toEqual({
      labels: '{__name__="a"}',
      timestamp: 2,
      kept: 2,
      keptBlock: ids[0],
      dropped: 20,
      droppedBlock: ids[1],
    });
  });
});
