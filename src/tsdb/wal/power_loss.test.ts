import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { PAGE_SIZE, WAL, listSegments, segmentName } from './index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';

const DIR = '/wal';

type Step = { kind: 'log'; records: Uint8Array[] } | { kind: 'sync' } | { kind: 'rotate' };

const smallRecord = fc.uint8Array({ maxLength: 300 });
/** Large records from a cheap generator: a seeded pattern, compressible or not. */
const largeRecord = fc
  .record({
    size: fc.integer({ min: 1, max: 3 * PAGE_SIZE }),
    seed: fc.integer({ min: 0, max: 255 }),
    flat: fc.boolean(),
  })
  .map(({ size, seed, flat }) => {
    const r = new Uint8Array(size);
    if (flat) r.fill(seed);
    else for (let i = 0; i < size; i++) r[i] = (i * 2654435761 + seed) >>> 24;
    return r;
  });
const record = fc.oneof(
  { arbitrary: smallRecord, weight: 4 },
  { arbitrary: largeRecord, weight: 1 },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc
      .array(record, { minLength: 1, maxLength: 4 })
      .map((records) => ({ kind: 'log' as const, records })),
    weight: 6,
  },
  { arbitrary: fc.constant({ kind: 'sync' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'rotate' as const }), weight: 1 },
);

function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.length).equals(
    Buffer.from(b.buffer, b.byteOffset, b.length),
  );
}

describe('WAL power loss', () => {
  it('recovers exactly the synced prefix (plus maybe later complete records) after a power loss at any point', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 25 }),
        fc.record({
          compress: fc.boolean(),
          pages: fc.integer({ min: 1, max: 4 }),
          tear: fc.boolean(),
          garble: fc.boolean(),
          seed: fc.string({ maxLength: 8 }),
        }),
        async (steps, opts) => {
          const fs = new DiskFileSystem();
          const logger = new CapturingLogger();
          const config = { compress: opts.compress, segmentSize: opts.pages * PAGE_SIZE };
          const wal = await WAL.open(DIR, config, { fs, logger });
          const logged: Uint8Array[] = [];
          let synced = 0;
          for (const s of steps) {
            if (s.kind === 'log') {
              await wal.log(...s.records);
              logged.push(...s.records);
            } else if (s.kind === 'sync') {
              await wal.sync();
              synced = logged.length;
            } else {
              await wal.nextSegment();
              // Rotation syncs the finished segment, but nothing promises more than that.
            }
          }

          // Power loss: the simulator's disk keeps only synced bytes, plus (when tearing) a
          // random prefix of the unsynced appends, which we may then overwrite with garbage.
          const durableSizes = new Map<string, number>();
          for (const ref of await listSegments(fs, DIR)) {
            const path = `${DIR}/${ref.name}`;
            durableSizes.set(path, fs.disk.readDurable(path)?.length ?? 0);
          }
          const random = createSeededRandom(`power-loss/${opts.seed}`);
          fs.disk.powerLoss(opts.tear ? random.stream('tear') : undefined);
          if (opts.garble) {
            const garbage = random.stream('garbage');
            for (const [path, durable] of durableSizes) {
              const stat = await fs.stat(path);
              if (stat === undefined || stat.size <= durable) continue;
              const h = await fs.open(path, 'r+');
              const at = durable + garbage.int(stat.size - durable);
              await h.write(at, garbage.bytes(Math.min(1 + garbage.int(64), stat.size - at)));
              await h.close();
            }
          }

          const reopened = await WAL.open(DIR, config, { fs, logger });
          const recovered: Uint8Array[] = [];
          await reopened.replay((r) => void recovered.push(r));
          expect(recovered.length).toBeGreaterThanOrEqual(synced);
          expect(recovered.length).toBeLessThanOrEqual(logged.length);
          for (let i = 0; i < recovered.length; i++) {
            if (!same(recovered[i]!, logged[i]!))
              throw new Error(
                `record ${i} differs after recovery (${recovered[i]!.length} bytes vs ${logged[i]!.length})`,
              );
          }

          // The repaired WAL is clean and writable: a new record lands after the recovered ones.
          const marker = Uint8Array.of(0xab, 0xcd);
          await reopened.log(marker);
          await reopened.close();
          const again = await WAL.open(DIR, config, { fs, logger });
          const second: Uint8Array[] = [];
          const result = await again.replay((r) => void second.push(r));
          expect(result.repaired).toBeUndefined();
          expect(second.length).toBe(recovered.length + 1);
          expect(same(second[second.length - 1]!, marker)).toBe(true);
          await again.close();
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps every synced record when power is lost right after a sync', async () => {
    const fs = new DiskFileSystem();
    const logger = new CapturingLogger();
    const wal = await WAL.open(DIR, { segmentSize: PAGE_SIZE }, { fs, logger });
    const records = Array.from({ length: 40 }, (_, i) => new Uint8Array(3000 + i).fill(i));
    for (const r of records) await wal.log(r);
    await wal.sync();
    fs.disk.powerLoss(undefined);
    const reopened = await WAL.open(DIR, { segmentSize: PAGE_SIZE }, { fs, logger });
    const seen: Uint8Array[] = [];
    const result = await reopened.replay((r) => void seen.push(r));
    expect(result.repaired).toBeUndefined();
    expect(seen).toEqual(records);
    expect(reopened.currentSegment).toBeGreaterThan(1);
    expect(await fs.exists(`${DIR}/${segmentName(reopened.currentSegment)}`)).toBe(true);
  });
});
