import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../model/index.js';
import { createSeededRandom } from '../runtime/index.js';
import { CapturingLogger, ManualClock } from '../runtime/testing/index.js';
import { ValueType } from '../tsdb/index.js';
import { DiskFileSystem } from '../../sim/testing/index.js';
import { SeriesLimitError } from './errors.js';
import type { BlockShipState } from './shipping.js';
import { TenantDBs, type TenantDBsConfig, type TenantLimits } from './tenant_dbs.js';
import type { PushSeries, PushSeriesSamples } from './push_types.js';

const HOUR = 3_600_000;
const START = 1_700_000_000_000;

class TestLimits implements TenantLimits {
  perUser = 0;
  perMetric = 0;
  readonly ooo = new Map<string, number>();
  maxGlobalSeriesPerUser(): number {
    return this.perUser;
  }
  maxGlobalSeriesPerMetric(): number {
    return this.perMetric;
  }
  outOfOrderTimeWindow(tenant: string): number {
    return this.ooo.get(tenant) ?? 0;
  }
}

interface Setup {
  fs?: DiskFileSystem;
  clock?: ManualClock;
  limits?: TestLimits;
  rf?: number;
  ingesters?: number;
  config?: Partial<TenantDBsConfig>;
  shipping?: BlockShipState;
}

function makeDBs(s: Setup = {}): {
  dbs: TenantDBs;
  fs: DiskFileSystem;
  clock: ManualClock;
  limits: TestLimits;
} {
  const fs = s.fs ?? new DiskFileSystem();
  const clock = s.clock ?? new ManualClock(START);
  const limits = s.limits ?? new TestLimits();
  const dbs = new TenantDBs(
    {
      dir: '/data/tsdb',
      blockRanges: [2 * HOUR],
      retention: 6 * HOUR,
      headCompactionInterval: 60_000,
      headCompactionConcurrency: 2,
      openingConcurrency: 2,
      stripeSize: 16,
      walCompression: false,
      ...s.config,
    },
    {
      fs,
      clock,
      random: createSeededRandom('ingester-test'),
      logger: new CapturingLogger(),
      limits,
      ring: { replicationFactor: () => s.rf ?? 1, healthyInstances: () => s.ingesters ?? 1 },
      ...(s.shipping === undefined ? {} : { shipping: s.shipping }),
    },
  );
  return { dbs, fs, clock, limits };
}

function series(name: string, i: number, ...samples: [number, number][]): PushSeriesSamples {
  return {
    labels: Labels.fromStrings('__name__', name, 'i', String(i)),
    samples: samples.map(([timestamp, value]) => ({ timestamp, value })),
  };
}

async function dump(dbs: TenantDBs, tenant: string): Promise<string[]> {
  const db = dbs.get(tenant);
  if (db === undefined) return [];
  const out: string[] = [];
  for (const s of await db.select([Matcher.regex('__name__', '.+')], 0, Number.MAX_SAFE_INTEGER)) {
    const it = s.iterator();
    while (it.next() !== ValueType.None) out.push(`${s.labels.toString()} ${it.atT()} ${it.atF()}`);
  }
  return out;
}

