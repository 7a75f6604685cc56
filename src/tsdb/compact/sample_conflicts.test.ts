import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { Labels, Matcher } from '../../model/index.js';
import { createSeededRandom } from '../../runtime/index.js';
import { ManualClock } from '../../runtime/testing/index.js';
import { BlockReader, writeBlock, type BlockSeriesInput } from '../block/index.js';
import { ValueType } from '../chunkenc/index.js';
import { compactBlocksStreaming } from './index.js';

const STALE_NAN = 0x7ff0000000000002n;

function staleMarker(): number {
  const b = new BigUint64Array([STALE_NAN]);
  return new Float64Array(b.buffer)[0] as number;
}

function bitsOf(v: number): bigint {
  return new BigUint64Array(new Float64Array([v]).buffer)[0] as bigint;
}

type Samples = ReadonlyArray<readonly [number, number]>;

/** Writes one block per entry (a series name to its [t, v] samples), all over [0, 100). */
async function blocks(entries: ReadonlyArray<Record<string, Samples>>) {
  const fs = new DiskFileSystem();
  const deps = {
    fs,
    clock: new ManualClock(1_000_000),
    random: createSeededRandom('conflicts').stream('ulids'),
  };
  const dirs: string[] = [];
  const ids: string[] = [];
  for (const entry of entries) {
    const input: BlockSeriesInput[] = Object.entries(entry).map(([name, samples]) => ({
      labels: Labels.fromObject({ __name__: name }),
      timestamps: Float64Array.from(samples.map(([t]) => t)),
      values: Float64Array.from(samples.map(([, v]) => v)),
    }));
    const meta = await writeBlock('/b', input, { meta: { minTime: 0, maxTime: 100 } }, deps);
    dirs.push(`/b/${meta.ulid}`);
    ids.push(meta.ulid);
  }
  return { deps, dirs, ids };
}

/** Every sample of the block at `dir` as "name t bits". */
async function samplesOf(fs: DiskFileSystem, dir: string): Promise<string[]> {
  const reader = await BlockReader.open(dir, { fs });
  const out: string[] = [];
  try {
    for await (const s of reader.select([Matcher.regex('__name__', '.*')], 0, 99)) {
      const it = s.iterator();
      while (it.next() !== ValueType.None) {
        out.push(`${s.labels.get('__name__')} ${it.atT()} ${bitsOf(it.atF())}`);
      }
    }
  } finally {
    await reader.close();
  }
  return out;
}

describe('compactBlocksStreaming: conflicting samples', () => {
  it('finds nothing in identical or disjoint replicas, stale markers included', async () => {
    const stale = staleMarker();
    const { deps, dirs } = await blocks([
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
    const { conflicts } = await compactBlocksStreaming(dirs, '/out', {}, deps);
    expect(conflicts).toEqual({ samples: 0, series: 0 });
  });

  it('counts each dropped differing sample, names the kept and dropped block, keeps the first', async () => {
    const { deps, dirs, ids } = await blocks([
      {
        a: [
          [1, 1],
          [2, 2],
        ],
        b: [[1, 1]],
        c: [[1, 0]],
      },
      {
        a: [
          [1, 1],
          [2, 20],
        ],
        b: [[1, staleMarker()]],
        // 0 and -0 are equal numbers but different samples.
        c: [[1, -0]],
      },
      { a: [[2, 200]] },
    ]);
    const { meta, conflicts } = await compactBlocksStreaming(dirs, '/out', {}, deps);
    expect(conflicts.samples).toBe(4);
    expect(conflicts.series).toBe(3);
    expect(conflicts.first).toEqual({
      labels: '{__name__="a"}',
      timestamp: 2,
      kept: 2,
      keptBlock: ids[0],
      dropped: 20,
      droppedBlock: ids[1],
    });
    // The output holds the first block's values only.
    expect(await samplesOf(deps.fs, `/out/${meta?.ulid}`)).toEqual([
      `a 1 ${bitsOf(1)}`,
      `a 2 ${bitsOf(2)}`,
      `b 1 ${bitsOf(1)}`,
      `c 1 ${bitsOf(0)}`,
    ]);
  });

  it('compares NaN payloads bit for bit and names the source that was kept', async () => {
    const stale = staleMarker();
    const { deps, dirs, ids } = await blocks([
      { a: [[5, stale]] },
      {
        a: [
          [4, 4],
          [5, NaN],
        ],
      },
      {
        a: [
          [4, 40],
          [5, stale],
        ],
      },
    ]);
    const { conflicts } = await compactBlocksStreaming(dirs, '/out', {}, deps);
    expect(conflicts.samples).toBe(2);
    expect(conflicts.series).toBe(1);
    expect(conflicts.first).toMatchObject({
      timestamp: 4,
      kept: 4,
      keptBlock: ids[1],
      dropped: 40,
      droppedBlock: ids[2],
    });
  });

  it('stops between series when aborted', async () => {
    const { deps, dirs } = await blocks([{ a: [[1, 1]] }, { a: [[1, 2]] }]);
    const controller = new AbortController();
    controller.abort();
    await expect(
      compactBlocksStreaming(dirs, '/out', {}, { ...deps, signal: controller.signal }),
    ).rejects.toThrow(/abort/i);
    // Nothing is left behind: the half-written block is removed.
    expect(await deps.fs.readdir('/out')).toEqual([]);
  });
});
