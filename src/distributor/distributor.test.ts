import { describe, expect, it } from 'vitest';
import { WRITE } from '../ring/index.js';
import { MemoryKV, MemoryKVStore, RpcError } from '../runtime/index.js';
import { HttpError } from '../server/index.js';
import type { PushOutcome } from './distributor.js';
import { NOW, makeFixture, metricValue } from './distributor_fixture.testing.js';
import { shardByMetricName } from './shard.js';
import { buildWriteRequest, type PlainSeries } from './write_request_build.js';
import { decodeWriteRequest } from './write_request_decode.js';
import { encodeWriteRequest } from './write_request_encode.js';

function series(name: string, extra: [string, string][] = [], ts = NOW): PlainSeries {
  return { labels: [['__name__', name], ...extra], samples: [{ value: 1, timestamp: ts }] };
}

function req(...s: PlainSeries[]) {
  return buildWriteRequest({ series: s });
}

async function status(p: Promise<PushOutcome>): Promise<string> {
  try {
    const o = await p;
    return o.message === '' ? String(o.status) : `${o.status} ${o.message}`;
  } catch (e) {
    if (e instanceof HttpError) return `${e.status} ${e.message}`;
    throw e;
  }
}

const ADDRS = ['a:9095', 'b:9095', 'c:9095'];

