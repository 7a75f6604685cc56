/**
 * The compactor end to end on MinIO (issue 11), microservices mode: one distributor, three
 * ingesters (replication factor 3) on an etcd ring, a store-gateway, two queriers (one that
 * also asks the ingesters, one that never does for data older than an hour) and two
 * compactors sharding the tenants over their own ring in the same etcd. Each compactor talks
 * to MinIO through an S3 gate (integration/cluster/compaction.ts) so that one of them can be
 * caught in the middle of an upload.
 *
 * Three tenants push eight hours of samples from a day ago, 4h-aligned; the querier answers
 * from the ingesters and the answers are recorded. Each ingester flushes and ships one block
 * per 2h range and tenant: twelve per tenant, every range three times. With
 * `-compactor.block-ranges=2h,4h` the compactors merge each range's three replicas into one
 * de-duplicated block (level 2), then the first 4h range's two blocks into one (level 3); the
 * last 4h range stays as two level-2 blocks because its newer half is the tenant's newest
 * block, which Thanos's planner leaves alone. (The ingesters ship while the compactors run: a
 * replica that lands after its range's other two were merged adds a merge and a level, so the
 * levels are checked against the merges seen.) Every source is deletion-marked and, after
 * `-compactor.deletion-delay`, deleted.
 *
 * The first compaction upload is held by the gate after the output's chunks went in and
 * before its index: the compactor doing it is SIGKILLed there, leaving a partial block, and
 * started again. The bucket converges to the same end state, and the partial block goes once
 * `-compactor.partial-block-deletion-delay` has passed. promtool reads every compacted block;
 * the store-gateway alone answers every query exactly as the ingesters did.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlainSeries } from '../src/distributor/index.js';
import {
  minioView,
  tenantBlocks,
  type BucketView,
  type ShippedMeta,
} from './cluster/bucket-view.js';
import {
  BucketWatcher,
  blockDirs,
  startS3Gate,
  type BlockHistory,
  type S3Gate,
} from './cluster/compaction.js';
import {
  FAST_READ_PATH_FLAGS,
  StrataServer,
  expectedSamples,
  logHas,
  readBack,
  s3Flags,
  sampleDiff,
  syntheticSeries,
  waitUntil,
} from './cluster/long-term.js';
import { fetchRing } from './cluster/nodes.js';
import { strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { askPrometheus, type Answer, type Question } from './promql-differential/ask.js';
import { diffResults } from './promql-differential/results.js';
import { startEtcd, type EtcdService } from './services/etcd.js';
import { startMinio, type MinioService } from './services/minio.js';
import { ensureBuilt } from './strata-process.js';

const PROMTOOL = '/usr/bin/promtool';
const METRIC = 'compacted_samples';
const HOUR = 3_600_000;
const STEP = 60_000;
/** Eight hours, 4h-aligned, ending between 12 and 16 hours ago. */
const T0 = Math.floor((Date.now() - 20 * HOUR) / (4 * HOUR)) * 4 * HOUR;
const END = T0 + 8 * HOUR;
/** Series per tenant: different counts, so a block in the wrong tenant shows in its stats. */
const TENANTS: readonly { id: string; series: number }[] = [
  { id: 'tenant-a', series: 6 },
  { id: 'tenant-b', series: 9 },
  { id: 'tenant-c', series: 12 },
];
const PUSHED = new Map<string, PlainSeries[]>(
  TENANTS.map((t) => [t.id, syntheticSeries(METRIC, t.series, T0, END, STEP, {}, `${t.id}-`)]),
);
const EXPECTED = new Map([...PUSHED].map(([t, s]) => [t, expectedSamples(s)]));
/** Samples of one replica of a tenant's range of `hours` hours. */
const samplesIn = (tenant: string, hours: number): number =>
  (TENANTS.find((t) => t.id === tenant)?.series ?? 0) * ((hours * HOUR) / STEP);

