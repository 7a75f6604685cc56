/**
 * Long-term storage round trip on the GCS emulator (fake-gcs-server, reached through
 * STORAGE_EMULATOR_HOST) and on Azure's (azurite, reached with an IP `endpoint_suffix`): the
 * single binary with `npm start`'s configuration on that bucket takes a remote-write push
 * of several hours of samples, `/ingester/flush` cuts and ships them (every block complete
 * in the bucket, the compactor's bucket index lists them, the store-gateway loads them);
 * then the process stops, its whole local data directory is wiped, and it starts again on
 * the same bucket: as soon as it is ready it answers with every pushed sample exactly once,
 * now from the store-gateway alone (the ingester holds nothing).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completeBlocks,
  readBucketIndexDocument,
  type BucketView,
  azureView,
  gcsView,
} from './cluster/bucket-view.js';
import {
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  azureFlags,
  expectedSamples,
  gcsFlags,
  listTree,
  npmStartCommand,
  pastWindow,
  readBack,
  sampleDiff,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { startAzurite, type AzuriteService } from './services/azurite.js';
import { startFakeGcs, type FakeGcsService } from './services/fake_gcs.js';
import { ensureBuilt } from './strata-process.js';

/** `auth_enabled: false` in the single-process configuration: everything is tenant `fake`. */
const TENANT = 'fake';
const METRIC = 'lt_roundtrip';

interface Backend {
  readonly flags: string[];
  readonly env: Record<string, string>;
  readonly view: BucketView;
}

beforeAll(() => ensureBuilt(), 300_000);

function roundTrip(name: string, open: () => Promise<Backend>, close: () => Promise<void>): void {
  describe(`push, flush, wipe the local disk, restart: ${name}`, () => {
    let backend: Backend;
    let strata: StrataServer | undefined;
    let cwd: string | undefined;
    const now = Date.now();
    // Seven hours ending three hours ago (four 2h block ranges), one sample a minute, and
    // the last ten minutes every 15 s (the head's newest block).
    const old = pastWindow(now, 7, 3);
    const pushed = [
      ...syntheticSeries(METRIC, 8, old.from, old.to, 60_000, { part: 'old' }, 'old-'),
      ...syntheticSeries(METRIC, 4, now - 600_000, now - 1_000, 15_000, { part: 'recent' }, 'new-'),
    ];
    const expected = expectedSamples(pushed);
    const read = (): Promise<Map<string, [number, number][]>> =>
      readBack(strataApi(strata!.url), METRIC, old.from, now);
    let blocks: string[] = [];

    beforeAll(async () => {
      backend = await open();
      cwd = await mkdtemp(join(tmpdir(), `strata-lt-${name}-`));
      const { nodeArgs, args } = npmStartCommand();
      strata = await StrataServer.start(
        name,
        [
          ...args,
          ...backend.flags,
          ...FAST_READ_PATH_FLAGS,
          ...NO_MERGING_COMPACTION_FLAGS,
          // The ingester keeps its copies for the whole test (the old data is older than
          // the default 6h): long-term-retention.test.ts covers their deletion.
          '-experimental.tsdb.retention-period=24h',
          '-log.level=warn',
        ],
        { cwd, env: backend.env, nodeArgs },
      );
      await strata.waitReady(30_000);
    }, 60_000);

    afterAll(async () => {
      await strata?.dispose();
      if (cwd !== undefined) await rm(cwd, { recursive: true, force: true });
      await close();
    });

    it('accepts the push and answers every sample from the ingester', async () => {
      const res = await pushSeries(strata!.url, pushed);
      expect(res, strata!.tail()).toEqual({ status: 200, text: '' });
      expect(sampleDiff(expected, await read())).toEqual([]);
    });

    it('flush ships every block, meta.json included, and the bucket index lists them', async () => {
      await strata!.flush();
      blocks = await completeBlocks(backend.view, TENANT);
      // Four 2h ranges of old data and the recent one.
      expect(blocks.length).toBeGreaterThanOrEqual(5);
      expect(await strata!.metric('cortex_ingester_shipper_uploads_total')).toBe(blocks.length);
      expect(await strata!.metric('cortex_ingester_shipper_upload_failures_total')).toBe(0);
      const objects = await backend.view.list(`${TENANT}/`);
      for (const b of blocks) {
        const names = objects.filter((o) => o.name.startsWith(`${TENANT}/${b}/`));
        expect(names.map((o) => o.name.slice(`${TENANT}/${b}/`.length)).sort()).toEqual([
          'chunks/000001',
          'index',
          'meta.json',
        ]);
      }
      await waitUntil(
        'bucket index lists every shipped block',
        async () => {
          const idx = await readBucketIndexDocument(backend.view, TENANT);
          const ids = new Set(idx?.blocks.map((b) => b.block_id));
          return blocks.every((b) => ids.has(b)) ? true : undefined;
        },
        20_000,
        () => strata!.tail(),
      );
      await waitUntil(
        'store-gateway loads every block',
        async () =>
          (await strata!.metric('cortex_bucket_store_blocks_loaded')) === blocks.length
            ? true
            : undefined,
        20_000,
        () => strata!.tail(),
      );
      // Ingester blocks and the same blocks from the store-gateway: still every sample once.
      expect(sampleDiff(expected, await read())).toEqual([]);
    }, 60_000);

    it('after a restart with an empty local disk answers the same from the bucket alone', async () => {
      const s = strata!;
      expect(await s.stop()).toBe(0);
      const before = await listTree(s.dataDir);
      for (const dir of ['tsdb/', 'tsdb-sync/', 'compactor/'])
        expect(before, `./data holds ${dir}`).toContain(dir);
      await rm(s.dataDir, { recursive: true, force: true });
      s.restart();
      await s.waitReady(60_000);
      // Right when it is ready, not "eventually".
      expect(sampleDiff(expected, await read()), s.tail()).toEqual([]);
      expect(await s.metric('cortex_ingester_memory_series')).toBe(0);
      expect(await s.metric('cortex_bucket_store_blocks_loaded')).toBe(blocks.length);
      const values = await strataApi(s.url).labelValues('part', old.from, now);
      expect(values).toEqual(['old', 'recent']);
      const series = await strataApi(s.url).series([`${METRIC}{part="recent"}`], old.from, now);
      expect(series).toHaveLength(4);
      // The ingester wrote nothing new to the bucket.
      expect(await completeBlocks(backend.view, TENANT)).toEqual(blocks);
    }, 90_000);
  });
}

let gcs: FakeGcsService | undefined;
roundTrip(
  'gcs',
  async () => {
    gcs = await startFakeGcs();
    const bucket = await gcs.createBucket('lt');
    return {
      flags: gcsFlags(bucket),
      env: { STORAGE_EMULATOR_HOST: gcs.url },
      view: gcsView(gcs.url, bucket),
    };
  },
  async () => gcs?.stop(),
);

let azurite: AzuriteService | undefined;
roundTrip(
  'azure',
  async () => {
    azurite = await startAzurite();
    const container = await azurite.createContainer('lt');
    return { flags: azureFlags(azurite, container), env: {}, view: azureView(azurite, container) };
  },
  async () => azurite?.stop(),
);