describe('TenantDBs: lazy creation and restart', () => {
  it('creates a tenant database on its first push, under <dir>/<tenant>', async () => {
    const { dbs, fs } = makeDBs();
    await dbs.start();
    expect(dbs.tenantIds()).toEqual([]);
    expect(await fs.exists('/data/tsdb/team-a')).toBe(false);
    const r = await dbs.push('team-a', [series('up', 1, [START, 1])]);
    expect(r).toMatchObject({ appended: 1, rejections: [], firstError: undefined });
    expect(dbs.tenantIds()).toEqual(['team-a']);
    expect(await fs.exists('/data/tsdb/team-a/wal')).toBe(true);
    expect(dbs.get('team-b')).toBeUndefined();
    await dbs.close();
  });

  it('concurrent first pushes share one database', async () => {
    const { dbs } = makeDBs();
    await dbs.start();
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => dbs.push('t', [series('up', i, [START, i])])),
    );
    expect(results.map((r) => r.appended)).toEqual([1, 1, 1, 1]);
    const [a, b] = await Promise.all([dbs.getOrCreate('t'), dbs.getOrCreate('t')]);
    expect(a).toBe(b);
    expect(a.head.seriesCount()).toBe(4);
    await dbs.close();
  });

  it('refuses tenant IDs that cannot name a directory', async () => {
    const { dbs } = makeDBs();
    await expect(dbs.push('..', [series('up', 1, [START, 1])])).rejects.toThrow(
      'cannot name a TSDB directory',
    );
    await expect(dbs.push('a/b', [series('up', 1, [START, 1])])).rejects.toMatchObject({
      status: 400,
    });
    await dbs.close();
  });

  it('reopens every tenant at start and recovers samples from the WAL, after close and after a crash', async () => {
    const first = makeDBs();
    await first.dbs.start();
    await first.dbs.push('a', [series('up', 1, [START, 1], [START + 15_000, 2])]);
    await first.dbs.push('b', [series('up', 2, [START, 3])]);
    await first.dbs.close();

    const second = makeDBs({ fs: new DiskFileSystem(first.fs.disk) });
    await second.dbs.start();
    expect(second.dbs.tenantIds()).toEqual(['a', 'b']);
    expect(await dump(second.dbs, 'a')).toEqual([
      `{__name__="up", i="1"} ${START} 1`,
      `{__name__="up", i="1"} ${START + 15_000} 2`,
    ]);
    await second.dbs.push('b', [series('up', 2, [START + 15_000, 4])]);
    // A process crash (no close): the page cache survives, the WAL replays.
    const third = makeDBs({ fs: new DiskFileSystem(second.fs.disk) });
    await third.dbs.start();
    expect(await dump(third.dbs, 'b')).toEqual([
      `{__name__="up", i="2"} ${START} 3`,
      `{__name__="up", i="2"} ${START + 15_000} 4`,
    ]);
    await third.dbs.close();
  });

  it('opens at most max_tsdb_opening_concurrency_on_startup databases at a time', async () => {
    const seed = makeDBs();
    for (let t = 0; t < 5; t++) await seed.dbs.push(`t${t}`, [series('up', t, [START, t])]);
    await seed.dbs.close();

    // Every open lists its tenant directory first; hold those calls at a gate.
    const waiting: (() => void)[] = [];
    let inside = 0;
    let peak = 0;
    class GatedFS extends DiskFileSystem {
      override async readdir(path: string): Promise<string[]> {
        if (/^\/data\/tsdb\/t\d$/.test(path)) {
          inside++;
          peak = Math.max(peak, inside);
          await new Promise<void>((resolve) => waiting.push(resolve));
          inside--;
        }
        return super.readdir(path);
      }
    }
    const { dbs } = makeDBs({ fs: new GatedFS(seed.fs.disk), config: { openingConcurrency: 2 } });
    const started = dbs.start();
    let released = 0;
    for (let round = 0; round < 50 && released < 5; round++) {
      for (let i = 0; i < 20; i++) await Promise.resolve();
      const next = waiting.shift();
      if (next !== undefined) {
        expect(inside).toBeLessThanOrEqual(2);
        next();
        released++;
      }
    }
    await started;
    expect(released).toBe(5);
    expect(peak).toBe(2);
    expect(dbs.tenantIds()).toEqual(['t0', 't1', 't2', 't3', 't4']);
    await dbs.close();
  });
});

describe('TenantDBs: partial acceptance', () => {
  it('commits the accepted samples and reports each refused one with Cortex text', async () => {
    const { dbs } = makeDBs();
    await dbs.push('t', [series('up', 1, [START + 2 * HOUR, 1])]);
    const r = await dbs.push('t', [
      series('up', 1, [START + 2 * HOUR, 9], [START + 2 * HOUR + 15_000, 2]),
      series('up', 2, [START, 5], [START + 2 * HOUR, 6]),
      series('up', 3),
    ]);
    expect(r.appended).toBe(2);
    expect(r.rejections.map((x) => [x.series, x.timestamp, x.error.code])).toEqual([
      [0, START + 2 * HOUR, 'new_value_for_timestamp'],
      [1, START, 'sample_out_of_bounds'],
    ]);
    expect(r.rejections[1]?.message).toBe(
      `err: sample timestamp out of bounds: ts=${START}, min valid=${START + HOUR}. timestamp=2023-11-14T22:13:20Z, series={__name__="up", i="2"}`,
    );
    expect(r.firstError?.status).toBe(400);
    expect(r.firstError?.message).toBe(`user=t: ${r.rejections[0]?.message}`);
    expect(await dump(dbs, 't')).toEqual([
      `{__name__="up", i="1"} ${START + 2 * HOUR} 1`,
      `{__name__="up", i="1"} ${START + 2 * HOUR + 15_000} 2`,
      `{__name__="up", i="2"} ${START + 2 * HOUR} 6`,
    ]);
    await dbs.close();
  });
});