/** The compacted blocks the bucket ends with, per tenant: [minTime, maxTime), level. */
const END_STATE: readonly { from: number; to: number; level: number }[] = [
  { from: T0, to: T0 + 4 * HOUR, level: 3 },
  { from: T0 + 4 * HOUR, to: T0 + 6 * HOUR, level: 2 },
  { from: T0 + 6 * HOUR, to: T0 + 8 * HOUR, level: 2 },
];

const QUESTIONS: readonly { query: string; q: Question }[] = [
  { query: `sum(${METRIC})`, q: { kind: 'range', start: T0, end: END - STEP, step: 300_000 } },
  {
    query: `count_over_time(${METRIC}[30m])`,
    q: { kind: 'range', start: T0 + 1_800_000, end: END, step: 1_800_000 },
  },
  { query: `max by (series) (${METRIC})`, q: { kind: 'instant', time: T0 + 3 * HOUR + 30_000 } },
  { query: `rate(${METRIC}[10m])`, q: { kind: 'range', start: T0, end: END, step: 600_000 } },
  // Across the 2h and 4h block boundaries, at every sample.
  {
    query: METRIC,
    q: { kind: 'range', start: T0 + 3.5 * HOUR, end: T0 + 4.5 * HOUR, step: STEP },
  },
  { query: METRIC, q: { kind: 'range', start: T0 + 1.9 * HOUR, end: T0 + 2.1 * HOUR, step: STEP } },
];

let etcd: EtcdService | undefined;
let minio: MinioService | undefined;
let view: BucketView;
let watcher: BucketWatcher | undefined;
let work: string | undefined;
const gates: S3Gate[] = [];
const nodes: StrataServer[] = [];
let distributor: StrataServer;
let ingesters: StrataServer[] = [];
let storeGateway: StrataServer;
/** Asks the ingesters too (the answers before any block exists). */
let querierLive: StrataServer;
/** `-querier.query-ingesters-within=1h`: day-old data comes from the store-gateway alone. */
let querierStore: StrataServer;
let compactors: StrataServer[] = [];

const outputs = (): string => nodes.map((n) => n.tail(3_000)).join('\n');

/** The gate catches the first PUT of a compacted block's index; resolves with it. */
let caught: Promise<{ gate: number; tenant: string; block: string }>;

