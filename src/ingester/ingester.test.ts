import { describe, expect, it } from 'vitest';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { Matcher } from '../model/index.js';
import { PROTOBUF_CONTENT_TYPE, RpcError, jsonBody } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import {
  HOUR,
  INGESTER_ADDR,
  buildHarness,
  lines,
  series,
  batch,
  type Harness,
  type HarnessOptions,
} from './ingester_harness.testing.js';
import { INGESTER_PUSH, INGESTER_QUERY_STREAM, TENANT_RPC_HEADER, toWireMatchers } from './wire.js';

const START = 1_700_000_000_000;
const ALL = toWireMatchers([Matcher.regex('__name__', '.+')]);

interface Started extends Harness {
  clock: ManualClock;
  fs: DiskFileSystem;
}

async function started(
  over: Partial<HarnessOptions> & { fs?: DiskFileSystem } = {},
): Promise<Started> {
  const clock = new ManualClock(START);
  const fs = over.fs ?? new DiskFileSystem();
  const h = await buildHarness({ clock, fs, logger: new CapturingLogger(), ...over });
  await h.ingester.start(new AbortController().signal);
  await clock.advance(0); // join_after 0: PENDING → JOINING → ACTIVE
  return { ...h, clock, fs };
}

async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RpcError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

const q = (start: number, end: number, matchers = ALL) => ({ start, end, matchers });

describe('Ingester: lifecycle', () => {
  it('joins the ring ACTIVE under the transport address and is then ready', async () => {
    const h = await started();
    const inst = (await h.ringDesc()).ingesters['ingester-1'];
    expect(inst).toMatchObject({ addr: INGESTER_ADDR, state: 'ACTIVE' });
    expect(inst?.tokens).toHaveLength(8);
    expect(h.ingester.isReady()).toBeUndefined();
    await h.ingester.stop();
    expect(h.ingester.state).toBe('Terminated');
    // unregister_on_shutdown off: the instance stays, LEAVING.
    expect((await h.ringDesc()).ingesters['ingester-1']?.state).toBe('LEAVING');
  });

  it('is not ready before the lifecycler is ACTIVE (join_after)', async () => {
    const clock = new ManualClock(START);
    const h = await buildHarness({
      clock,
      fs: new DiskFileSystem(),
      logger: new CapturingLogger(),
      config: { lifecycler: { joinAfterMs: 10_000 } },
    });
    await h.ingester.start(new AbortController().signal);
    expect(h.ingester.isReady()).toMatch(/PENDING/);
    await clock.advance(10_000);
    expect(h.ingester.isReady()).toBeUndefined();
    await h.ingester.stop();
  });

  it('stops with flush-on-shutdown: heads cut into blocks, unregistered when configured', async () => {
    const h = await started({
      config: { flushOnShutdown: true, lifecycler: { unregisterOnShutdown: true } },
    });
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    await h.ingester.stop();
    expect((await h.ringDesc()).ingesters['ingester-1']).toBeUndefined();
    const entries = await h.fs.readdir('/data/tsdb/t1');
    const blocks = [];
    for (const e of entries) if (await h.fs.exists(`/data/tsdb/t1/${e}/meta.json`)) blocks.push(e);
    expect(blocks).toHaveLength(1);
  });

  it('shutdown waits for a push in flight, so its samples land in the flushed block', async () => {
    const h = await started();
    // The tenant's first push opens its database: still in flight when shutdown starts.
    const pushing = h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    await h.ingester.shutdown();
    await pushing;
    expect(h.ingester.dbs.tenantIds()).toEqual([]); // closed
    const reopened = await started({ fs: h.fs });
    const db = reopened.ingester.dbs.get('t1');
    expect(db?.blocks()).toHaveLength(1);
    expect(db?.head.seriesCount()).toBe(0);
    expect(
      lines(await reopened.client.queryStream(INGESTER_ADDR, 't1', q(START - HOUR, START + HOUR))),
    ).toEqual([`{__name__="up"} ${START}=1`]);
    await reopened.ingester.stop();
  });

  it('replays acknowledged samples from the WAL after a restart, before joining', async () => {
    const fs = new DiskFileSystem();
    const first = await started({ fs });
    await first.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 7])), 'api');
    await first.ingester.stop();
    const second = await started({ fs, store: first.store });
    expect(second.ingester.dbs.tenantIds()).toEqual(['t1']);
    expect(
      lines(await second.client.queryStream(INGESTER_ADDR, 't1', q(START - HOUR, START + HOUR))),
    ).toEqual([`{__name__="up"} ${START}=7`]);
    await second.ingester.stop();
  });
});