describe('Distributor.push: replication and quorum', () => {
  it('sends every series to the instances of its replica set (RF 3 of 3)', async () => {
    const f = makeFixture();
    expect(await status(f.distributor.push('t1', req(series('up'), series('x')), 'api'))).toBe(
      '200',
    );
    for (const addr of ADDRS) {
      expect(f.ingesters.seriesNames(addr).sort()).toEqual(['up', 'x']);
      expect(f.ingesters.received.get(addr)?.[0]?.tenant).toBe('t1');
      expect(f.ingesters.received.get(addr)?.[0]?.timeoutMs).toBe(2000);
    }
    expect(await metricValue(f.registry, 'cortex_distributor_received_samples_total')).toBe(2);
    expect(await metricValue(f.registry, 'cortex_distributor_ingester_appends_total')).toBe(3);
  });

  it('places series on the ring by tenant + metric name (RF 1)', async () => {
    const f = makeFixture({ replicationFactor: 1 });
    const names = Array.from({ length: 40 }, (_, i) => `metric_${i}`);
    await f.distributor.push('t1', req(...names.map((n) => series(n, [['i', '1']]))), 'api');
    for (const name of names) {
      const token = shardByMetricName('t1', name);
      const owner = f.ring.get(token, WRITE).instances[0]?.addr ?? '';
      expect(f.ingesters.seriesNames(owner)).toContain(name);
      for (const other of ADDRS.filter((a) => a !== owner)) {
        expect(f.ingesters.seriesNames(other)).not.toContain(name);
      }
    }
    // Every ingester got some of 40 names: the placement is spread, not constant.
    for (const addr of ADDRS) expect(f.ingesters.seriesNames(addr).length).toBeGreaterThan(0);
  });

  it('shards by all labels when configured: same name, different series spread', async () => {
    const f = makeFixture({ replicationFactor: 1, config: { shardByAllLabels: true } });
    const many = Array.from({ length: 30 }, (_, i) => series('same', [['i', String(i)]]));
    await f.distributor.push('t1', req(...many), 'api');
    const spread = ADDRS.filter((a) => f.ingesters.seriesNames(a).length > 0);
    expect(spread.length).toBeGreaterThan(1);
    const byName = makeFixture({ replicationFactor: 1 });
    await byName.distributor.push('t1', req(...many), 'api');
    expect(ADDRS.filter((a) => byName.ingesters.seriesNames(a).length > 0)).toHaveLength(1);
  });

  it('RF 3: one ingester failing (5xx) still answers 200', async () => {
    const f = makeFixture();
    f.ingesters.set('b:9095', { kind: 'fail', error: new RpcError('unavailable', 'down') });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe('200');
    expect(
      await metricValue(f.registry, 'cortex_distributor_ingester_append_failures_total', {
        ingester: 'b:9095',
        status: '5xx',
      }),
    ).toBe(1);
  });

  it('RF 3: one ingester timing out still answers 200', async () => {
    const f = makeFixture();
    f.ingesters.set('c:9095', { kind: 'timeout' });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe('200');
  });

  it('RF 3: two ingesters failing is a 5xx naming a failing ingester', async () => {
    const f = makeFixture();
    f.ingesters.set('a:9095', { kind: 'fail', error: new RpcError('unavailable', 'conn refused') });
    f.ingesters.set('c:9095', { kind: 'timeout' });
    const answer = await status(f.distributor.push('t1', req(series('up')), 'api'));
    // Which failure is recorded second depends on the replica set's order: either names its ingester.
    expect([
      '500 failed pushing to ingester a:9095 (unavailable): conn refused',
      '500 failed pushing to ingester c:9095 (deadline_exceeded): call to c:9095 timed out after 2000ms',
    ]).toContain(answer);
    // The healthy replica still got the samples.
    expect(f.ingesters.seriesNames('b:9095')).toEqual(['up']);
  });

  it('a 4xx from every replica is returned as that 4xx, with its message', async () => {
    const f = makeFixture();
    const refusal = new RpcError('invalid_argument', 'sample timestamp out of order; series: up');
    for (const a of ADDRS) f.ingesters.set(a, { kind: 'fail', error: refusal });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe(
      '400 sample timestamp out of order; series: up',
    );
    const limited = new RpcError('resource_exhausted', 'per-user series limit of 10 exceeded');
    for (const a of ADDRS) f.ingesters.set(a, { kind: 'fail', error: limited });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe(
      '429 per-user series limit of 10 exceeded',
    );
  });

  it('RF 1: the one ingester refusing with 4xx is returned as 4xx, not 5xx', async () => {
    const f = makeFixture({ replicationFactor: 1 });
    const refusal = new RpcError('invalid_argument', 'out of bounds');
    for (const a of ADDRS) f.ingesters.set(a, { kind: 'fail', error: refusal });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe(
      '400 out of bounds',
    );
  });

  it('RF 3: a single 4xx with two successes reaches quorum (Cortex), 200', async () => {
    const f = makeFixture();
    f.ingesters.set('a:9095', {
      kind: 'fail',
      error: new RpcError('invalid_argument', 'out of order'),
    });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe('200');
    expect(
      await metricValue(f.registry, 'cortex_distributor_ingester_append_failures_total', {
        status: '4xx',
      }),
    ).toBe(1);
  });

  it('RF 3: a 4xx and a 5xx leave no quorum: the last error (5xx) decides', async () => {
    const f = makeFixture();
    f.ingesters.set('a:9095', {
      kind: 'fail',
      error: new RpcError('invalid_argument', 'out of order'),
    });
    f.ingesters.set('b:9095', { kind: 'fail', error: new RpcError('internal', 'disk full') });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe(
      '500 failed pushing to ingester b:9095 (internal): disk full',
    );
  });

  it('an empty ring is a 503 with the ring message', async () => {
    const f = makeFixture({ tokens: {} });
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toBe('503 empty ring');
  });

  it('too few healthy ingesters is a 503 with the ring message', async () => {
    const f = makeFixture();
    await f.clock.advance(120_000);
    expect(await status(f.distributor.push('t1', req(series('up')), 'api'))).toMatch(
      /^503 at least 2 live replicas required, could only find 0/,
    );
  });

  it('sends metadata to the replicas of its metric family', async () => {
    const f = makeFixture({ replicationFactor: 1 });
    const r = buildWriteRequest({
      series: [],
      metadata: [{ type: 1, metricFamilyName: 'http_total', help: 'h', unit: '' }],
    });
    expect(await status(f.distributor.push('t1', r, 'api'))).toBe('200');
    const owner = f.ring.get(shardByMetricName('t1', 'http_total'), WRITE).instances[0]?.addr;
    expect(f.ingesters.received.get(owner ?? '')?.[0]?.request.metadata).toEqual(r.metadata);
  });

  it('passes the push source to the ingesters', async () => {
    const f = makeFixture();
    await f.distributor.push('t1', req(series('up')), 'rule');
    expect(f.ingesters.received.get('a:9095')?.[0]?.source).toBe('rule');
  });
});