/** The same series with their samples as one pair of shared columns (the push hot path). */
function asColumns(list: PushSeriesSamples[]): PushSeries[] {
  const all = list.flatMap((s) => s.samples);
  const timestamps = Float64Array.from(all, (x) => x.timestamp);
  const values = Float64Array.from(all, (x) => x.value);
  let at = 0;
  return list.map((s) => {
    const start = at;
    at += s.samples.length;
    return { labels: s.labels, timestamps, values, start, end: at };
  });
}

describe('TenantDBs: samples as shared columns', () => {
  it('appends, refuses and limits exactly as with sample objects', async () => {
    const run = async (columns: boolean) => {
      const limits = new TestLimits();
      limits.perUser = 3;
      const { dbs } = makeDBs({ limits });
      const form = (l: PushSeriesSamples[]): PushSeries[] => (columns ? asColumns(l) : l);
      await dbs.push('t', form([series('up', 1, [START + 2 * HOUR, 1])]));
      const r = await dbs.push(
        't',
        form([
          series('up', 1, [START + 2 * HOUR, 9], [START + 2 * HOUR + 15_000, 2]),
          series('up', 2, [START, 5], [START + 2 * HOUR, 6]),
          series('up', 3),
          series('up', 4, [START + 2 * HOUR + 1, 7]),
          series('up', 5, [START + 2 * HOUR + 5, 8]),
        ]),
      );
      const out = {
        appended: r.appended,
        rejections: r.rejections.map((x) => [x.series, x.timestamp, x.samples, x.message]),
        dump: await dump(dbs, 't'),
      };
      await dbs.close();
      return out;
    };
    const objects = await run(false);
    expect(objects.appended).toBe(3);
    expect(objects.rejections.map((x) => x[0])).toEqual([0, 1, 4]);
    expect(objects.rejections[2]?.[1]).toBe(START + 2 * HOUR + 5);
    expect(await run(true)).toEqual(objects);
  });
});

