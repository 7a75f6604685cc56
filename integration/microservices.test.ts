/**
 * Microservices mode end to end (issue 5, Processes): Debian's etcd holds the ingester ring;
 * three ingesters (replication factor 3), one distributor and one querier run as separate
 * processes on loopback. Under remote-write load one ingester is SIGKILLed; pushes keep
 * succeeding on the quorum of two, and every acknowledged sample is read back through the
 * querier exactly once with its value. The killed ingester restarts on the same directory
 * and ID, rejoins ACTIVE with its WAL replayed, and answers queries (shown by killing another
 * ingester afterwards: the querier's quorum then needs it). Also checked: READONLY mode,
 * flush, and the user-stats pages.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteWriteLoad } from './cluster/load.js';
import { StrataNode, fetchRing, waitForRing, type RingRow } from './cluster/nodes.js';
import { rawSamples, strataApi } from './cluster/query.js';
import { pushSeries } from './cluster/remote-write.js';
import { startEtcd, type EtcdService } from './services/etcd.js';
import { PrometheusApiError } from './services/prometheus.js';
import { ensureBuilt } from './strata-process.js';

const TENANT = 'team-a';
const METRIC = 'e2e_load_samples';
const WORKERS = 4;
const SERIES_PER_WORKER = 25;
const SERIES = WORKERS * SERIES_PER_WORKER;
const HEARTBEAT_TIMEOUT_S = 8;

let etcd: EtcdService | undefined;
let dataDir: string;
const ingesters: StrataNode[] = [];
let distributor: StrataNode;
let querier: StrataNode;
/** Every node started, in start order (also those of a failed setup, for afterAll). */
const everyNode: StrataNode[] = [];
const allNodes = (): StrataNode[] => everyNode;
const startNode = async (name: string, args: string[]): Promise<StrataNode> => {
  const node = await StrataNode.start(name, args);
  everyNode.push(node);
  return node;
};
const outputs = (): string =>
  allNodes()
    .map((n) => n.output())
    .join('\n');

const ringUrl = (): string => `${distributor.url}/ingester/ring`;
const allActive =
  (n: number) =>
  (rows: RingRow[]): boolean =>
    rows.length === n && rows.every((r) => r.state === 'ACTIVE' && r.health === 'HEALTHY');

const load = (): RemoteWriteLoad =>
  new RemoteWriteLoad({
    url: distributor.url,
    tenant: TENANT,
    metric: METRIC,
    workers: WORKERS,
    seriesPerWorker: SERIES_PER_WORKER,
    pauseMs: 5,
  });
let ledger: RemoteWriteLoad;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Reads back every sample of the load metric and compares with the ledger. */
async function checkLedger(): Promise<void> {
  const at = ledger.maxAckedTimestamp() + 1_000;
  const found = await rawSamples(strataApi(querier.url, TENANT), METRIC, at, 10 * 60_000, 'series');
  const result = ledger.check(found);
  expect(
    result.missing.slice(0, 10),
    `${result.missing.length} acknowledged samples missing`,
  ).toEqual([]);
  expect(result.duplicated.slice(0, 10)).toEqual([]);
  expect(result.phantom.slice(0, 10)).toEqual([]);
  expect(found.size).toBe(SERIES);
  expect(result.found).toBeGreaterThanOrEqual(result.acknowledged);
}