describe('Distributor.push: validation, rate limit, HA', () => {
  it('rejects an invalid series with 400 naming it, after writing the valid ones', async () => {
    const f = makeFixture();
    const bad = series('bad', [['a-b', '1']]);
    expect(await status(f.distributor.push('t1', req(series('good'), bad), 'api'))).toBe(
      '400 sample invalid label: "a-b" metric "bad{a-b=\\"1\\"}"',
    );
    for (const addr of ADDRS) expect(f.ingesters.seriesNames(addr)).toEqual(['good']);
    expect(
      await metricValue(f.registry, 'cortex_discarded_samples_total', { reason: 'label_invalid' }),
    ).toBe(1);
  });

  it('an ingester failure takes precedence over the validation error (Cortex)', async () => {
    const f = makeFixture({ replicationFactor: 1 });
    for (const a of ADDRS)
      f.ingesters.set(a, { kind: 'fail', error: new RpcError('internal', 'x') });
    const p = f.distributor.push('t1', req(series('good'), series('bad', [['a-b', '1']])), 'api');
    expect(await status(p)).toMatch(/^500 failed pushing to ingester/);
  });

  it('names the limit for too many labels', async () => {
    const f = makeFixture({ limits: { max_label_names_per_series: 2 } });
    const p = f.distributor.push(
      't1',
      req(
        series('m', [
          ['a', '1'],
          ['b', '2'],
        ]),
      ),
      'api',
    );
    expect(await status(p)).toBe(
      `400 series has too many labels (actual: 3, limit: 2) series: 'm{a="1", b="2"}'`,
    );
  });

  it('answers 429 above the ingestion rate and appends nothing of that request', async () => {
    const f = makeFixture({ limits: { ingestion_rate: 1, ingestion_burst_size: 2 } });
    const three = req(series('a'), series('b'), series('c'));
    expect(await status(f.distributor.push('t1', three, 'api'))).toBe(
      '429 ingestion rate limit (1) exceeded while adding 3 samples and 0 metadata',
    );
    for (const addr of ADDRS) expect(f.ingesters.received.get(addr)).toBeUndefined();
    expect(
      await metricValue(f.registry, 'cortex_discarded_samples_total', { reason: 'rate_limited' }),
    ).toBe(3);
    // Within the burst it passes; other tenants have their own bucket.
    expect(await status(f.distributor.push('t1', req(series('a'), series('b')), 'api'))).toBe(
      '200',
    );
    expect(await status(f.distributor.push('t2', req(series('a')), 'api'))).toBe('200');
  });

  it('divides the rate by the healthy distributors under the global strategy', async () => {
    const global = makeFixture({
      limits: { ingestion_rate: 10, ingestion_burst_size: 1 },
      config: { ingestionRateStrategy: 'global' },
      distributorCount: () => 4,
    });
    expect(await status(global.distributor.push('t1', req(series('a'), series('b')), 'api'))).toBe(
      '429 ingestion rate limit (2.5) exceeded while adding 2 samples and 0 metadata',
    );
    const local = makeFixture({
      limits: { ingestion_rate: 10, ingestion_burst_size: 1 },
      distributorCount: () => 4,
    });
    expect(await status(local.distributor.push('t1', req(series('a'), series('b')), 'api'))).toBe(
      '429 ingestion rate limit (10) exceeded while adding 2 samples and 0 metadata',
    );
  });

  it('HA: keeps the elected replica (label stripped) and answers 202 to the other', async () => {
    const f = makeFixture({
      runtimeYaml: 'overrides:\n  t1:\n    accept_ha_samples: true\n',
    });
    const from = (replica: string) =>
      req(
        series('up', [
          ['__replica__', replica],
          ['cluster', 'c1'],
        ]),
      );
    expect(await status(f.distributor.push('t1', from('r1'), 'api'))).toBe('200');
    expect(f.ingesters.received.get('a:9095')?.[0]?.request.series[0]?.labels).toEqual([
      ['__name__', 'up'],
      ['cluster', 'c1'],
    ]);
    expect(await status(f.distributor.push('t1', from('r2'), 'api'))).toBe(
      '202 replicas did not mach, rejecting sample: replica=r2, elected=r1',
    );
    expect(f.ingesters.received.get('a:9095')).toHaveLength(1);
    expect(
      await metricValue(f.registry, 'cortex_distributor_deduped_samples_total', { user: 't1' }),
    ).toBe(1);
    expect(f.distributor.haTracker?.electedReplicas().map((e) => e.replica)).toEqual(['r1']);
  });

  it('HA with the labels cache: the shared decoded array keeps its replica label', async () => {
    const f = makeFixture({
      runtimeYaml: 'overrides:\n  t1:\n    accept_ha_samples: true\n',
    });
    const cache = f.distributor.labelsCache;
    expect(cache).toBeDefined();
    const bytes = encodeWriteRequest(
      req(
        series('up', [
          ['__replica__', 'r1'],
          ['cluster', 'c1'],
        ]),
      ),
    );
    const first = decodeWriteRequest(bytes, cache);
    const shared = first.series[0]?.labels;
    expect(await status(f.distributor.push('t1', first, 'api'))).toBe('200');
    const second = decodeWriteRequest(bytes, cache);
    expect(second.series[0]?.labels).toBe(shared);
    expect(shared).toEqual(['__name__', 'up', '__replica__', 'r1', 'cluster', 'c1']);
    expect(await status(f.distributor.push('t1', second, 'api'))).toBe('200');
    for (const push of f.ingesters.received.get('a:9095') ?? [])
      expect(push.request.series[0]?.labels).toEqual([
        ['__name__', 'up'],
        ['cluster', 'c1'],
      ]);
    expect(f.ingesters.received.get('a:9095')).toHaveLength(2);
  });

  it('the labels cache can be turned off', () => {
    expect(makeFixture({ config: { seriesLabelsCacheEntries: 0 } }).distributor.labelsCache).toBe(
      undefined,
    );
  });

  it('HA: a failing KV store is a 500 naming the failure, nothing written', async () => {
    const kv = new MemoryKV({}, { store: new MemoryKVStore() });
    kv.cas = () => Promise.reject(new Error('kv unreachable'));
    const f = makeFixture({
      haKV: kv,
      runtimeYaml: 'overrides:\n  t1:\n    accept_ha_samples: true\n',
    });
    const p = f.distributor.push(
      't1',
      req(
        series('up', [
          ['__replica__', 'r'],
          ['cluster', 'c'],
        ]),
      ),
      'api',
    );
    expect(await status(p)).toBe('500 failed to check HA replica: kv unreachable');
    expect(f.ingesters.received.size).toBe(0);
  });

  it('HA tracker disabled: the replica label of HA pushes is stripped, nothing deduped', async () => {
    const f = makeFixture({
      runtimeYaml: 'overrides:\n  t1:\n    accept_ha_samples: true\n',
      config: { haTracker: { enabled: false, updateTimeoutMs: 15_000, failoverTimeoutMs: 30_000 } },
    });
    const from = (r: string) =>
      req(
        series('up', [
          ['__replica__', r],
          ['cluster', 'c'],
        ]),
      );
    expect(await status(f.distributor.push('t1', from('r1'), 'api'))).toBe('200');
    expect(await status(f.distributor.push('t1', from('r2'), 'api'))).toBe('200');
    expect(f.ingesters.received.get('a:9095')?.map((p) => p.request.series[0]?.labels)).toEqual([
      [
        ['__name__', 'up'],
        ['cluster', 'c'],
      ],
      [
        ['__name__', 'up'],
        ['cluster', 'c'],
      ],
    ]);
  });

  it('HA off for a tenant: the replica label is kept', async () => {
    const f = makeFixture();
    await f.distributor.push('t1', req(series('up', [['__replica__', 'r1']])), 'api');
    expect(f.ingesters.received.get('a:9095')?.[0]?.request.series[0]?.labels).toEqual([
      ['__name__', 'up'],
      ['__replica__', 'r1'],
    ]);
  });

  it('counts incoming samples including rejected ones', async () => {
    const f = makeFixture();
    await status(
      f.distributor.push('t1', req(series('good'), series('bad', [['a-b', '1']])), 'api'),
    );
    expect(await metricValue(f.registry, 'cortex_distributor_samples_in_total')).toBe(2);
    expect(await metricValue(f.registry, 'cortex_distributor_received_samples_total')).toBe(1);
  });
});