beforeAll(async () => {
  ensureBuilt();
  work = await mkdtemp(join(tmpdir(), 'strata-compactor-'));
  etcd = await startEtcd();
  minio = await startMinio();
  const bucket = await minio.createBucket('compactor');
  view = minioView(minio, bucket);
  for (let i = 0; i < 2; i++) gates.push(await startS3Gate(minio.endpoint, bucket));
  caught = new Promise((resolve) => {
    let armed = true;
    gates.forEach((g, gate) => {
      g.hold = ({ method, object }) => {
        const m = /^([^/]+)\/([0-9A-HJKMNP-TV-Z]{26})\/index$/.exec(object);
        if (!armed || method !== 'PUT' || m === null) return false;
        armed = false;
        resolve({ gate, tenant: m[1]!, block: m[2]! });
        return true;
      };
    });
  });

  const common = [
    '-ring.store=etcd',
    `-etcd.endpoints=${etcd.endpoint}`,
    '-distributor.replication-factor=3',
    '-ring.heartbeat-timeout=10s',
    ...FAST_READ_PATH_FLAGS,
    // Sources marked for deletion drop out of the read path at once.
    '-experimental.tsdb.bucket-store.ignore-deletion-marks-delay=1s',
    '-auth.enabled=true',
  ];
  const start = async (name: string, args: string[]): Promise<StrataServer> => {
    const n = await StrataServer.start(name, [...args, ...common]);
    nodes.push(n);
    return n;
  };
  const direct = s3Flags(minio, bucket);
  ingesters = await Promise.all(
    [1, 2, 3].map((i) =>
      start(`ingester-${i}`, [
        '-target=ingester',
        ...direct,
        `-ingester.lifecycler.ID=ingester-${i}`,
        '-ingester.join-after=0s',
        '-ingester.min-ready-duration=0s',
        '-ingester.heartbeat-period=1s',
        '-log.level=warn',
      ]),
    ),
  );
  distributor = await start('distributor', ['-target=distributor', ...direct, '-log.level=warn']);
  storeGateway = await start('store-gateway', [
    '-target=store-gateway',
    ...direct,
    '-log.level=warn',
  ]);
  const querier = (name: string, extra: string[]): Promise<StrataServer> =>
    start(name, [
      '-target=querier',
      ...direct,
      '-experimental.tsdb.store-gateway-enabled=true',
      `-querier.store-gateway-addresses=${storeGateway.rpcAddress}`,
      '-log.level=warn',
      ...extra,
    ]);
  querierLive = await querier('querier-live', []);
  querierStore = await querier('querier-store', ['-querier.query-ingesters-within=1h']);
  compactors = await Promise.all(
    gates.map((g, i) =>
      start(`compactor-${i + 1}`, [
        '-target=compactor',
        ...s3Flags({ ...minio!, endpoint: g.endpoint }, bucket),
        '-compactor.sharding-enabled=true',
        '-compactor.ring.store=etcd',
        `-compactor.ring.etcd.endpoints=${etcd!.endpoint}`,
        `-compactor.ring.instance-id=compactor-${i + 1}`,
        '-compactor.ring.heartbeat-period=1s',
        '-compactor.ring.heartbeat-timeout=10s',
        '-compactor.ring.wait-stability-min-duration=0s',
        '-compactor.block-ranges=2h,4h',
        '-compactor.compaction-interval=2s',
        '-compactor.deletion-delay=4s',
        '-compactor.partial-block-deletion-delay=4s',
        '-log.level=info',
      ]),
    ),
  );
  await Promise.all(nodes.map((n) => n.waitReady(60_000)));
  watcher = new BucketWatcher(view);
  watcher.start();
}, 180_000);