async function ingesterStats(node: StrataNode): Promise<{ userID: string; numSeries: number }[]> {
  const res = await fetch(`${node.url}/ingester/all_user_stats`, {
    headers: { Accept: 'application/json' },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { userID: string; numSeries: number }[];
}

beforeAll(async () => {
  ensureBuilt();
  dataDir = await mkdtemp(join(tmpdir(), 'strata-micro-'));
  etcd = await startEtcd();
  const common = [
    '-ring.store=etcd',
    `-etcd.endpoints=${etcd.endpoint}`,
    '-ring.prefix=e2e-micro/',
    '-distributor.replication-factor=3',
    `-ring.heartbeat-timeout=${HEARTBEAT_TIMEOUT_S}s`,
    // Every process that ships or reads blocks needs the same bucket.
    '-experimental.tsdb.backend=filesystem',
    `-experimental.tsdb.filesystem.dir=${join(dataDir, 'blocks')}`,
    '-log.level=warn',
  ];
  const started = await Promise.all([
    ...[1, 2, 3].map((i) =>
      startNode(`ingester-${i}`, [
        '-target=ingester',
        ...common,
        `-ingester.lifecycler.ID=ingester-${i}`,
        `-experimental.tsdb.dir=${join(dataDir, `ingester-${i}`)}`,
        '-ingester.heartbeat-period=1s',
        '-ingester.join-after=0s',
        '-ingester.min-ready-duration=0s',
      ]),
    ),
    startNode('distributor', ['-target=distributor', ...common]),
    startNode('querier', [
      '-target=querier',
      ...common,
      // The querier reads the bucket itself (store-gateway-enabled=false): its index-headers.
      `-experimental.tsdb.bucket-store.sync-dir=${join(dataDir, 'querier-sync')}`,
    ]),
  ]);
  ingesters.push(...started.slice(0, 3));
  distributor = started[3]!;
  querier = started[4]!;
  await Promise.all(allNodes().map((n) => n.waitReady(30_000)));
  await waitForRing(ringUrl(), allActive(3), 30_000, outputs);
}, 90_000);

afterAll(async () => {
  await Promise.all(allNodes().map((n) => n.stop()));
  await etcd?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

describe('microservices mode: 3 ingesters (RF 3), distributor and querier over an etcd ring', () => {
  it('shows the three ingesters ACTIVE in the ring on the distributor and on the querier', async () => {
    for (const url of [ringUrl(), `${querier.url}/ingester/ring`]) {
      const rows = await fetchRing(url);
      expect(rows.map((r) => r.id).sort()).toEqual(['ingester-1', 'ingester-2', 'ingester-3']);
      for (const r of rows) {
        expect(r.state).toBe('ACTIVE');
        expect(r.health).toBe('HEALTHY');
        expect(r.tokens).toBe(128);
      }
      expect(rows.map((r) => r.addr).sort()).toEqual(ingesters.map((n) => n.rpcAddress).sort());
    }
  });

  it('keeps acknowledging pushes after an ingester is SIGKILLed under load, and every acknowledged sample is read back exactly once', async () => {
    ledger = load();
    ledger.start();
    await sleep(3_000);
    const victim = ingesters[0]!;
    const killedAt = Date.now();
    await victim.kill();
    // Until the heartbeat timeout the ring still calls it ACTIVE (pushes to it fail, the
    // other two make the quorum); afterwards it is skipped as unhealthy.
    await waitForRing(
      ringUrl(),
      (rows) => rows.some((r) => r.id === victim.name && r.health === 'UNHEALTHY'),
      HEARTBEAT_TIMEOUT_S * 1_000 + 10_000,
      outputs,
    );
    const unhealthyAt = Date.now();
    await sleep(2_000);
    await ledger.stop();

    const failed = ledger.pushes.filter((p) => p.answer.status < 200 || p.answer.status >= 300);
    expect(
      failed.slice(0, 5).map((p) => `${p.answer.status} ${p.answer.text}`),
      `${failed.length} of ${ledger.pushes.length} pushes failed\n${distributor.output()}`,
    ).toEqual([]);
    expect(ledger.answeredBetween(0, killedAt).length).toBeGreaterThan(10);
    expect(ledger.answeredBetween(killedAt, unhealthyAt).length).toBeGreaterThan(10);
    expect(ledger.answeredBetween(unhealthyAt).length).toBeGreaterThan(10);

    // 100 series per push: a few thousand acknowledged samples at the very least.
    expect(ledger.ackedCount()).toBeGreaterThan(5_000);
    await checkLedger();
  }, 60_000);

  it('rejoins ACTIVE after a restart with the same directory and ID, with the WAL replayed', async () => {
    const victim = ingesters[0]!;
    await victim.restart();
    await victim.waitReady(30_000);
    const rows = await waitForRing(ringUrl(), allActive(3), 30_000, outputs);
    expect(rows.find((r) => r.id === victim.name)?.addr).toBe(victim.rpcAddress);
    // Every series was written to all three ingesters before the kill.
    const stats = await ingesterStats(victim);
    expect(stats).toEqual([expect.objectContaining({ userID: TENANT, numSeries: SERIES })]);
  }, 60_000);

  it('answers /api/v1/user_stats and /distributor/all_user_stats with the tenant', async () => {
    const res = await fetch(`${querier.url}/api/v1/user_stats`, {
      headers: { 'X-Scope-OrgID': TENANT },
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const stats = (await res.json()) as Record<string, number>;
    // Summed over the ingesters, divided by the replication factor.
    expect(stats['numSeries']).toBe(SERIES);
    expect(Object.keys(stats).sort()).toEqual(
      ['APIIngestionRate', 'RuleIngestionRate', 'ingestionRate', 'numSeries'].sort(),
    );

    const legacy = await fetch(`${querier.url}/api/prom/user_stats`, {
      headers: { 'X-Scope-OrgID': TENANT },
    });
    expect(legacy.status).toBe(200);

    const all = await fetch(`${distributor.url}/distributor/all_user_stats`, {
      headers: { Accept: 'application/json' },
    });
    expect(all.status).toBe(200);
    const list = (await all.json()) as { userID: string; numSeries: number }[];
    expect(list.map((s) => s.userID)).toEqual([TENANT]);
    // Not divided by the replication factor: every series is on all three ingesters.
    expect(list[0]?.numSeries).toBe(3 * SERIES);

    const html = await fetch(`${distributor.url}/distributor/all_user_stats`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain(TENANT);
  }, 30_000);

  it('keeps accepting pushes through the other two while one ingester is READONLY', async () => {
    const ro = ingesters[1]!;
    const set = await fetch(`${ro.url}/ingester/mode?mode=READONLY`, { method: 'POST' });
    expect(set.status).toBe(200);
    expect(await set.text()).toMatch(/READONLY/);
    await waitForRing(
      ringUrl(),
      (rows) => rows.find((r) => r.id === ro.name)?.state === 'READONLY',
      10_000,
      outputs,
    );
    const pushesBefore = ledger.pushes.length;
    ledger.start();
    // A new series during READONLY: it must land on the two others only.
    const probe = await pushSeries(
      distributor.url,
      [
        {
          labels: [['__name__', 'e2e_readonly_probe']],
          samples: [{ timestamp: Date.now(), value: 7 }],
        },
      ],
      TENANT,
    );
    await sleep(2_000);
    await ledger.stop();
    expect(probe).toEqual({ status: 200, text: '' });
    const during = ledger.pushes.slice(pushesBefore);
    expect(during.length).toBeGreaterThan(5);
    expect(
      during
        .filter((p) => p.answer.status !== 200)
        .map((p) => `${p.answer.status} ${p.answer.text}`),
    ).toEqual([]);
    const series = async (n: StrataNode): Promise<number | undefined> =>
      (await ingesterStats(n)).find((s) => s.userID === TENANT)?.numSeries;
    expect(await series(ro)).toBe(SERIES);
    expect(await series(ingesters[0]!)).toBe(SERIES + 1);
    expect(await series(ingesters[2]!)).toBe(SERIES + 1);
    // READONLY still answers queries (mode GET shows the state too).
    const mode = await fetch(`${ro.url}/ingester/mode`);
    expect(mode.status).toBe(400); // no mode given: Cortex's "invalid mode input"
    const probeBack = await strataApi(querier.url, TENANT).query('e2e_readonly_probe', Date.now());
    expect(probeBack.data.result).toHaveLength(1);

    const back = await fetch(`${ro.url}/ingester/mode`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'mode=active',
    });
    expect(back.status).toBe(200);
    expect(await back.text()).toMatch(/ACTIVE/);
    await waitForRing(ringUrl(), allActive(3), 10_000, outputs);
    await checkLedger();
  }, 60_000);

  it('flushes with /ingester/flush (204) and still serves the flushed samples', async () => {
    const node = ingesters[2]!;
    const res = await fetch(`${node.url}/ingester/flush?tenant=${TENANT}&wait=true`, {
      method: 'POST',
    });
    expect(res.status).toBe(204);
    const all = await fetch(`${node.url}/ingester/flush`);
    expect(all.status).toBe(204);
    await checkLedger();
  }, 30_000);

  it('reads every acknowledged sample with the restarted ingester in the quorum (another one killed)', async () => {
    await ingesters[1]!.kill();
    // Two of three must answer: the restarted ingester-1 and ingester-3.
    await checkLedger();
    // Pushes still make the quorum with ingester-1 and ingester-3.
    const pushesBefore = ledger.pushes.length;
    ledger.start();
    await sleep(1_500);
    await ledger.stop();
    const during = ledger.pushes.slice(pushesBefore);
    expect(during.filter((p) => p.answer.status !== 200).map((p) => p.answer.text)).toEqual([]);
    await checkLedger();
  }, 60_000);

  it('answers 5xx to pushes and queries once two of three ingesters are gone (no quorum)', async () => {
    await ingesters[2]!.kill();
    const push = await pushSeries(
      distributor.url,
      [{ labels: [['__name__', 'e2e_no_quorum']], samples: [{ timestamp: Date.now(), value: 1 }] }],
      TENANT,
    );
    expect(push.status, push.text).toBeGreaterThanOrEqual(500);
    expect(push.text).toMatch(/ingester|replicas|instances/);
    const err: unknown = await strataApi(querier.url, TENANT)
      .query(METRIC, Date.now())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PrometheusApiError);
    expect((err as PrometheusApiError).httpStatus).toBe(500);
    expect((err as PrometheusApiError).error).toMatch(/ingester|instances/);
  }, 30_000);

  it('leaves the ring on /ingester/shutdown and stops being ready, with the process still alive', async () => {
    const last = ingesters[0]!;
    const res = await fetch(`${last.url}/ingester/shutdown`, { method: 'POST' });
    expect(res.status).toBe(204);
    await waitForRing(ringUrl(), (rows) => !rows.some((r) => r.id === last.name), 10_000, outputs);
    expect((await fetch(`${last.url}/ready`)).status).toBe(503);
    expect(last.running()).toBe(true);
    // Repeated calls are harmless.
    const again = await fetch(`${last.url}/ingester/shutdown`, { method: 'POST' });
    expect(again.status).toBe(204);
  }, 30_000);
});
