import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom, newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { RecordType, decodeSamples, decodeSeries, recordType } from '../record/index.js';
import { PAGE_SIZE, listCheckpoints, readRecords } from '../wal/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { Head, truncateHead, walDir, type OpenHeadConfig } from './index.js';
import { fromBits, readAll, seriesLabels, staleNaN, toBits } from './testing/helpers.js';

const DIR = '/data/tenant';

async function open(fs: DiskFileSystem, config: OpenHeadConfig = {}) {
  return Head.open(DIR, config, {
    fs,
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  });
}

async function walRecords(fs: DiskFileSystem): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const r of readRecords(walDir(DIR), {}, { fs })) out.push(r);
  return out;
}

describe('head WAL', () => {
  it('logs new series before their samples on commit, and nothing on rollback', async () => {
    const fs = new DiskFileSystem();
    const { head } = await open(fs);
    const app = head.appender();
    const ref = app.append(seriesLabels(1), 1000, 1);
    app.append(seriesLabels(1), 2000, staleNaN());
    await app.commit();
    const dropped = head.appender();
    dropped.append(seriesLabels(2), 3000, 1);
    dropped.append(ref, 3000, 1);
    dropped.rollback();
    const records = await walRecords(fs);
    expect(records.map(recordType)).toEqual([RecordType.Series, RecordType.Samples]);
    expect(decodeSeries(records[0]!)).toEqual([{ ref, labels: seriesLabels(1) }]);
    const samples = decodeSamples(records[1]!);
    expect([...samples.timestamps.subarray(0, samples.length)]).toEqual([1000, 2000]);
    expect(samples.valueBits(1)).toBe(toBits(staleNaN()));
    // A commit of an existing series logs samples only.
    const more = head.appender();
    more.append(ref, 4000, 4);
    await more.commit();
    expect((await walRecords(fs)).map(recordType)).toEqual([
      RecordType.Series,
      RecordType.Samples,
      RecordType.Samples,
    ]);
  });

  it('replays the samples of a record at or after the minimum valid time, in order', async () => {
    const fs = new DiskFileSystem();
    const { head } = await open(fs);
    const app = head.appender();
    app.append(seriesLabels(1), 4000, 1);
    app.append(seriesLabels(2), 1000, 2);
    app.append(seriesLabels(1), 5000, staleNaN());
    app.append(seriesLabels(3), 2000, 3);
    app.append(seriesLabels(3), 6000, 4);
    await app.commit();
    await head.close();
    // One samples record: the samples before 3000 are left out, the others kept in order.
    expect((await walRecords(fs)).map(recordType)).toEqual([RecordType.Series, RecordType.Samples]);
    const { head: reopened, replay } = await open(fs, { minValidTime: 3000 });
    expect(replay).toMatchObject({ series: 3, samples: 3, skippedSamples: 2, unknownRefs: 0 });
    const read = await readAll(reopened);
    expect(read.get(seriesLabels(1).toString())).toEqual([
      { t: 4000, bits: toBits(1) },
      { t: 5000, bits: toBits(staleNaN()) },
    ]);
    expect(read.get(seriesLabels(3).toString())).toEqual([{ t: 6000, bits: toBits(4) }]);
    expect(read.has(seriesLabels(2).toString())).toBe(false);
    // Without a minimum every sample of the record is replayed.
    const { head: all, replay: allReplay } = await open(fs);
    expect(allReplay).toMatchObject({ samples: 5, skippedSamples: 0 });
    expect(await readAll(all)).toEqual(await readAll(head));
  });

  it('replays after a crash or power loss to exactly the committed (and synced) state', async () => {
    type Step =
      | { kind: 'append'; series: number; dt: number; bits: bigint }
      | { kind: 'commit' }
      | { kind: 'rollback' }
      | { kind: 'sync' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      {
        arbitrary: fc.record({
          kind: fc.constant('append' as const),
          series: fc.integer({ min: 0, max: 2 }),
          dt: fc.integer({ min: -300, max: 1000 }),
          bits: fc.constantFrom(
            toBits(1.5),
            toBits(-0),
            toBits(staleNaN()),
            0x7ff8000000000123n,
            toBits(Infinity),
          ),
        }),
        weight: 8,
      },
      { arbitrary: fc.constant({ kind: 'commit' as const }), weight: 3 },
      { arbitrary: fc.constant({ kind: 'rollback' as const }), weight: 1 },
      { arbitrary: fc.constant({ kind: 'sync' as const }), weight: 1 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 120 }),
        fc.constantFrom('crash', 'power-loss', 'torn-power-loss'),
        fc.integer({ min: 0, max: 1000 }),
        async (steps, fault, seed) => {
          const powerLoss = fault !== 'crash';
          const fs = new DiskFileSystem();
          const { head } = await open(fs, { chunkRange: 4000, samplesPerChunk: 8 });
          // The head's content after each commit; `synced` indexes the last one made durable.
          const snapshots = [await readAll(head)];
          let synced = 0;
          let app = head.appender();
          let clock = 0;
          for (const s of steps) {
            if (s.kind === 'append') {
              clock = Math.max(0, clock + s.dt);
              try {
                app.append(seriesLabels(s.series), clock, fromBits(s.bits));
              } catch {
                // rejections are covered by the appender tests
              }
            } else if (s.kind === 'sync') {
              await head.wal!.sync();
              synced = snapshots.length - 1;
            } else {
              if (s.kind === 'commit') {
                await app.commit();
                snapshots.push(await readAll(head));
              } else app.rollback();
              app = head.appender();
            }
          }
          if (powerLoss) {
            const tearing =
              fault === 'torn-power-loss'
                ? createSeededRandom(`head-power-loss/${seed}`).stream('tear')
                : undefined;
            fs.disk.powerLoss(tearing);
          }
          const { head: reopened, replay } = await open(fs, {
            chunkRange: 4000,
            samplesPerChunk: 8,
          });
          const got = await readAll(reopened);
          if (powerLoss) {
            // What survives is a prefix of the commits, at least up to the last sync.
            const candidates = snapshots.slice(synced).map((m) => [...m].sort());
            expect(candidates).toContainEqual([...got].sort());
          } else {
            expect([...got].sort()).toEqual([...snapshots.at(-1)!].sort());
            expect(replay.repaired).toBeUndefined();
          }
          // Refs handed out after replay never collide with replayed ones.
          const after = reopened.appender();
          const ref = after.append(seriesLabels(99), 20_000, 1);
          for (const s of await reopened.select([], 0, 1)) expect(s.ref).not.toBe(ref);
          expect(reopened.seriesByRef(ref)).toBeUndefined();
          await after.commit();
          expect(reopened.seriesByRef(ref)?.labels.equals(seriesLabels(99))).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('truncation drops old series and chunks, checkpoints the WAL, and reopens the same', async () => {
    const fs = new DiskFileSystem();
    const config: OpenHeadConfig = {
      chunkRange: 100_000,
      samplesPerChunk: 16,
      wal: { segmentSize: PAGE_SIZE },
    };
    const { head } = await open(fs, config);
    // Series 0..49 stop at t=50_000; series 50..99 go on to t=199_000.
    for (let step = 0; step < 200; step++) {
      const app = head.appender();
      const t = step * 1000;
      for (let i = 0; i < 100; i++)
        if (i >= 50 || t < 50_000) app.append(seriesLabels(i), t, i * t);
      await app.commit();
    }
    const segmentsBefore = await head.wal!.segments();
    expect(segmentsBefore.last - segmentsBefore.first).toBeGreaterThanOrEqual(4);

    const mint = 120_000;
    const result = await truncateHead(head, mint, { fs });
    expect(result.removedSeries).toBe(50);
    expect(head.seriesCount()).toBe(50);
    expect(head.minValidTime()).toBe(mint);
    expect(await head.labelValues('i')).toHaveLength(50);
    expect(result.checkpointedThrough).toBeDefined();
    expect((await listCheckpoints(walDir(DIR), { fs })).map((c) => c.index)).toEqual([
      result.checkpointedThrough,
    ]);
    expect((await head.wal!.segments()).first).toBe(result.checkpointedThrough! + 1);
    // Nothing before mint is accepted any more.
    expect(() => head.appender().append(seriesLabels(60), mint - 1, 1)).toThrow(/min valid=/);

    const before = await readAll(head, mint);
    const { head: reopened } = await open(fs, { ...config, minValidTime: mint });
    expect([...(await readAll(reopened, mint))].sort()).toEqual([...before].sort());
    expect(reopened.seriesCount()).toBe(50);
  });
});
