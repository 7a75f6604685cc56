import { describe, expect, it } from 'vitest';
import { Matcher } from '../model/index.js';
import { SampleLimitError } from './errors.js';
import { markDeleted, uploadFakeBlock } from './fake_blocks.testing.js';
import {
  HOUR,
  MINUTE,
  T0,
  buildStores,
  metricValue,
  newWorld,
  twoSeriesBlock,
} from './gateway_harness.testing.js';

const ALL = [Matcher.regex('__name__', '.+')];

describe('BucketStores queries', () => {
  it('merges a series across blocks into one with chunks in time order; lists only held blocks', async () => {
    const world = newWorld();
    const older = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const newer = await twoSeriesBlock(world, 't', 2, T0 - 4 * HOUR);
    const { stores } = buildStores(world);
    await stores.initialSync();
    const unknown = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const res = await stores.series('t', {
      start: T0 - 10 * HOUR,
      end: T0,
      matchers: [Matcher.equal('job', 'a')],
      blockIds: [newer.ulid, unknown, older.ulid],
    });
    expect(res.queriedBlocks).toEqual([older.ulid, newer.ulid]);
    expect(res.series).toHaveLength(1);
    const chunks = res.series[0]?.chunks ?? [];
    expect(chunks.map((c) => c.minTime)).toEqual([
      T0 - 6 * HOUR,
      T0 - 5 * HOUR,
      T0 - 4 * HOUR,
      T0 - 3 * HOUR,
    ]);
    expect(new TextDecoder().decode(chunks[0]?.data)).toBe(
      `${older.ulid}:${T0 - 6 * HOUR}:${T0 - 5 * HOUR - 1}`,
    );
    expect(res.stats.chunksFetched).toBe(4);
    const onlyOne = await stores.series('t', {
      start: T0 - 10 * HOUR,
      end: T0,
      matchers: ALL,
      blockIds: [older.ulid],
    });
    expect(onlyOne.queriedBlocks).toEqual([older.ulid]);
    expect(
      await stores.series('other', { start: 0, end: T0, matchers: ALL, blockIds: [older.ulid] }),
    ).toEqual({
      series: [],
      queriedBlocks: [],
      stats: { bucketRequests: 0, bucketBytes: 0, seriesFetched: 0, chunksFetched: 0 },
    });
  });

  it('answers label names and values over the held blocks in range', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const b = await uploadFakeBlock(world.bucket, {
      tenant: 't',
      ulidTime: T0 - HOUR,
      seq: 2,
      minTime: T0 - 4 * HOUR,
      maxTime: T0 - 2 * HOUR,
      series: [
        { labels: { __name__: 'down', zone: 'z1' }, chunks: [[T0 - 4 * HOUR, T0 - 3 * HOUR]] },
      ],
    });
    const { stores } = buildStores(world);
    await stores.initialSync();
    const names = await stores.labelNames('t', {
      start: 0,
      end: T0,
      matchers: [],
      blockIds: [a.ulid, b.ulid],
    });
    expect(names).toEqual({
      values: ['__name__', 'job', 'zone'],
      queriedBlocks: [a.ulid, b.ulid].sort(),
    });
    const values = await stores.labelValues('t', {
      name: '__name__',
      start: 0,
      end: T0,
      matchers: [],
      blockIds: [a.ulid, b.ulid],
    });
    expect(values.values).toEqual(['down', 'up']);
    // Outside the range, the block holds nothing but still counts as queried.
    const later = await stores.labelValues('t', {
      name: 'job',
      start: T0 - 3 * HOUR,
      end: T0,
      matchers: [],
      blockIds: [a.ulid, b.ulid],
    });
    expect(later.values).toEqual([]);
    expect(later.queriedBlocks).toEqual([a.ulid, b.ulid].sort());
  });

  it('fails a query past max_sample_count (chunks × 120) with a message naming the limit', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const { stores, registry } = buildStores(world, { maxSampleCount: 300 });
    await stores.initialSync();
    const q = { start: 0, end: T0, matchers: ALL, blockIds: [a.ulid] };
    const err = await stores.series('t', q).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SampleLimitError);
    expect((err as Error).message).toContain('360 samples');
    expect((err as Error).message).toContain('limit of 300');
    expect((err as Error).message).toContain('max-sample-count');
    expect(await metricValue(registry, 'cortex_bucket_store_queries_dropped_total')).toBe(1);
    // Two chunks (240) are within the limit.
    const ok = await stores.series('t', { ...q, matchers: [Matcher.equal('job', 'a')] });
    expect(ok.series).toHaveLength(1);
  });

  it('runs at most max_concurrent queries per tenant, queueing the rest', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const { stores, registry } = buildStores(world, { maxConcurrent: 2 });
    await stores.initialSync();
    let release!: () => void;
    world.layer.hold = new Promise((r) => (release = r));
    const q = { start: 0, end: T0, matchers: ALL, blockIds: [a.ulid] };
    const queries = [1, 2, 3, 4, 5].map(() => stores.series('t', q));
    await world.clock.advance(0);
    expect(world.layer.running).toBe(2);
    expect(await metricValue(registry, 'strata_bucket_stores_gate_queries_waiting')).toBe(3);
    // A queued query that is aborted leaves the queue.
    const ctl = new AbortController();
    const aborted = stores.series('t', q, ctl.signal);
    ctl.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
    release();
    world.layer.hold = undefined;
    const results = await Promise.all(queries);
    expect(results.every((r) => r.series.length === 2)).toBe(true);
    expect(world.layer.maxRunning).toBe(2);
    expect(await metricValue(registry, 'cortex_bucket_stores_gate_queries_in_flight')).toBe(0);
  });

  it('lazy loading opens a block on first query and closes it after the idle timeout', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const { stores, registry, fs } = buildStores(world, {
      lazyLoadingEnabled: true,
      lazyLoadingIdleTimeoutMs: 20 * MINUTE,
    });
    await stores.initialSync();
    expect(await fs.exists(`/data/tsdb-sync/t/${a.ulid}/index-header`)).toBe(true);
    expect(world.layer.opens).toBe(0);
    expect(stores.blocks('t')[0]?.open).toBe(false);
    await stores.series('t', { start: 0, end: T0, matchers: ALL, blockIds: [a.ulid] });
    expect(world.layer.opens).toBe(1);
    await world.clock.advance(10 * MINUTE);
    await stores.unloadIdleBlocks();
    expect(world.layer.closes).toBe(0);
    await world.clock.advance(11 * MINUTE);
    await stores.unloadIdleBlocks();
    expect(world.layer.closes).toBe(1);
    expect(await fs.exists(`/data/tsdb-sync/t/${a.ulid}/index-header`)).toBe(true);
    expect(await metricValue(registry, 'cortex_bucket_store_indexheader_lazy_unload_total')).toBe(
      1,
    );
    await stores.series('t', { start: 0, end: T0, matchers: ALL, blockIds: [a.ulid] });
    expect(world.layer.opens).toBe(2);
    expect(await metricValue(registry, 'cortex_bucket_store_indexheader_lazy_load_total')).toBe(2);
  });

  it('a block dropped while a query reads it is closed only after the query', async () => {
    const world = newWorld();
    const a = await twoSeriesBlock(world, 't', 1, T0 - 6 * HOUR);
    const { stores } = buildStores(world);
    await stores.initialSync();
    let release!: () => void;
    world.layer.hold = new Promise((r) => (release = r));
    const running = stores.series('t', { start: 0, end: T0, matchers: ALL, blockIds: [a.ulid] });
    await world.clock.advance(0);
    // Marked for deletion long ago: the sync drops it while the query holds it.
    await markDeleted(world.bucket, 't', a.ulid, T0 - 7 * HOUR);
    const sync = stores.syncBlocks();
    await world.clock.advance(0);
    expect(world.layer.closes).toBe(0);
    release();
    world.layer.hold = undefined;
    expect((await running).series).toHaveLength(2);
    await sync;
    expect(world.layer.closes).toBe(1);
    expect(stores.blocks('t')).toEqual([]);
  });
});
