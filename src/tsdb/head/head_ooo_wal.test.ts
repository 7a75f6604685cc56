import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom, newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { RecordType, decodeSamples, decodeSeries, recordType } from '../record/index.js';
import { readRecords } from '../wal/index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';
import { Head, walDir, wblDir, type OpenHeadConfig } from './index.js';
import {
  fromBits,
  readAll,
  seriesLabels,
  staleNaN,
  toBits,
  type ReadSample,
} from './testing/helpers.js';

const DIR = '/data/tenant';

async function open(fs: DiskFileSystem, config: OpenHeadConfig = {}) {
  return Head.open(DIR, config, {
    fs,
    logger: new CapturingLogger(),
    metrics: newMetricsRegistry(),
  });
}

async function records(fs: DiskFileSystem, dir: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const r of readRecords(dir, {}, { fs })) out.push(r);
  return out;
}

/** Every sample as `labels t bits`, for set comparisons. */
function flatten(samples: Map<string, ReadSample[]>): Set<string> {
  const out = new Set<string>();
  for (const [labels, list] of samples) for (const s of list) out.add(`${labels} ${s.t} ${s.bits}`);
  return out;
}

describe('head write-behind log', () => {
  it('logs out-of-order samples to wbl/ and in-order ones (and new series) to wal/', async () => {
    const fs = new DiskFileSystem();
    // In order means at or after 20_000 − 5_000 for a series without newer samples.
    const { head } = await open(fs, { chunkRange: 10_000, outOfOrderTimeWindow: 10_000 });
    const app = head.appender();
    const ref = app.append(seriesLabels(1), 20_000, 1);
    await app.commit();
    const ooo = head.appender();
    ooo.append(ref, 12_000, staleNaN());
    ooo.append(ref, 21_000, 2);
    const onlyOOO = ooo.append(seriesLabels(2), 11_000, 3); // a new series, out of order
    await ooo.commit();
    const wal = await records(fs, walDir(DIR));
    expect(wal.map(recordType)).toEqual([
      RecordType.Series,
      RecordType.Samples,
      RecordType.Series,
      RecordType.Samples,
    ]);
    expect(decodeSeries(wal[2]!)).toEqual([{ ref: onlyOOO, labels: seriesLabels(2) }]);
    const inOrder = decodeSamples(wal[3]!);
    expect([...inOrder.timestamps.subarray(0, inOrder.length)]).toEqual([21_000]);
    const wbl = await records(fs, wblDir(DIR));
    expect(wbl.map(recordType)).toEqual([RecordType.Samples]);
    const oooSamples = decodeSamples(wbl[0]!);
    expect([...oooSamples.refs.subarray(0, oooSamples.length)]).toEqual([ref, onlyOOO]);
    expect([...oooSamples.timestamps.subarray(0, oooSamples.length)]).toEqual([12_000, 11_000]);
    expect(oooSamples.valueBits(0)).toBe(toBits(staleNaN()));
  });

  it('creates no wbl/ while the window is 0, and creates it on the first out-of-order commit', async () => {
    const fs = new DiskFileSystem();
    const { head } = await open(fs);
    const app = head.appender();
    const ref = app.append(seriesLabels(1), 20_000, 1);
    await app.commit();
    expect(await fs.exists(wblDir(DIR))).toBe(false);
    head.setOutOfOrderTimeWindow(10_000);
    const ooo = head.appender();
    ooo.append(ref, 15_000, 2);
    await ooo.commit();
    await head.sync();
    expect(await fs.exists(wblDir(DIR))).toBe(true);
    await head.close();
    // Reopened with the window back at 0: the WBL exists, so it is replayed.
    const { head: reopened, replay } = await open(fs);
    expect(replay.oooSamples).toBe(1);
    expect((await readAll(reopened)).get(seriesLabels(1).toString())).toEqual([
      { t: 15_000, bits: toBits(2) },
      { t: 20_000, bits: toBits(1) },
    ]);
  });

  it('replays WAL then WBL after a crash or power loss: every synced sample, nothing uncommitted', async () => {
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
          dt: fc.integer({ min: -3000, max: 1000 }),
          bits: fc.constantFrom(toBits(1.5), toBits(staleNaN()), 0x7ff8000000000123n),
        }),
        weight: 8,
      },
      { arbitrary: fc.constant({ kind: 'commit' as const }), weight: 3 },
      { arbitrary: fc.constant({ kind: 'rollback' as const }), weight: 1 },
      { arbitrary: fc.constant({ kind: 'sync' as const }), weight: 1 },
    );
    const config: OpenHeadConfig = {
      chunkRange: 4000,
      samplesPerChunk: 8,
      outOfOrderTimeWindow: 2500,
      outOfOrderCapMax: 3,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 10, maxLength: 120 }),
        fc.constantFrom('crash', 'power-loss', 'torn-power-loss'),
        fc.integer({ min: 0, max: 1000 }),
        async (steps, fault, seed) => {
          const fs = new DiskFileSystem();
          const { head } = await open(fs, config);
          const snapshots = [await readAll(head)];
          let synced = 0;
          let app = head.appender();
          let clock = 10_000;
          for (const s of steps) {
            if (s.kind === 'append') {
              const t = Math.max(0, clock + s.dt);
              clock = Math.max(clock, t);
              try {
                app.append(seriesLabels(s.series), t, fromBits(s.bits));
              } catch {
                // rejections are covered by the appender tests
              }
            } else if (s.kind === 'sync') {
              await head.sync();
              synced = snapshots.length - 1;
            } else {
              if (s.kind === 'commit') {
                await app.commit();
                snapshots.push(await readAll(head));
              } else app.rollback();
              app = head.appender();
            }
          }
          if (fault !== 'crash') {
            const tearing =
              fault === 'torn-power-loss'
                ? createSeededRandom(`head-ooo-power-loss/${seed}`).stream('tear')
                : undefined;
            fs.disk.powerLoss(tearing);
          }
          const { head: reopened } = await open(fs, config);
          const got = flatten(await readAll(reopened));
          if (fault === 'crash') {
            expect(got).toEqual(flatten(snapshots.at(-1)!));
          } else {
            for (const s of flatten(snapshots[synced]!)) expect(got).toContain(s);
            const committed = flatten(snapshots.at(-1)!);
            for (const s of got) expect(committed).toContain(s);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
