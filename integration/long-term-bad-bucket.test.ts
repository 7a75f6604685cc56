/**
 * Acceptance (issue 10): bad input in the bucket is contained. A running single binary
 * (`npm start`'s configuration, auth enabled, filesystem bucket under ./data/blocks, short
 * read-path periods) serves tenant `team-a` from six blocks and `team-b` from two, all
 * from the bucket (the local disk was wiped after shipping). Then, in the bucket:
 *
 * - one block of team-a gets a corrupted meta.json: meta.json is read once, when the
 *   compactor first indexes a block, so the block keeps serving (also after a restart);
 *   a block that arrives with a corrupted meta.json is logged, counted and left out;
 * - another block of team-a gets its index truncated, a third loses its chunk file:
 *   queries touching either fail with the querier's consistency-check error naming the
 *   block (never a partial answer), the store-gateway logs and counts the block's failure,
 *   and after a restart with an empty disk the truncated block's index-header cannot be
 *   built (logged, counted, retried at every sync);
 * - team-b's bucket index is kept unreadable for a while: logged and counted, team-b's
 *   queries either answer in full or fail, team-a never notices, and team-b recovers once
 *   the compactor has rewritten its index.
 *
 * Throughout, every other block and tenant keeps answering exactly, and the process
 * stays up and ready.
 */