describe('TenantDBs: series limits', () => {
  it('refuses new series beyond the per-user limit; existing series still accept samples', async () => {
    const limits = new TestLimits();
    limits.perUser = 3;
    const { dbs } = makeDBs({ limits });
    const r = await dbs.push(
      't',
      [1, 2, 3, 4, 5].map((i) => series('up', i, [START, i])),
    );
    expect(r.appended).toBe(3);
    expect(r.rejections.map((x) => x.series)).toEqual([3, 4]);
    const err = r.rejections[0]?.error;
    expect(err).toBeInstanceOf(SeriesLimitError);
    expect((err as SeriesLimitError).status).toBe(400);
    expect(err?.message).toBe(
      'per-user series limit of 3 exceeded, please contact administrator to raise it (local limit: 0 global limit: 3 actual local limit: 3)',
    );
    expect(r.firstError?.message).toBe(`user=t: ${err?.message}`);
    const again = await dbs.push('t', [
      series('up', 1, [START + 1000, 10]),
      series('up', 9, [START + 1000, 10]),
    ]);
    expect(again.appended).toBe(1);
    expect(again.rejections.map((x) => x.series)).toEqual([1]);
    expect(dbs.userStats('t')?.numSeries).toBe(3);
    await dbs.close();
  });

  it('counts a new series once however many samples it brings, and only if one was accepted', async () => {
    const limits = new TestLimits();
    limits.perUser = 2;
    const { dbs } = makeDBs({ limits });
    await dbs.push('t', [series('up', 0, [START + 2 * HOUR, 0])]);
    const r = await dbs.push('t', [
      series('up', 1, [START, 1]), // out of bounds: not created, not counted
      series('up', 2, [START + 2 * HOUR, 1], [START + 2 * HOUR + 1, 2]),
      series('up', 2, [START + 2 * HOUR + 2, 3]),
      series('up', 3, [START + 2 * HOUR, 1]),
    ]);
    expect(r.appended).toBe(3);
    expect(r.rejections.map((x) => [x.series, x.error.code])).toEqual([
      [0, 'sample_out_of_bounds'],
      [3, 'bad_data'],
    ]);
    await dbs.close();
  });

  it('refuses new series beyond the per-metric limit, naming the series', async () => {
    const limits = new TestLimits();
    limits.perMetric = 2;
    const { dbs } = makeDBs({ limits });
    const r = await dbs.push('t', [
      series('a', 1, [START, 1]),
      series('a', 2, [START, 1]),
      series('b', 1, [START, 1]),
      series('a', 3, [START, 1]),
    ]);
    expect(r.appended).toBe(3);
    expect(r.rejections.map((x) => x.series)).toEqual([3]);
    expect(r.rejections[0]?.message).toBe(
      'per-metric series limit of 2 exceeded, please contact administrator to raise it (local limit: 0 global limit: 2 actual local limit: 2) for series {__name__="a", i="3"}',
    );
    // Counts come from the head on the next push too.
    const next = await dbs.push('t', [
      series('a', 4, [START + 1, 1]),
      series('b', 2, [START + 1, 1]),
    ]);
    expect(next.rejections.map((x) => x.series)).toEqual([0]);
    await dbs.close();
  });

  it('converts the global limit to a local one by RF and ring size', async () => {
    const limits = new TestLimits();
    limits.perUser = 4; // 4 / 6 ingesters × RF 3 = 2 here
    const { dbs } = makeDBs({ limits, rf: 3, ingesters: 6 });
    const r = await dbs.push(
      't',
      [1, 2, 3].map((i) => series('up', i, [START, i])),
    );
    expect(r.appended).toBe(2);
    expect(r.rejections[0]?.message).toContain('global limit: 4 actual local limit: 2');
    await dbs.close();
  });

  it('concurrent pushes of new series never exceed the limit together', async () => {
    const limits = new TestLimits();
    limits.perUser = 5;
    const { dbs } = makeDBs({ limits });
    await dbs.getOrCreate('t');
    const results = await Promise.all(
      [0, 1, 2].map((p) =>
        dbs.push(
          't',
          [0, 1, 2].map((i) => series('up', p * 10 + i, [START, i])),
        ),
      ),
    );
    expect(results.reduce((n, r) => n + r.appended, 0)).toBe(5);
    expect(dbs.userStats('t')?.numSeries).toBe(5);
    await dbs.close();
  });

  it('0 means unlimited', async () => {
    const { dbs } = makeDBs();
    const r = await dbs.push(
      't',
      Array.from({ length: 50 }, (_, i) => series('up', i, [START, i])),
    );
    expect(r.appended).toBe(50);
    await dbs.close();
  });
});

describe('TenantDBs: out-of-order window per tenant', () => {
  it('applies each tenant window at open and re-applies changes', async () => {
    const limits = new TestLimits();
    limits.ooo.set('late', HOUR);
    const { dbs } = makeDBs({ limits });
    for (const t of ['late', 'strict']) await dbs.push(t, [series('up', 1, [START, 1])]);
    const old = [series('up', 1, [START - 30 * 60_000, 0])];
    expect((await dbs.push('late', old)).appended).toBe(1);
    const refused = await dbs.push('strict', old);
    expect(refused.rejections[0]?.error.code).toBe('sample_out_of_order');

    limits.ooo.set('strict', HOUR);
    limits.ooo.delete('late');
    dbs.applyOverrides();
    expect((await dbs.push('strict', old)).appended).toBe(1);
    const late = await dbs.push('late', [series('up', 1, [START - 40 * 60_000, 0])]);
    expect(late.rejections[0]?.error.code).toBe('sample_out_of_order');
    await dbs.close();
  });
});

