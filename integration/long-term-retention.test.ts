/**
 * Acceptance (issue 10): data older than the ingester's retention period stays queryable
 * with `npm start`'s configuration (filesystem bucket under the working directory's
 * ./data, the default read-path periods) once the ingester has let its local blocks go.
 *
 * A fresh tenant's first samples are accepted at any past time, so one push brings five
 * hours of samples that end four hours ago, plus the last ten minutes. With
 * `-experimental.tsdb.retention-period=3h` (it must exceed the 2h block range) the
 * ingester deletes a block once it is shipped, `now - maxTime >= 3h`, and queriers can find
 * it in the bucket (listed in the bucket index for 3 bucket-store sync intervals, the
 * index's update-on-error interval and a minute): `/ingester/flush` cuts and ships every block, the compactor's cleaner indexes
 * them, and a later head compaction deletes the old ones from ./data/tsdb/fake/ while
 * ./data/blocks/fake/ keeps them. Every query in between and afterwards must still return
 * every sample exactly once. The head compaction, ship and update-on-error periods (5 s
 * instead of 1m), cleanup and sync periods (5 s instead of 15m and 5m) are shortened only so the deletion happens within
 * the test (about a minute and a half instead of half an hour). The compactor keeps only the
 * 2h range (NO_MERGING_COMPACTION_FLAGS) because the test counts blocks: with the default
 * 12h and 24h ranges, whenever the old blocks straddle 00:00 or 12:00 UTC (or the recent
 * ten minutes straddle an even hour), its first run, a random 0–6 min after start, can fall
 * inside the test and merge old blocks: the bucket and the store-gateway then hold a block
 * the ingester never shipped.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeBlocks, filesystemView, readMeta } from './cluster/bucket-view.js';
import {
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  expectedSamples,
  npmStartCommand,
  pastWindow,
  readBack,
  sampleDiff,
  sleep,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'fake';
const METRIC = 'lt_retention';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

const now = Date.now();
const old = pastWindow(now, 5, 4);
const pushed = [
  ...syntheticSeries(METRIC, 6, old.from, old.to, 30_000, { part: 'old' }, 'old-'),
  ...syntheticSeries(METRIC, 3, now - 600_000, now - 1_000, 10_000, { part: 'recent' }, 'new-'),
];
const expected = expectedSamples(pushed);

let strata: StrataServer;
const read = (): Promise<Map<string, [number, number][]>> =>
  readBack(strataApi(strata.url), METRIC, old.from, now);
const localBlocks = async (): Promise<string[]> =>
  (await readdir(join(strata.dataDir, 'tsdb', TENANT)).catch(() => [])).filter((n) => ULID.test(n));
const bucket = (): ReturnType<typeof filesystemView> =>
  filesystemView(join(strata.dataDir, 'blocks'));

beforeAll(async () => {
  ensureBuilt();
  const { nodeArgs, args } = npmStartCommand();
  strata = await StrataServer.start(
    'strata',
    [
      ...args,
      '-experimental.tsdb.retention-period=3h',
      '-experimental.tsdb.head-compaction-interval=5s',
      '-compactor.cleanup-interval=5s',
      '-experimental.tsdb.bucket-store.sync-interval=5s',
      '-experimental.tsdb.ship-interval=5s',
      '-experimental.tsdb.bucket-store.bucket-index.update-on-error-interval=5s',
      ...NO_MERGING_COMPACTION_FLAGS,
      '-log.level=info',
    ],
    { nodeArgs },
  );
  await strata.waitReady(30_000);
}, 300_000);

afterAll(async () => {
  await strata?.dispose();
});

describe('npm start configuration: samples older than the retention period', () => {
  let shipped: string[] = [];
  /** When the ingester was seen without its old blocks, and the blocks it kept. */
  let deletedAt = 0;
  let kept: string[] = [];
  /** Answers read between the flush and a few seconds after the local deletion. */
  const incomplete: string[] = [];
  let answers = 0;

  it('accepts a fresh tenant’s samples from hours ago and answers each once', async () => {
    const res = await pushSeries(strata.url, pushed);
    expect(res, strata.tail()).toEqual({ status: 200, text: '' });
    expect(sampleDiff(expected, await read())).toEqual([]);
  });

  it('flush ships every block to ./data/blocks, then the old ones leave ./data/tsdb', async () => {
    await strata.flush();
    shipped = await completeBlocks(bucket(), TENANT);
    // Three 2h ranges of old data (five hours never fit in fewer) and the recent one.
    expect(shipped.length).toBeGreaterThanOrEqual(4);
    expect((await localBlocks()).sort()).toEqual(shipped);
    // The blocks retention lets go: shipped, max time at least 3h before now. The others
    // (the recent block, and the old range that ends less than 3h ago) stay.
    const metas = await Promise.all(shipped.map((b) => readMeta(bucket(), TENANT, b)));
    const doomed = metas.filter((m) => Date.now() - m.maxTime >= 3 * 3_600_000).map((m) => m.ulid);
    const staying = shipped.filter((b) => !doomed.includes(b));
    expect(doomed.length).toBeGreaterThanOrEqual(2);
    expect(staying.length).toBeGreaterThanOrEqual(1);
    // Keep asking while the ingester waits for queriers to find the blocks, deletes its
    // copies, and a little after.
    const end = Date.now() + 200_000;
    while (Date.now() < end) {
      if (deletedAt === 0 && (await localBlocks()).length < shipped.length) deletedAt = Date.now();
      const found = await read();
      answers++;
      const diff = sampleDiff(expected, found, 2);
      if (diff.length > 0) {
        const when =
          deletedAt === 0 ? 'before the deletion' : `${Date.now() - deletedAt} ms after it began`;
        incomplete.push(`${when}: ${diff.join('; ')}`);
      }
      if (deletedAt !== 0 && Date.now() - deletedAt > 3_000) break;
      await sleep(250);
    }
    expect(deletedAt, `no block left ./data/tsdb/${TENANT}\n${strata.tail()}`).toBeGreaterThan(0);
    // Give a deletion in progress time to finish before looking again.
    await waitUntil(
      'the ingester deletes exactly the shipped blocks past the retention period',
      async () =>
        (kept = (await localBlocks()).sort()).length === staying.length ? true : undefined,
      10_000,
      () => strata.tail(),
    );
    expect(kept).toEqual(staying);
    // The bucket still has all of them.
    expect(await completeBlocks(bucket(), TENANT)).toEqual(shipped);
    expect(strata.output()).toContain('block deleted by retention');
  }, 260_000);

  it('answers every sample exactly once while and after the ingester deletes its copies', () => {
    expect(answers).toBeGreaterThan(5);
    expect(incomplete.slice(0, 5), `${incomplete.length} of ${answers} answers incomplete`).toEqual(
      [],
    );
  });

  it('answers every sample exactly once after a restart (from the bucket and the kept block)', async () => {
    expect(await strata.stop()).toBe(0);
    strata.restart();
    await strata.waitReady(60_000);
    expect(sampleDiff(expected, await read()), strata.tail()).toEqual([]);
    expect(await strata.metric('cortex_bucket_store_blocks_loaded')).toBe(shipped.length);
    expect(await localBlocks()).toEqual(kept);
  }, 90_000);
});