import { rm, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  completeBlocks,
  filesystemView,
  readBucketIndexDocument,
  readMeta,
  type BucketView,
  type ShippedMeta,
} from './cluster/bucket-view.js';
import {
  FAST_READ_PATH_FLAGS,
  NO_MERGING_COMPACTION_FLAGS,
  StrataServer,
  expectedSamples,
  npmStartCommand,
  pastWindow,
  readBack,
  sampleDiff,
  logHas,
  sleep,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { PrometheusApiError } from './services/prometheus.js';
import { ensureBuilt } from './strata-process.js';

const HOUR = 3_600_000;
const now = Date.now();
const A_WINDOW = pastWindow(now, 11, 1);
const B_WINDOW = pastWindow(now, 3, 1);
/** One hour inside a 2h range, 30 h ago: a single block for team-c. */
const C_FROM = Math.floor((now - 30 * HOUR) / (2 * HOUR)) * 2 * HOUR + 10 * 60_000;
const C_WINDOW = { from: C_FROM, to: C_FROM + HOUR };

const A_PUSH = syntheticSeries('lt_a', 4, A_WINDOW.from, A_WINDOW.to, 60_000);
const B_PUSH = syntheticSeries('lt_b', 3, B_WINDOW.from, B_WINDOW.to, 30_000);
// team-c's block becomes a bad upload in team-a's directory: same metric as team-a, at a
// time team-a has nothing else.
const C_PUSH = syntheticSeries('lt_a', 2, C_WINDOW.from, C_WINDOW.to, 60_000, {}, 'c');

let strata: StrataServer;
let view: BucketView;
const aBlocks: ShippedMeta[] = [];
let bBlocks: string[] = [];
let cBlock = '';

const api = (tenant: string): ReturnType<typeof strataApi> => strataApi(strata.url, tenant);
const within = (
  samples: Map<string, [number, number][]>,
  from: number,
  to: number,
): Map<string, [number, number][]> =>
  new Map([...samples].map(([k, v]) => [k, v.filter(([t]) => t >= from && t <= to)]));
const A_ALL = expectedSamples(A_PUSH);
const B_ALL = expectedSamples(B_PUSH);

/** Every sample of team-a's block `m` (its [minTime, maxTime)), read back and compared. */
async function blockDiff(m: ShippedMeta): Promise<string[]> {
  const found = await readBack(api('team-a'), 'lt_a', m.minTime, m.maxTime - 1);
  return sampleDiff(within(A_ALL, m.minTime, m.maxTime - 1), found);
}

/** The error a query over team-a's block `m` fails with (undefined if it answered). */
async function blockError(m: ShippedMeta): Promise<PrometheusApiError | undefined> {
  try {
    await readBack(api('team-a'), 'lt_a', m.minTime, m.maxTime - 1);
    return undefined;
  } catch (err) {
    if (err instanceof PrometheusApiError) return err;
    throw err;
  }
}

const bDiff = async (): Promise<string[]> =>
  sampleDiff(B_ALL, await readBack(api('team-b'), 'lt_b', B_WINDOW.from, B_WINDOW.to));

async function expectReady(): Promise<void> {
  expect(strata.running(), strata.tail()).toBe(true);
  expect((await fetch(`${strata.url}/ready`)).status).toBe(200);
}

/** Restarts with the local disk (TSDB, sync dir, compactor dir) wiped; the bucket stays. */
async function restartWithEmptyDisk(): Promise<void> {
  expect(await strata.stop()).toBe(0);
  for (const dir of ['tsdb', 'tsdb-sync', 'compactor'])
    await rm(join(strata.dataDir, dir), { recursive: true, force: true });
  strata.restart();
  await strata.waitReady(60_000);
}

beforeAll(async () => {
  ensureBuilt();
  const { nodeArgs, args } = npmStartCommand();
  strata = await StrataServer.start(
    'strata',
    [
      ...args,
      '-auth.enabled=true',
      ...FAST_READ_PATH_FLAGS,
      ...NO_MERGING_COMPACTION_FLAGS,
      '-log.level=warn',
      // The in-memory index cache (on by default, as in Cortex) would answer the truncated
      // block's postings and series from earlier queries, complete and correct; a cache
      // too small to hold anything makes every query read the block's index from disk.
      '-experimental.tsdb.bucket-store.index-cache.inmemory.max-size-bytes=1',
    ],
    { nodeArgs },
  );
  await strata.waitReady(30_000);
  view = filesystemView(join(strata.dataDir, 'blocks'));
  for (const [tenant, series] of [
    ['team-a', A_PUSH],
    ['team-b', B_PUSH],
    ['team-c', C_PUSH],
  ] as const) {
    const res = await pushSeries(strata.url, series, tenant);
    if (res.status !== 200) throw new Error(`push ${tenant}: ${res.status} ${res.text}`);
  }
  await strata.flush();
  const a = await completeBlocks(view, 'team-a');
  bBlocks = await completeBlocks(view, 'team-b');
  const c = await completeBlocks(view, 'team-c');
  if (a.length < 6 || bBlocks.length < 2 || c.length !== 1)
    throw new Error(`unexpected blocks: a=${a.length} b=${bBlocks.length} c=${c.length}`);
  cBlock = c[0]!;
  for (const b of a) aBlocks.push(await readMeta(view, 'team-a', b));
  aBlocks.sort((x, y) => x.minTime - y.minTime);
  const total = a.length + bBlocks.length + 1;
  await waitUntil(
    'every tenant indexed and every block loaded',
    async () => {
      for (const [t, n] of [
        ['team-a', a.length],
        ['team-b', bBlocks.length],
        ['team-c', 1],
      ] as const) {
        if ((await readBucketIndexDocument(view, t))?.blocks.length !== n) return undefined;
      }
      return (await strata.metric('cortex_bucket_store_blocks_loaded')) === total
        ? true
        : undefined;
    },
    20_000,
    () => strata.tail(),
  );
  // From now on the bucket is the only copy.
  await restartWithEmptyDisk();
}, 120_000);

afterAll(async () => {
  await strata?.dispose();
});

describe('bad input in the bucket of a running single binary', () => {
  it('serves both tenants from the bucket alone before anything breaks', async () => {
    expect(await strata.metric('cortex_ingester_memory_series')).toBe(0);
    expect(
      sampleDiff(A_ALL, await readBack(api('team-a'), 'lt_a', A_WINDOW.from, A_WINDOW.to)),
    ).toEqual([]);
    expect(await bDiff()).toEqual([]);
  });

  it('a corrupted meta.json of an indexed block changes nothing: the block keeps serving', async () => {
    const m = aBlocks[1]!;
    await view.put(`team-a/${m.ulid}/meta.json`, '{"ulid": "' + m.ulid + '", "minTime": ');
    await sleep(5_000); // two cleanups and store-gateway syncs
    expect(await blockDiff(m)).toEqual([]);
    expect(
      (await readBucketIndexDocument(view, 'team-a'))?.blocks.map((b) => b.block_id),
    ).toContain(m.ulid);
    await expectReady();
  }, 30_000);

  it('a block uploaded with a corrupted meta.json is logged, counted and left out; the rest serve', async () => {
    // team-c's block, copied into team-a's directory with a broken meta.json.
    for (const o of await view.list(`team-c/${cBlock}/`)) {
      const rel = o.name.slice(`team-c/${cBlock}/`.length);
      const data = rel === 'meta.json' ? '{"ulid": ' : await view.get(o.name);
      await view.put(`team-a/${cBlock}/${rel}`, data);
    }
    // The counter moves when the cleaner meets the block, the partials gauge when its run
    // ends: wait for both.
    await waitUntil(
      'the compactor counts the corrupted meta.json and the partial block',
      async () =>
        ((await strata.metric('strata_bucket_index_corrupted_block_metas_total', {
          user: 'team-a',
        })) ?? 0) >= 1 &&
        (await strata.metric('cortex_bucket_blocks_partials_count', { user: 'team-a' })) === 1
          ? true
          : undefined,
      15_000,
      () => strata.tail(),
    );
    expect(await strata.metric('cortex_bucket_blocks_count', { user: 'team-a' })).toBe(
      aBlocks.length,
    );
    expect(
      logHas(strata.output(), '"level":"error"', 'corrupted meta.json', cBlock),
      strata.tail(),
    ).toBe(true);
    // The store-gateway's blocks page names the problem.
    const page = await (await fetch(`${strata.url}/store-gateway/tenant/team-a/blocks`)).text();
    expect(page).toContain(cBlock);
    // Nothing else changed for team-a or team-b.
    for (const m of aBlocks) expect(await blockDiff(m), m.ulid).toEqual([]);
    expect(await bDiff()).toEqual([]);
    await expectReady();
  }, 40_000);

  it('a truncated index and a missing chunk file fail the queries touching them, naming the block', async () => {
    const truncated = aBlocks[2]!;
    const chunkless = aBlocks[3]!;
    const failuresBefore =
      (await strata.metric('strata_bucket_store_block_query_failures_total')) ?? 0;
    const checksBefore =
      (await strata.metric('cortex_querier_blocks_consistency_checks_failed_total')) ?? 0;
    const indexPath = join(strata.dataDir, 'blocks', 'team-a', truncated.ulid, 'index');
    const size = (await view.list(`team-a/${truncated.ulid}/index`))[0]!.size;
    await truncate(indexPath, Math.floor(size / 2));
    await view.remove(`team-a/${chunkless.ulid}/chunks/000001`);
    for (const broken of [truncated, chunkless]) {
      const err = await blockError(broken);
      expect(err, `query over ${broken.ulid} answered`).toBeInstanceOf(PrometheusApiError);
      expect(err!.httpStatus).toBe(500);
      expect(err!.error).toContain('consistency check failed because some blocks were not queried');
      expect(err!.error).toContain(broken.ulid);
      expect(
        logHas(strata.output(), '"level":"error"', 'block query failed', broken.ulid),
        strata.tail(),
      ).toBe(true);
    }
    // A query over everything fails the same way rather than answering without them.
    const all = await readBack(api('team-a'), 'lt_a', A_WINDOW.from, A_WINDOW.to).catch(
      (e: unknown) => e,
    );
    expect(all).toBeInstanceOf(PrometheusApiError);
    expect(
      (await strata.metric('strata_bucket_store_block_query_failures_total')) ?? 0,
    ).toBeGreaterThan(failuresBefore);
    expect(
      (await strata.metric('cortex_querier_blocks_consistency_checks_failed_total')) ?? 0,
    ).toBeGreaterThan(checksBefore);
    // The other blocks (the corrupted-meta one too) and the other tenant answer exactly.
    for (const m of [aBlocks[0]!, aBlocks[1]!, ...aBlocks.slice(4)])
      expect(await blockDiff(m), m.ulid).toEqual([]);
    expect(await bDiff()).toEqual([]);
    await expectReady();
  }, 60_000);

  it('an unreadable bucket index of team-b is logged and counted, never a partial answer, and heals', async () => {
    const loadFailuresBefore =
      (await strata.metric('cortex_bucket_index_load_failures_total')) ?? 0;
    const healthy = aBlocks[0]!;
    const stopAt = Date.now() + 8_000;
    // Kept unreadable against the compactor, which rewrites it at every cleanup.
    const corrupting = (async () => {
      while (Date.now() < stopAt) {
        await view.put('team-b/bucket-index.json.gz', 'not a gzip stream');
        await sleep(100);
      }
    })();
    const bAnswers = { full: 0, failed: 0, partial: [] as string[] };
    let sawCorrupted = 0;
    while (Date.now() < stopAt) {
      try {
        const diff = await bDiff();
        if (diff.length === 0) bAnswers.full++;
        else bAnswers.partial.push(diff.join('; '));
      } catch (err) {
        if (!(err instanceof PrometheusApiError)) throw err;
        expect(err.httpStatus).toBe(500);
        bAnswers.failed++;
      }
      expect(await blockDiff(healthy)).toEqual([]);
      await expectReady();
      sawCorrupted = Math.max(
        sawCorrupted,
        (await strata.metric('cortex_blocks_meta_synced', { state: 'corrupted-bucket-index' })) ??
          0,
      );
      await sleep(300);
    }
    await corrupting;
    expect(bAnswers.partial).toEqual([]);
    expect(bAnswers.full + bAnswers.failed).toBeGreaterThan(5);
    expect(
      (await strata.metric('strata_bucket_index_corrupted_total', { user: 'team-b' })) ?? 0,
    ).toBeGreaterThanOrEqual(1);
    expect(
      (await strata.metric('strata_bucket_index_corrupted_total', { user: 'team-a' })) ?? 0,
    ).toBe(0);
    // The readers met it too: the store-gateway's sync or the querier's refresh.
    const loadFailures = (await strata.metric('cortex_bucket_index_load_failures_total')) ?? 0;
    expect(loadFailures > loadFailuresBefore || sawCorrupted > 0).toBe(true);
    expect(strata.output()).toMatch(/"level":"(error|warn)".*team-b.*(corrupt|bucket index)/i);
    // The compactor rewrites the index; team-b answers in full again.
    await waitUntil(
      'team-b answers in full again',
      async () => ((await bDiff()).length === 0 ? true : undefined),
      20_000,
      () => strata.tail(),
    );
    await expectReady();
  }, 60_000);

  it('after a restart with an empty disk: the truncated block fails to load (counted, retried), the rest serve', async () => {
    const truncated = aBlocks[2]!;
    const chunkless = aBlocks[3]!;
    await restartWithEmptyDisk();
    const total = aBlocks.length + bBlocks.length + 1;
    // Every block loads but the one whose index-header cannot be built.
    expect(await strata.metric('cortex_bucket_store_blocks_loaded')).toBe(total - 1);
    const failures = (await strata.metric('cortex_bucket_store_block_load_failures_total')) ?? 0;
    expect(failures).toBeGreaterThanOrEqual(1);
    expect(logHas(strata.output(), '"level":"error"', truncated.ulid), strata.tail()).toBe(true);
    // Retried at every sync (2 s).
    await waitUntil(
      'the load is retried',
      async () =>
        ((await strata.metric('cortex_bucket_store_block_load_failures_total')) ?? 0) > failures
          ? true
          : undefined,
      15_000,
      () => strata.tail(),
    );
    for (const broken of [truncated, chunkless]) {
      const err = await blockError(broken);
      expect(err, `query over ${broken.ulid} answered`).toBeInstanceOf(PrometheusApiError);
      expect(err!.error).toContain(broken.ulid);
    }
    for (const m of [aBlocks[0]!, aBlocks[1]!, ...aBlocks.slice(4)])
      expect(await blockDiff(m), m.ulid).toEqual([]);
    expect(await bDiff()).toEqual([]);
    await expectReady();
  }, 90_000);
});