describe('TenantDBs: head compaction and flush', () => {
  async function fillHead(dbs: TenantDBs, tenant: string): Promise<void> {
    // 3h30m of data: the head spans more than 1.5 block ranges, so one block is due.
    const samples: [number, number][] = [];
    for (let t = START; t <= START + 3.5 * HOUR; t += 5 * 60_000) samples.push([t, t / 1000]);
    await dbs.push(tenant, [series('up', 1, ...samples)]);
  }

  it('the loop compacts every tenant head each head_compaction_interval', async () => {
    const { dbs, clock } = makeDBs();
    await dbs.start();
    await fillHead(dbs, 'a');
    await fillHead(dbs, 'b');
    await dbs.push('c', [series('up', 1, [START, 1])]);
    await clock.advance(59_000);
    expect(dbs.get('a')?.blocks()).toHaveLength(0);
    await clock.advance(1_000);
    for (let i = 0; i < 20 && (dbs.get('b')?.blocks().length ?? 0) === 0; i++)
      await clock.advance(0);
    expect(dbs.get('a')?.blocks()).toHaveLength(1);
    expect(dbs.get('b')?.blocks()).toHaveLength(1);
    expect(dbs.get('c')?.blocks()).toHaveLength(0);
    expect(dbs.get('a')?.blocks()[0]?.meta.thanos?.labels).toEqual({ __org_id__: 'a' });
    expect(clock.tickErrors).toEqual([]);
    await dbs.close();
    expect(clock.pendingTimers).toBe(0);
  });

  it('compacts at most head_compaction_concurrency tenants at a time', async () => {
    let running = 0;
    let peak = 0;
    // A block is being written from the mkdir of its `.tmp-for-creation` directory until
    // the rename that publishes it.
    class CountingFS extends DiskFileSystem {
      override async mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
        if (path.endsWith('.tmp-for-creation')) {
          running++;
          peak = Math.max(peak, running);
        }
        return super.mkdir(path, opts);
      }
      override async rename(from: string, to: string): Promise<void> {
        await super.rename(from, to);
        if (from.endsWith('.tmp-for-creation')) running--;
      }
    }
    const { dbs } = makeDBs({ fs: new CountingFS(), config: { headCompactionConcurrency: 2 } });
    for (const t of ['a', 'b', 'c', 'd']) await fillHead(dbs, t);
    await dbs.compactHeads();
    for (const t of ['a', 'b', 'c', 'd']) expect(dbs.get(t)?.blocks()).toHaveLength(1);
    expect(peak).toBe(2);
    expect(running).toBe(0);
    await dbs.close();
  });

  it('flush cuts everything of the given tenants, or all; without wait it returns at once', async () => {
    const { dbs, fs } = makeDBs();
    for (const t of ['a', 'b', 'c']) await fillHead(dbs, t);
    // A head shorter than 1.5 block ranges: the loop would not cut it, flush does.
    await dbs.push('d', [series('up', 1, [START, 1], [START + 60_000, 2])]);
    const before = await dump(dbs, 'a');
    expect(before).toHaveLength(43);
    await dbs.flush(['a', 'd', 'missing'], true);
    // START is 13m20s into a 2h range: [START, boundary) and [first sample after it, max
    // time + 1), with samples every 5m.
    const lastT = START + 3.5 * HOUR;
    const boundary = START - 800_000 + 2 * HOUR;
    expect(
      dbs
        .get('a')
        ?.blocks()
        .map((b) => [b.meta.minTime, b.meta.maxTime]),
    ).toEqual([
      [START, boundary],
      [boundary + 200_000, lastT + 1],
    ]);
    expect(
      dbs
        .get('d')
        ?.blocks()
        .map((b) => [b.meta.minTime, b.meta.maxTime]),
    ).toEqual([[START, START + 60_001]]);
    expect(dbs.get('a')?.head.seriesCount()).toBe(0);
    expect(await dump(dbs, 'a')).toEqual(before);
    expect(dbs.get('b')?.blocks()).toHaveLength(0);
    await dbs.flush(undefined, false);
    expect(dbs.get('b')?.blocks()).toHaveLength(0);
    await dbs.close(); // waits for the background flush
    const reopened = makeDBs({ fs: new DiskFileSystem(fs.disk) });
    await reopened.dbs.start();
    for (const t of ['a', 'b', 'c']) expect(reopened.dbs.get(t)?.blocks()).toHaveLength(2);
    expect(reopened.dbs.get('d')?.blocks()).toHaveLength(1);
    expect(reopened.dbs.get('a')?.head.seriesCount()).toBe(0);
    await reopened.dbs.close();
  });
});

