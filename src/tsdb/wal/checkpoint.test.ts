import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels } from '../../model/index.js';
import { FileSystemError, type FileSystem } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import {
  RecordType,
  SampleBatch,
  decodeMetadata,
  decodeSamples,
  decodeSeries,
  decodeTombstones,
  encodeMetadata,
  encodeSamples,
  encodeSeries,
  encodeTombstones,
  recordType,
} from '../record/index.js';
import {
  WAL,
  checkpoint,
  checkpointName,
  deleteCheckpoints,
  lastCheckpoint,
  listCheckpoints,
  readCheckpointAndSegments,
  readRecords,
  replayPlan,
} from './index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';

const DIR = '/data/wal';

function series(ref: number): Uint8Array {
  return encodeSeries([{ ref, labels: Labels.fromStrings('__name__', 'm', 'id', String(ref)) }]);
}

function samples(...rows: Array<[number, number, number]>): Uint8Array {
  const batch = new SampleBatch();
  for (const [ref, t, v] of rows) batch.push(ref, t, v);
  return encodeSamples(batch);
}

/** Everything a record says, as comparable plain data. */
function describeRecord(rec: Uint8Array): unknown {
  switch (recordType(rec)) {
    case RecordType.Series:
      return decodeSeries(rec).map((s) => ['series', s.ref, s.labels.toString()]);
    case RecordType.Samples: {
      const b = decodeSamples(rec);
      return Array.from({ length: b.length }, (_, i) => [
        'sample',
        b.refs[i],
        b.timestamps[i],
        b.valueBits(i),
      ]);
    }
    case RecordType.Tombstones:
      return decodeTombstones(rec).map((t) => ['tombstone', t.ref, t.mint, t.maxt]);
    case RecordType.Metadata:
      return decodeMetadata(rec).map((m) => ['metadata', m.ref, m.type, m.unit, m.help]);
    default:
      return ['raw', Buffer.from(rec).toString('hex')];
  }
}

async function readAll(fs: FileSystem, dir: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const rec of readRecords(dir, {}, { fs })) out.push(describeRecord(rec));
  return out;
}

async function setup(compress = false) {
  const fs = new DiskFileSystem();
  const logger = new CapturingLogger();
  // Durably, so power-loss tests see the WAL directory itself survive.
  await fs.mkdir(DIR, { recursive: true });
  await fs.syncDir('/');
  await fs.syncDir('/data');
  const wal = await WAL.open(DIR, { compress }, { fs, logger });
  return { fs, logger, wal, deps: { fs, logger } };
}