describe('Ingester: RPC push and queries', () => {
  it('answers QueryStream with the encoded chunks overlapping the range, sorted, others left out', async () => {
    const h = await started();
    await h.client.push(
      INGESTER_ADDR,
      't1',
      batch(
        series('up', { job: 'b' }, [START, 1], [START + 15_000, 2], [START + 30_000, 3]),
        series('up', { job: 'a' }, [START + 15_000, 4]),
        series('other', {}, [START, 5]),
      ),
      'api',
    );
    const upOnly = toWireMatchers([Matcher.equal('__name__', 'up')]);
    const res = await h.client.queryStream(
      INGESTER_ADDR,
      't1',
      q(START + 10_000, START + 20_000, upOnly),
    );
    expect(lines(res, START + 10_000, START + 20_000)).toEqual([
      `{__name__="up", job="a"} ${START + 15_000}=4`,
      `{__name__="up", job="b"} ${START + 15_000}=2`,
    ]);
    // Chunks travel whole: the querier, not the ingester, keeps to the window.
    expect(lines(res)[1]).toBe(
      `{__name__="up", job="b"} ${START}=1 ${START + 15_000}=2 ${START + 30_000}=3`,
    );
    // Only job="b" has a chunk reaching into this range; job="a" and "other" are left out.
    const later = await h.client.queryStream(
      INGESTER_ADDR,
      't1',
      q(START + 20_000, START + 40_000),
    );
    expect(lines(later, START + 20_000, START + 40_000)).toEqual([
      `{__name__="up", job="b"} ${START + 30_000}=3`,
    ]);
    expect(await h.client.labelNames(INGESTER_ADDR, 't1', q(START, START + 60_000, []))).toEqual([
      '__name__',
      'job',
    ]);
    expect(
      await h.client.labelValues(INGESTER_ADDR, 't1', {
        ...q(START, START + 60_000, upOnly),
        name: 'job',
      }),
    ).toEqual(['a', 'b']);
    expect(await h.client.userStats(INGESTER_ADDR, 't1')).toMatchObject({ numSeries: 3 });
    await h.ingester.stop();
  });

  it('keeps accepted samples of a partially rejected push and answers invalid_argument', async () => {
    const h = await started();
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    const err = await rpcError(
      h.client.push(
        INGESTER_ADDR,
        't1',
        batch(
          series('up', { job: 'old' }, [START - 3 * HOUR, 9]),
          series('up', { job: 'new' }, [START + 1000, 2]),
        ),
        'api',
      ),
    );
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(
      /^user=t1: err: .*out of bounds.*series=\{__name__="up", job="old"\}/,
    );
    expect(
      lines(await h.client.queryStream(INGESTER_ADDR, 't1', q(START - 4 * HOUR, START + HOUR))),
    ).toEqual([`{__name__="up"} ${START}=1`, `{__name__="up", job="new"} ${START + 1000}=2`]);
    const text = await h.metrics.metrics();
    expect(text).toContain('cortex_ingester_ingested_samples_total 2');
    expect(text).toContain('cortex_ingester_ingested_samples_failures_total 1');
    expect(text).toContain(
      'cortex_discarded_samples_total{reason="sample-out-of-bounds",user="t1"} 1',
    );
    expect(text).toContain('cortex_ingester_memory_users 1');
    await h.ingester.stop();
  });

  it('answers a query stream sorted by labels, or in series creation order when asked', async () => {
    const h = await started();
    const names = ['c', 'a', 'b'];
    for (const name of names)
      await h.client.push(INGESTER_ADDR, 't1', batch(series(name, {}, [START, 1])), 'api');
    const range = q(START - HOUR, START + HOUR);
    const order = (list: readonly { labels: { get(n: string): string } }[]) =>
      list.map((s) => s.labels.get('__name__'));
    expect(order(await h.client.queryStream(INGESTER_ADDR, 't1', range))).toEqual(['a', 'b', 'c']);
    const unsorted = { ...range, sortSeries: false };
    expect(order(await h.client.queryStream(INGESTER_ADDR, 't1', unsorted))).toEqual(names);
    await h.ingester.stop();
  });

  it('isolates tenants and never creates a database for a query', async () => {
    const h = await started();
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    await h.client.push(INGESTER_ADDR, 't2', batch(series('up', {}, [START, 2])), 'api');
    const range = q(START - HOUR, START + HOUR);
    expect(lines(await h.client.queryStream(INGESTER_ADDR, 't1', range))).toEqual([
      `{__name__="up"} ${START}=1`,
    ]);
    expect(lines(await h.client.queryStream(INGESTER_ADDR, 't2', range))).toEqual([
      `{__name__="up"} ${START}=2`,
    ]);
    expect(await h.client.queryStream(INGESTER_ADDR, 't3', range)).toEqual([]);
    expect(await h.client.labelNames(INGESTER_ADDR, 't3', range)).toEqual([]);
    expect(await h.client.userStats(INGESTER_ADDR, 't3')).toEqual({
      numSeries: 0,
      ingestionRate: 0,
      apiIngestionRate: 0,
      ruleIngestionRate: 0,
    });
    expect(h.ingester.dbs.tenantIds()).toEqual(['t1', 't2']);
    expect((await h.client.allUserStats(INGESTER_ADDR)).map((s) => s.tenant)).toEqual(['t1', 't2']);
    await h.ingester.stop();
  });

  it('answers MetricsForLabelMatchers with the labels of series that have a sample in range', async () => {
    const h = await started();
    await h.client.push(
      INGESTER_ADDR,
      't1',
      batch(
        series('up', { job: 'b' }, [START, 1]),
        series('up', { job: 'a' }, [START + HOUR, 1]),
        series('down', {}, [START, 0]),
      ),
      'api',
    );
    const names = async (tenant: string, start: number, end: number): Promise<string[]> =>
      (
        await h.client.seriesLabels(INGESTER_ADDR, tenant, {
          start,
          end,
          matchers: toWireMatchers([Matcher.equal('__name__', 'up')]),
        })
      ).map((l) => l.toString());
    expect(await names('t1', START, START + HOUR)).toEqual([
      '{__name__="up", job="a"}',
      '{__name__="up", job="b"}',
    ]);
    expect(await names('t1', START + 1, START + HOUR)).toEqual(['{__name__="up", job="a"}']);
    expect(await names('t2', START, START + HOUR)).toEqual([]);
    expect(h.ingester.dbs.tenantIds()).toEqual(['t1']);
    await h.ingester.stop();
  });

  it('keeps pushed metric metadata per tenant for the retain period, without a database', async () => {
    const h = await started({ config: { metadataRetainPeriodMs: 10 * 60_000 } });
    const up = { metricFamilyName: 'up', type: 2, help: 'Up.', unit: '' };
    const reqs = { metricFamilyName: 'http_requests_total', type: 1, help: 'Requests.', unit: '' };
    // Metadata only, over the RPC: kept, and no database is created for it.
    const onlyMetadata = { ...batch(), metadata: [up, reqs] };
    await h.client.push(INGESTER_ADDR, 't1', onlyMetadata, 'api');
    expect(h.ingester.dbs.tenantIds()).toEqual([]);
    expect(await h.client.metricsMetadata(INGESTER_ADDR, 't1')).toEqual([reqs, up]);
    expect(await h.client.metricsMetadata(INGESTER_ADDR, 't2')).toEqual([]);
    // Five minutes on, `up` is pushed again (with a sample). Purges run every five minutes
    // and forget what was last pushed more than ten minutes before: at fifteen minutes the
    // other entry goes, `up` stays until twenty.
    await h.clock.advance(5 * 60_000);
    await h.client.push(
      INGESTER_ADDR,
      't1',
      { ...batch(series('up', {}, [START, 1])), metadata: [up] },
      'api',
    );
    await h.clock.advance(5 * 60_000);
    expect(await h.client.metricsMetadata(INGESTER_ADDR, 't1')).toEqual([reqs, up]);
    await h.clock.advance(5 * 60_000);
    expect(await h.client.metricsMetadata(INGESTER_ADDR, 't1')).toEqual([up]);
    await h.clock.advance(5 * 60_000);
    expect(await h.client.metricsMetadata(INGESTER_ADDR, 't1')).toEqual([]);
    expect(h.ingester.dbs.tenantIds()).toEqual(['t1']);
    await h.ingester.stop();
  });

  it('refuses a missing tenant, a bad body and bad query requests with invalid_argument', async () => {
    const h = await started();
    const caller = h.network.transport('caller');
    const noTenant = await rpcError(
      caller.call(INGESTER_ADDR, { ...jsonBody(q(0, 1)), method: INGESTER_QUERY_STREAM }),
    );
    expect(noTenant).toMatchObject({ code: 'invalid_argument' });
    expect(noTenant.message).toMatch(/no org id/);
    const garbage = await rpcError(
      caller.call(INGESTER_ADDR, {
        method: INGESTER_PUSH,
        body: new Uint8Array([0x0a, 0xff, 0xff]),
        contentType: PROTOBUF_CONTENT_TYPE,
        headers: { [TENANT_RPC_HEADER]: 't1' },
      }),
    );
    expect(garbage.code).toBe('invalid_argument');
    expect(garbage.message).toMatch(/^failed to decode write request: /);
    const badTenant = await rpcError(
      h.client.push(INGESTER_ADDR, 'a/b', batch(series('up', {}, [START, 1])), 'api'),
    );
    expect(badTenant.code).toBe('invalid_argument');
    const badMatcher = await rpcError(
      caller.call(INGESTER_ADDR, {
        ...jsonBody({ start: 0, end: 1, matchers: [['=~', 'x', '(']] }),
        method: INGESTER_QUERY_STREAM,
        headers: { [TENANT_RPC_HEADER]: 't1' },
      }),
    );
    expect(badMatcher.code).toBe('invalid_argument');
    const badRange = await rpcError(
      caller.call(INGESTER_ADDR, {
        ...jsonBody({ start: 'x', end: 1, matchers: ALL }),
        method: INGESTER_QUERY_STREAM,
        headers: { [TENANT_RPC_HEADER]: 't1' },
      }),
    );
    expect(badRange.message).toMatch(/start must be a finite number/);
    const badSort = await rpcError(
      caller.call(INGESTER_ADDR, {
        ...jsonBody({ start: 0, end: 1, matchers: ALL, sortSeries: 'no' }),
        method: INGESTER_QUERY_STREAM,
        headers: { [TENANT_RPC_HEADER]: 't1' },
      }),
    );
    expect(badSort.code).toBe('invalid_argument');
    expect(badSort.message).toMatch(/sortSeries must be a boolean, got "no"/);
    expect(h.ingester.dbs.tenantIds()).toEqual([]);
    await h.ingester.stop();
  });

  it.each([0, 2, 1 << 21])(
    'stores repeated pushes of the same series alike with a label cache of %d entries',
    async (entries) => {
      const h = await started({ config: { seriesLabelsCacheEntries: entries } });
      // Three series cycling through a cache of two entries (one per generation), and the
      // same label sets again for another tenant: every push must land on its own series.
      const names = ['a', 'b', 'c'];
      for (let k = 0; k < 4; k++)
        for (const tenant of ['t1', 't2'])
          for (const name of names)
            await h.client.push(
              INGESTER_ADDR,
              tenant,
              batch(series(name, { job: 'x' }, [START + k, k + (tenant === 't1' ? 0 : 100)])),
              'api',
            );
      for (const [tenant, base] of [
        ['t1', 0],
        ['t2', 100],
      ] as const) {
        const got = lines(
          await h.client.queryStream(INGESTER_ADDR, tenant, q(START - HOUR, START + HOUR)),
        );
        expect(got).toEqual(
          names.map(
            (n) =>
              `{__name__="${n}", job="x"} ${[0, 1, 2, 3].map((k) => `${START + k}=${k + base}`).join(' ')}`,
          ),
        );
      }
      await h.ingester.stop();
    },
  );

  it('in READONLY refuses pushes with unavailable and still answers queries', async () => {
    const h = await started();
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api');
    expect(await h.ingester.setMode('READONLY')).toBe('READONLY');
    expect((await h.ringDesc()).ingesters['ingester-1']?.state).toBe('READONLY');
    const err = await rpcError(
      h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START + 1, 2])), 'api'),
    );
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/^ingester is in READONLY mode/);
    expect(
      lines(await h.client.queryStream(INGESTER_ADDR, 't1', q(START - HOUR, START + HOUR))),
    ).toEqual([`{__name__="up"} ${START}=1`]);
    expect(h.ingester.isReady()).toBeUndefined();
    expect(await h.ingester.setMode('ACTIVE')).toBe('ACTIVE');
    await h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START + 1, 2])), 'api');
    await h.ingester.stop();
  });

  it('refuses every call with unavailable once stopped', async () => {
    const h = await started();
    await h.ingester.stop();
    const err = await rpcError(
      h.client.push(INGESTER_ADDR, 't1', batch(series('up', {}, [START, 1])), 'api'),
    );
    expect(err).toMatchObject({ code: 'unavailable', message: 'ingester is Terminated' });
    expect(await rpcError(h.client.queryStream(INGESTER_ADDR, 't1', q(0, 1)))).toMatchObject({
      code: 'unavailable',
    });
  });

  it('counts rule pushes apart in the user stats', async () => {
    const h = await started();
    await h.client.push(
      INGESTER_ADDR,
      't1',
      batch(series('a', {}, [START, 1]), series('b', {}, [START, 1])),
      'rule',
    );
    await h.client.push(INGESTER_ADDR, 't1', batch(series('c', {}, [START, 1])), 'api');
    const stats = await h.client.userStats(INGESTER_ADDR, 't1');
    expect(stats.numSeries).toBe(3);
    expect(stats.ruleIngestionRate).toBeGreaterThan(0);
    expect(stats.ruleIngestionRate).toBeCloseTo(2 * stats.apiIngestionRate);
    expect(stats.ingestionRate).toBeCloseTo(stats.apiIngestionRate + stats.ruleIngestionRate);
    await h.ingester.stop();
  });
});