describe('Distributor.allUserStats', () => {
  it('sums every ingester per tenant without dividing by RF, sorted by series', async () => {
    const f = makeFixture();
    const stats = (numSeries: number, rate: number) => ({
      numSeries,
      ingestionRate: rate,
      apiIngestionRate: rate,
      ruleIngestionRate: 0,
    });
    f.ingesters.setStats('a:9095', [
      { tenant: 'small', stats: stats(1, 0.5) },
      { tenant: 'big', stats: stats(10, 2), loadedBlocks: 2 },
    ]);
    f.ingesters.setStats('b:9095', [{ tenant: 'big', stats: stats(10, 2), loadedBlocks: 1 }]);
    f.ingesters.setStats('c:9095', [{ tenant: 'big', stats: stats(10, 2) }]);
    const all = await f.distributor.allUserStats();
    expect(all).toEqual({
      stats: [
        {
          userID: 'big',
          numSeries: 30,
          ingestionRate: 6,
          APIIngestionRate: 6,
          RuleIngestionRate: 0,
          loadedBlocks: 3,
        },
        {
          userID: 'small',
          numSeries: 1,
          ingestionRate: 0.5,
          APIIngestionRate: 0.5,
          RuleIngestionRate: 0,
          loadedBlocks: 0,
        },
      ],
      replicationFactor: 3,
      queriedIngesters: 3,
    });
  });

  it('fails when an ingester cannot answer', async () => {
    const f = makeFixture();
    f.ingesters.set('b:9095', { kind: 'fail', error: new RpcError('unavailable', 'down') });
    await expect(f.distributor.allUserStats()).rejects.toThrow('down');
  });
});

describe('Distributor lifecycle', () => {
  it('starts and stops (HA tracker watching its KV)', async () => {
    const f = makeFixture();
    await f.distributor.start(new AbortController().signal);
    expect(f.distributor.state).toBe('Running');
    await f.distributor.push('t1', req(series('up')), 'api');
    await f.distributor.stop();
    expect(f.distributor.state).toBe('Terminated');
  });

  it('runs without an HA tracker', async () => {
    const f = makeFixture({
      config: { haTracker: { enabled: false, updateTimeoutMs: 15_000, failoverTimeoutMs: 30_000 } },
    });
    expect(f.distributor.haTracker).toBeUndefined();
    await f.distributor.start(new AbortController().signal);
    await f.distributor.stop();
    expect(f.distributor.state).toBe('Terminated');
  });
});