describe('checkpoint', () => {
  it('keeps series, samples >= mint and tombstones of kept series, and the latest metadata', async () => {
    const { fs, wal, deps } = await setup();
    // Segment 0: series 1..3, samples around the cut at t=100.
    await wal.log(series(1), series(2), series(3));
    await wal.log(samples([1, 50, 1], [2, 60, 2], [3, 70, 3]));
    await wal.log(encodeMetadata([{ ref: 1, type: 1, unit: 'old', help: 'old' }]));
    await wal.nextSegment();
    // Segment 1: more samples, tombstones, newer metadata.
    await wal.log(samples([1, 100, 4], [2, 110, 5], [3, 120, 6]));
    await wal.log(
      encodeTombstones([
        { ref: 1, mint: 0, maxt: 99 },
        { ref: 1, mint: 0, maxt: 150 },
        { ref: 2, mint: 0, maxt: 500 },
      ]),
    );
    await wal.log(
      encodeMetadata([
        { ref: 2, type: 2, unit: 'u2', help: 'h2' },
        { ref: 1, type: 1, unit: 'new', help: 'new' },
      ]),
    );
    await wal.nextSegment();
    // Segment 2 is not part of the checkpoint.
    await wal.log(samples([1, 200, 7]));

    const stats = await checkpoint(DIR, 0, 1, (ref) => ref !== 2, 100, deps);
    expect(stats).toMatchObject({
      dir: `${DIR}/checkpoint.00000001`,
      totalSeries: 3,
      droppedSeries: 1,
      totalSamples: 6,
      droppedSamples: 4,
      totalTombstones: 3,
      droppedTombstones: 2,
      totalMetadata: 3,
      droppedMetadata: 2,
    });
    expect(await lastCheckpoint(DIR, { fs })).toEqual({ dir: stats.dir, index: 1 });
    expect(await readAll(fs, stats.dir)).toEqual([
      // Each record is filtered on its own, as in Prometheus.
      [['series', 1, '{__name__="m", id="1"}']],
      [['series', 3, '{__name__="m", id="3"}']],
      [
        ['sample', 1, 100, 0x4010000000000000n],
        ['sample', 3, 120, 0x4018000000000000n],
      ],
      [['tombstone', 1, 0, 150]],
      [['metadata', 1, 1, 'new', 'new']],
    ]);
    // The checkpoint is a WAL of its own: one segment, page aligned, in place of the temp dir.
    expect(await fs.readdir(stats.dir)).toEqual(['00000000']);
    expect((await fs.stat(`${stats.dir}/00000000`))?.size).toBe(32 * 1024);
    expect(await fs.readdir(DIR)).toEqual([
      '00000000',
      '00000001',
      '00000002',
      'checkpoint.00000001',
    ]);
    await wal.close();
  });

  it('absorbs the previous checkpoint and starts after it', async () => {
    const { fs, wal, deps } = await setup(true);
    await wal.log(series(1), series(2), samples([1, 10, 1], [2, 10, 2]));
    await wal.nextSegment();
    await wal.log(samples([1, 20, 3], [2, 20, 4]));
    await wal.nextSegment();
    await checkpoint(DIR, 0, 0, () => true, 0, deps, { compress: true });
    await wal.truncate(1);
    await deleteCheckpoints(DIR, 0, deps);

    await wal.log(series(3), samples([3, 30, 5]));
    await wal.nextSegment();
    // `from` below the previous checkpoint is moved up to just after it.
    const stats = await checkpoint(DIR, 0, 2, (ref) => ref !== 1, 15, deps, { compress: true });
    expect(stats.totalSeries).toBe(3);
    expect(await readAll(fs, stats.dir)).toEqual([
      [['series', 2, '{__name__="m", id="2"}']],
      [['sample', 2, 20, 0x4010000000000000n]],
      [['series', 3, '{__name__="m", id="3"}']],
      [['sample', 3, 30, 0x4014000000000000n]],
    ]);
    await deleteCheckpoints(DIR, 2, deps);
    expect((await listCheckpoints(DIR, deps)).map((c) => c.index)).toEqual([2]);
    await wal.close();
  });

  it('refuses a gap after the previous checkpoint and missing segments', async () => {
    const { wal, deps } = await setup();
    await wal.log(series(1));
    await wal.nextSegment();
    await wal.nextSegment();
    await checkpoint(DIR, 0, 0, () => true, 0, deps);
    await expect(checkpoint(DIR, 2, 2, () => true, 0, deps)).rejects.toThrow(
      /unexpected gap to last checkpoint .*checkpoint.00000000: expected segment 1, requested 2/,
    );
    await expect(checkpoint(DIR, 1, 5, () => true, 0, deps)).rejects.toThrow(
      /segment 3 is missing/,
    );
    await wal.close();
  });

  it('copies histogram records it cannot decode and drops unknown record types', async () => {
    const { fs, wal, deps } = await setup();
    const histogram = Uint8Array.of(RecordType.HistogramSamples, 1, 2, 3);
    await wal.log(series(1), histogram, Uint8Array.of(200, 1), new Uint8Array(0));
    await wal.nextSegment();
    const stats = await checkpoint(DIR, 0, 0, () => true, 0, deps);
    expect(stats.copiedUndecoded).toBe(1);
    expect(stats.droppedUnknown).toBe(2);
    expect(await readAll(fs, stats.dir)).toEqual([
      [['series', 1, '{__name__="m", id="1"}']],
      ['raw', '07010203'],
    ]);
    await wal.close();
  });

  it('replaces leftovers of an interrupted checkpoint and of one with the same index', async () => {
    const { fs, wal, deps } = await setup();
    await wal.log(series(1));
    await wal.nextSegment();
    await fs.mkdir(`${DIR}/checkpoint.00000000.tmp`);
    await fs.writeFile(`${DIR}/checkpoint.00000000.tmp/00000000`, 'garbage');
    await fs.mkdir(`${DIR}/checkpoint.00000007.tmp`);
    await checkpoint(DIR, 0, 0, () => true, 0, deps);
    // A second run over the same range (a crash before truncation) replaces it.
    const stats = await checkpoint(DIR, 0, 0, () => true, 0, deps);
    expect(stats.totalSeries).toBe(1);
    expect(await fs.readdir(DIR)).toEqual(['00000000', '00000001', 'checkpoint.00000000']);
    expect(await readAll(fs, stats.dir)).toEqual([[['series', 1, '{__name__="m", id="1"}']]]);
    await wal.close();
  });

  it('leaves no checkpoint behind when writing it fails, and is durable once it returns', async () => {
    const { fs, wal, deps } = await setup();
    await wal.log(series(1), samples([1, 5, 5]));
    await wal.nextSegment();
    await wal.sync();
    const failing = new Proxy(fs, {
      get(target, prop, receiver) {
        if (prop === 'rename')
          return () => Promise.reject(new FileSystemError('EIO', 'rename', 'EIO: injected'));
        return Reflect.get(target, prop, receiver) as unknown;
      },
    });
    await expect(
      checkpoint(DIR, 0, 0, () => true, 0, { fs: failing, logger: deps.logger }),
    ).rejects.toThrow(/injected/);
    expect(await fs.readdir(DIR)).toEqual(['00000000', '00000001']);

    const stats = await checkpoint(DIR, 0, 0, () => true, 0, deps);
    fs.disk.powerLoss(undefined);
    expect(await readAll(fs, stats.dir)).toEqual([
      [['series', 1, '{__name__="m", id="1"}']],
      [['sample', 1, 5, 0x4014000000000000n]],
    ]);
  });

  it('keeps exactly the samples a model keeps (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: 100 })), {
            maxLength: 8,
          }),
          { minLength: 1, maxLength: 6 },
        ),
        fc.integer({ min: 0, max: 100 }),
        fc.subarray([1, 2, 3, 4, 5, 6]),
        async (records, mint, keptRefs) => {
          const { fs, wal, deps } = await setup();
          for (const rows of records) {
            await wal.log(
              samples(...rows.map(([ref, t]): [number, number, number] => [ref, t, t])),
            );
          }
          const last = wal.currentSegment;
          await wal.nextSegment();
          const keep = (ref: number) => keptRefs.includes(ref);
          await checkpoint(DIR, 0, last, keep, mint, deps);
          const got: unknown[] = [];
          for await (const rec of readCheckpointAndSegments(DIR, { fs })) {
            const b = decodeSamples(rec);
            for (let i = 0; i < b.length; i++) got.push([b.refs[i], b.timestamps[i]]);
          }
          const want = records.flat().filter(([ref, t]) => keep(ref) && t >= mint);
          expect(got).toEqual(want);
          await wal.close();
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('replay order', () => {
  it('reads the newest checkpoint, then the segments after it', async () => {
    const { wal, deps } = await setup();
    await wal.log(series(1));
    await wal.nextSegment();
    await wal.log(series(2));
    await wal.nextSegment();
    await wal.log(series(3));
    expect(await replayPlan(DIR, deps)).toEqual({ checkpoint: undefined, fromSegment: 0 });

    await checkpoint(DIR, 0, 1, () => true, 0, deps);
    // Before truncation, segments 0 and 1 are still there: they must not be read twice.
    expect(await replayPlan(DIR, deps)).toEqual({
      checkpoint: { dir: `${DIR}/${checkpointName(1)}`, index: 1 },
      fromSegment: 2,
    });
    const refs = async () => {
      const out: number[] = [];
      for await (const rec of readCheckpointAndSegments(DIR, deps))
        out.push(...decodeSeries(rec).map((s) => s.ref));
      return out;
    };
    expect(await refs()).toEqual([1, 2, 3]);
    await wal.truncate(2);
    expect(await refs()).toEqual([1, 2, 3]);
    await wal.close();
  });

  it('refuses to replay when segments after the checkpoint are missing', async () => {
    const { fs, wal, deps } = await setup();
    await wal.log(series(1));
    for (let i = 0; i < 3; i++) await wal.nextSegment();
    await checkpoint(DIR, 0, 0, () => true, 0, deps);
    await wal.truncate(2);
    await expect(replayPlan(DIR, { fs })).rejects.toThrow(
      /segment 1 after .*checkpoint.00000000 is missing/,
    );
    await wal.close();
  });

  it('names checkpoints with eight digits and rejects bad indexes', () => {
    expect(checkpointName(0)).toBe('checkpoint.00000000');
    expect(checkpointName(123456789)).toBe('checkpoint.123456789');
    expect(() => checkpointName(-1)).toThrow(/got -1/);
  });

  it('treats a checkpoint name that is not a directory as an error', async () => {
    const fs = new DiskFileSystem();
    await fs.mkdir(DIR, { recursive: true });
    await fs.writeFile(`${DIR}/checkpoint.00000003`, 'x');
    await expect(lastCheckpoint(DIR, { fs })).rejects.toThrow(/is not a directory/);
  });
});