afterAll(async () => {
  await watcher?.stop();
  await Promise.all(nodes.map((n) => n.dispose()));
  for (const g of gates) await g.close();
  await minio?.stop();
  await etcd?.stop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

/**
 * The level a compacted block must have given the blocks seen before it: one more than the
 * highest level among the blocks whose sources are a strict subset of its own (its inputs
 * and theirs). The ingesters ship while the compactors run, so a range's third replica can
 * arrive after its first two were merged; the chain is then one merge longer.
 */
function chainLevel(seen: readonly BlockHistory[], meta: ShippedMeta): number {
  const sources = new Set(meta.compaction?.sources ?? []);
  let below = 0;
  for (const h of seen) {
    const theirs = h.meta?.compaction?.sources ?? [];
    if (theirs.length === 0 || theirs.length >= sources.size) continue;
    if (theirs.every((s) => sources.has(s)))
      below = Math.max(below, h.meta?.compaction?.level ?? 0);
  }
  return below + 1;
}

/** Every question asked of one querier for one tenant. */
async function answers(querier: StrataServer, tenant: string): Promise<Answer[]> {
  const api = strataApi(querier.url, tenant);
  return Promise.all(QUESTIONS.map(({ query, q }) => askPrometheus(api, query, q)));
}

function answerDiff(before: readonly Answer[], after: readonly Answer[]): string[] {
  const out: string[] = [];
  before.forEach((a, i) => {
    const b = after[i];
    const what = QUESTIONS[i]?.query ?? '';
    if (b === undefined || !a.ok || !b.ok) {
      out.push(`${what}: ${JSON.stringify(a).slice(0, 200)} vs ${JSON.stringify(b).slice(0, 200)}`);
      return;
    }
    const d = diffResults(a.result, b.result, 'none', { relative: 0, absolute: 0 });
    if (d.length > 0) out.push(`${what}:\n  ${d.slice(0, 3).join('\n  ')}`);
  });
  return out;
}

const before = new Map<string, Answer[]>();
/** Level-1 blocks shipped by the ingesters, per tenant. */
const shipped = new Map<string, BlockHistory[]>();

describe('two sharded compactors on MinIO', () => {
  it('both compactors are ACTIVE in their ring', async () => {
    const rows = await waitUntil(
      'two ACTIVE compactors',
      async () => {
        const r = await fetchRing(`${compactors[0]!.url}/compactor/ring`);
        return r.length === 2 && r.every((x) => x.state === 'ACTIVE') ? r : undefined;
      },
      30_000,
      outputs,
    );
    expect(rows.map((r) => r.id).sort()).toEqual(['compactor-1', 'compactor-2']);
  });

  it('the ingesters answer every pushed sample; the answers are recorded', async () => {
    for (const { id } of TENANTS) {
      const res = await pushSeries(distributor.url, PUSHED.get(id)!, id);
      expect(res, outputs()).toEqual({ status: 200, text: '' });
    }
    for (const { id } of TENANTS) {
      const api = strataApi(querierLive.url, id);
      expect(sampleDiff(EXPECTED.get(id)!, await readBack(api, METRIC, T0, END))).toEqual([]);
      const got = await answers(querierLive, id);
      expect(got.filter((a) => !a.ok)).toEqual([]);
      before.set(id, got);
    }
    expect(await view.list()).toEqual([]);
  }, 60_000);

  it('each ingester ships one block per 2h range and tenant', async () => {
    await Promise.all(ingesters.map((i) => i.flush()));
    await watcher!.poll();
    for (const { id } of TENANTS) {
      const level1 = watcher!.of(id).filter((h) => h.meta?.compaction?.level === 1);
      shipped.set(id, level1);
      expect(level1).toHaveLength(12);
      const byIngester = new Map<string, number[]>();
      for (const h of level1) {
        const meta = h.meta!;
        expect(meta.stats?.numSamples).toBe(samplesIn(id, 2));
        expect(meta.thanos?.labels?.['__org_id__']).toBe(id);
        const ingester = meta.thanos?.labels?.['__ingester_id__'] ?? '';
        byIngester.set(ingester, [...(byIngester.get(ingester) ?? []), meta.minTime].sort());
      }
      const ranges = [0, 2, 4, 6].map((h) => T0 + h * HOUR);
      expect(Object.fromEntries(byIngester)).toEqual({
        'ingester-1': ranges,
        'ingester-2': ranges,
        'ingester-3': ranges,
      });
    }
  }, 60_000);

  it('SIGKILL in the middle of a compaction upload leaves a partial block', async () => {
    const hit = await Promise.race([
      caught,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error(`no compaction upload\n${outputs()}`)), 30_000),
      ),
    ]);
    const victim = compactors[hit.gate]!;
    expect(await victim.kill()).toBe('SIGKILL');
    // The output's chunks went in, its index was held: a block without meta.json.
    const objects = (await tenantBlocks(view, hit.tenant)).get(hit.block);
    expect(objects?.map((o) => o.name)).toEqual(['chunks/000001']);
    gates[hit.gate]!.hold = undefined;
    gates[hit.gate]!.dropHeld();
    victim.restart();
    await victim.waitReady(60_000);
  }, 60_000);

  it('the bucket converges: per tenant, one de-duplicated block per range, every source deleted', async () => {
    const hit = await caught;
    let seen = '';
    const settled = await waitUntil(
      'the end state in the bucket',
      async () => {
        await watcher!.poll();
        const dirs = blockDirs(await view.list());
        seen = JSON.stringify([...dirs], null, 1);
        const out = new Map<string, BlockHistory[]>();
        for (const { id } of TENANTS) {
          const now = dirs.get(id) ?? [];
          if (now.length !== END_STATE.length || now.some((d) => !d.complete || d.marked))
            return undefined;
          const metas = now.map((d) => watcher!.blocks.get(`${id}/${d.block}`)!);
          if (metas.some((h) => h.meta === undefined)) return undefined;
          out.set(id, metas);
        }
        return out;
      },
      120_000,
      () => `${seen}\n${outputs()}`,
    );
    for (const { id } of TENANTS) {
      const blocks = settled.get(id)!.map((h) => h.meta!);
      blocks.sort((a, b) => a.minTime - b.minTime);
      const sources = shipped.get(id)!;
      for (const [i, want] of END_STATE.entries()) {
        const meta = blocks[i]!;
        // The planned merges give the least level; a replica shipped after a compaction
        // pass had merged the other two adds one merge (and one level) to its range.
        expect(meta.compaction?.level ?? 0).toBeGreaterThanOrEqual(want.level);
        const from = sources.filter(
          (s) => s.meta!.minTime >= want.from && s.meta!.minTime < want.to,
        );
        expect(from).toHaveLength(((want.to - want.from) / (2 * HOUR)) * 3);
        expect({
          minTime: meta.minTime,
          maxTime: meta.maxTime,
          level: meta.compaction?.level,
          sources: [...(meta.compaction?.sources ?? [])].sort(),
          numSamples: meta.stats?.numSamples,
          numSeries: meta.stats?.numSeries,
          labels: meta.thanos?.labels,
          source: meta.thanos?.source,
        }).toEqual({
          minTime: want.from,
          // A merge spans its sources: the ingesters cut head blocks at range ends, except
          // the last one a flush cuts, which ends after its newest sample.
          maxTime: Math.max(...from.map((s) => s.meta!.maxTime)),
          level: chainLevel(watcher!.of(id), meta),
          sources: from.map((s) => s.block).sort(),
          // One replica's samples: the three copies were merged into one.
          numSamples: samplesIn(id, (want.to - want.from) / HOUR),
          numSeries: TENANTS.find((t) => t.id === id)?.series,
          labels: { __org_id__: id },
          source: 'compactor',
        });
      }
      // Every shipped block was deletion-marked before it went.
      const histories = watcher!.of(id);
      for (const s of sources) {
        const h = watcher!.blocks.get(`${id}/${s.block}`)!;
        expect({ block: s.block, marked: h.seenMarked, gone: h.gone }).toEqual({
          block: s.block,
          marked: true,
          gone: true,
        });
      }
      // Intermediate outputs (level 2 of the first 4h) went the same way.
      for (const h of histories) {
        if (settled.get(id)!.includes(h) || h.block === hit.block) continue;
        expect({ block: h.block, marked: h.seenMarked, gone: h.gone }).toEqual({
          block: h.block,
          marked: true,
          gone: true,
        });
      }
    }
    // The killed upload's partial block was cleaned too (it never got a meta.json): marked
    // and deleted by its tenant's cleaner once untouched for the partial-block delay.
    const partial = watcher!.blocks.get(`${hit.tenant}/${hit.block}`)!;
    expect({ partial: partial.seenPartial, meta: partial.meta, gone: partial.gone }).toEqual({
      partial: true,
      meta: undefined,
      gone: true,
    });
    expect(
      compactors.some((c) => logHas(c.tail(1_000_000), 'deleted partial block', hit.block)),
      outputs(),
    ).toBe(true);
    // No markers left either: nothing is waiting to be deleted.
    expect((await view.list()).filter((o) => o.name.includes('deletion-mark'))).toEqual([]);
  }, 150_000);

  it('each tenant is owned by exactly one compactor, which indexes its three blocks', async () => {
    await waitUntil(
      'one owner per tenant exporting its three blocks',
      async () => {
        for (const { id } of TENANTS) {
          const counts = await Promise.all(
            compactors.map((c) => c.metric('cortex_bucket_blocks_count', { user: id })),
          );
          const exported = counts.filter((n) => n !== undefined);
          if (exported.length !== 1 || exported[0] !== END_STATE.length) return undefined;
        }
        return true;
      },
      30_000,
      outputs,
    );
  }, 60_000);

  it('promtool analyzes, lists and dumps every compacted block as pushed', async () => {
    const promtool = (args: string[]): { status: number | null; stdout: string; stderr: string } =>
      spawnSync(PROMTOOL, ['tsdb', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    for (const { id, series } of TENANTS) {
      for (const [block, objects] of await tenantBlocks(view, id)) {
        const dir = join(work!, id, block);
        for (const o of objects) {
          const path = join(dir, block, o.name);
          await mkdir(dirname(path), { recursive: true });
          await writeFile(path, await view.get(`${id}/${block}/${o.name}`));
        }
        await mkdir(join(dir, 'wal'), { recursive: true });
        const meta = watcher!.blocks.get(`${id}/${block}`)!.meta!;

        const analyze = promtool(['analyze', dir, block]);
        expect(analyze.status, analyze.stderr).toBe(0);
        expect(analyze.stdout).toContain(`Block ID: ${block}`);
        expect(analyze.stdout).toContain(`Series: ${series}`);

        const list = promtool(['list', dir]);
        expect(list.status, list.stderr).toBe(0);
        const row = list.stdout
          .split('\n')
          .find((l) => l.startsWith(block))
          ?.split(/\t+| {2,}/);
        // BLOCK ULID, MIN TIME, MAX TIME, DURATION, NUM SAMPLES, NUM CHUNKS, NUM SERIES, SIZE
        expect(row?.slice(0, 3)).toEqual([block, String(meta.minTime), String(meta.maxTime)]);
        expect(Number(row?.[4])).toBe(meta.stats?.numSamples);
        expect(Number(row?.[6])).toBe(series);

        const dump = promtool(['dump', dir]);
        expect(dump.status, dump.stderr).toBe(0);
        const got = new Map<string, [number, number][]>();
        for (const line of dump.stdout.split('\n').filter((l) => l !== '')) {
          const m = /series="([^"]+)"\} (\S+) (-?\d+)$/.exec(line);
          if (m === null) throw new Error(`unexpected dump line: ${line}`);
          const list = got.get(m[1]!) ?? [];
          list.push([Number(m[3]), Number(m[2])]);
          got.set(m[1]!, list);
        }
        const want = new Map(
          [...EXPECTED.get(id)!].map(([k, v]) => [
            k,
            v.filter(([t]) => t >= meta.minTime && t < meta.maxTime),
          ]),
        );
        expect(sampleDiff(want, got)).toEqual([]);
      }
    }
  }, 60_000);

  it('the store-gateway alone answers exactly as the ingesters did before compaction', async () => {
    await waitUntil(
      'the store-gateway loads the compacted blocks only',
      async () =>
        (await storeGateway.metric('cortex_bucket_store_blocks_loaded')) ===
        TENANTS.length * END_STATE.length
          ? true
          : undefined,
      30_000,
      outputs,
    );
    const ingesterQueries = async (): Promise<number> =>
      (
        await Promise.all(ingesters.map((i) => i.metric('cortex_ingester_queries_total')))
      ).reduce<number>((a, b) => a + (b ?? 0), 0);
    const queriesBefore = await ingesterQueries();
    for (const { id } of TENANTS) {
      const api = strataApi(querierStore.url, id);
      // The store may still be settling: errors are retried, a wrong answer is not.
      const raw = await waitUntil('raw samples', () => readBack(api, METRIC, T0, END), 20_000);
      expect(sampleDiff(EXPECTED.get(id)!, raw)).toEqual([]);
      const after = await answers(querierStore, id);
      expect(answerDiff(before.get(id)!, after)).toEqual([]);
    }
    // None of it came from the ingesters (which still hold their shipped blocks).
    expect(await ingesterQueries()).toBe(queriesBefore);
    expect(queriesBefore).toBeGreaterThan(0);
  }, 60_000);
});