describe('TenantDBs: stats', () => {
  it('reports series count and ingestion rate over the window, by source', async () => {
    const { dbs, clock } = makeDBs();
    expect(dbs.userStats('t')).toBeUndefined();
    await dbs.push('t', [series('up', 1, [START, 1], [START + 1, 2]), series('up', 2, [START, 1])]);
    await dbs.push('t', [series('rule', 1, [START, 1])], 'rule');
    await dbs.push('u', [series('up', 1, [START, 1])]);
    expect(dbs.userStats('t')).toEqual({
      numSeries: 3,
      ingestionRate: 4 / 60,
      apiIngestionRate: 3 / 60,
      ruleIngestionRate: 1 / 60,
    });
    expect(dbs.allUserStats().map((s) => [s.tenant, s.stats.numSeries])).toEqual([
      ['t', 3],
      ['u', 1],
    ]);
    await clock.advance(61_000);
    expect(dbs.userStats('t')?.ingestionRate).toBe(0);
    await dbs.close();
  });
});

describe('TenantDBs: retention of local blocks', () => {
  /** A shipping state whose shipped blocks the test picks, recording the tenants opened. */
  class FakeShipping implements BlockShipState {
    readonly opened: string[] = [];
    readonly shipped = new Set<string>();
    /** Blocks queriers can find; by default every shipped one. */
    discoverable: Set<string> | undefined;
    openTenant(tenant: string, dir: string): Promise<void> {
      this.opened.push(`${tenant} ${dir}`);
      return Promise.resolve();
    }
    isShipped(_tenant: string, ulid: string): boolean {
      return this.shipped.has(ulid);
    }
    isDiscoverable(_tenant: string, ulid: string): boolean {
      return (this.discoverable ?? this.shipped).has(ulid);
    }
  }

  async function oneBlock(dbs: TenantDBs): Promise<string> {
    await dbs.push('a', [series('up', 1, [START, 1])]);
    await dbs.flush(['a'], true);
    return dbs.get('a')?.blocks()[0]?.meta.ulid as string;
  }

  it('without shipping never deletes a block, however old', async () => {
    const { dbs, clock } = makeDBs();
    await oneBlock(dbs);
    await clock.advance(100 * HOUR);
    expect(await dbs.get('a')?.applyRetention()).toEqual([]);
    expect(dbs.get('a')?.blocks()).toHaveLength(1);
    await dbs.close();
  });

  it('deletes a block only once shipped and retention_period past its max time', async () => {
    const shipping = new FakeShipping();
    const { dbs, clock } = makeDBs({ shipping, config: { retention: 6 * HOUR } });
    const ulid = await oneBlock(dbs);
    expect(shipping.opened).toEqual(['a /data/tsdb/a']);
    const maxTime = dbs.get('a')?.blocks()[0]?.meta.maxTime as number;
    await clock.advance(maxTime + 6 * HOUR - clock.now());
    // Old enough, not shipped: kept.
    expect(await dbs.get('a')?.applyRetention()).toEqual([]);
    shipping.shipped.add(ulid);
    expect(await dbs.get('a')?.applyRetention()).toEqual([ulid]);
    expect(dbs.get('a')?.blocks()).toHaveLength(0);
    await dbs.close();
  });

  it('keeps a shipped, expired block until queriers can find it in the bucket', async () => {
    const shipping = new FakeShipping();
    shipping.discoverable = new Set();
    const { dbs, clock } = makeDBs({ shipping, config: { retention: 6 * HOUR } });
    const ulid = await oneBlock(dbs);
    shipping.shipped.add(ulid);
    await clock.advance(100 * HOUR);
    expect(await dbs.get('a')?.applyRetention()).toEqual([]);
    shipping.discoverable.add(ulid);
    expect(await dbs.get('a')?.applyRetention()).toEqual([ulid]);
    await dbs.close();
  });

  it('also counts retention back from the newest block (Prometheus BeyondTimeRetention)', async () => {
    const shipping = new FakeShipping();
    const { dbs } = makeDBs({ shipping, config: { retention: 6 * HOUR } });
    const old = await oneBlock(dbs);
    await dbs.push('a', [series('up', 1, [START + 8 * HOUR, 2])]);
    await dbs.flush(['a'], true);
    expect(dbs.get('a')?.blocks()).toHaveLength(2);
    for (const b of dbs.get('a')?.blocks() ?? []) shipping.shipped.add(b.meta.ulid);
    // The clock has not moved: only the distance to the newest block makes `old` deletable.
    expect(await dbs.get('a')?.applyRetention()).toEqual([old]);
    await dbs.close();
  });
});
