import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newMetricsRegistry, type MetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import {
  DuplicateSampleForTimestampError,
  Head,
  OutOfBoundsError,
  OutOfOrderSampleError,
  SampleRejectedError,
  TooOldSampleError,
  type HeadConfig,
} from './index.js';
import {
  fromBits,
  readAll,
  seriesLabels,
  staleNaN,
  toBits,
  type ReadSample,
} from './testing/helpers.js';

const newHead = (config: HeadConfig = {}, metrics: MetricsRegistry = newMetricsRegistry()) =>
  new Head(config, { logger: new CapturingLogger(), metrics });

const VALUE_BITS = [toBits(1), toBits(2), toBits(staleNaN()), toBits(NaN)];

type Op =
  | { kind: 'append'; series: number; t: number; value: number }
  | { kind: 'commit' }
  | { kind: 'rollback' };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      series: fc.integer({ min: 0, max: 2 }),
      t: fc.integer({ min: 0, max: 400 }),
      value: fc.integer({ min: 0, max: VALUE_BITS.length - 1 }),
    }),
    weight: 8,
  },
  { arbitrary: fc.constant({ kind: 'commit' as const }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'rollback' as const }), weight: 1 },
);

type Outcome =
  | 'ok'
  | 'ignored'
  | 'sample_out_of_bounds'
  | 'sample_too_old'
  | 'sample_out_of_order'
  | 'new_value_for_timestamp';

/**
 * The ingestion rule with an out-of-order window, as a model (Prometheus appendable): an
 * appender fixes min valid = max time − half range and the out-of-order floor = max time −
 * window on its first sample. In order: after the series' newest in-order sample (committed
 * or pending). Otherwise, within the window: out of order, unless the series already holds
 * the timestamp (same value ignored, another rejected). At commit in-order samples go in
 * first, then out-of-order ones whose timestamp is still free.
 */
class Model {
  inOrder = new Map<number, ReadSample[]>();
  all = new Map<number, Map<number, bigint>>();
  maxT: number | undefined;
  private minValid: number | undefined;
  private oooMin = 0;
  private pendingIn = new Map<number, ReadSample[]>();
  private pendingOOO: { s: number; t: number; bits: bigint }[] = [];

  constructor(
    private readonly half: number,
    private readonly window: number,
  ) {}

  append(s: number, t: number, bits: bigint): Outcome {
    if (this.minValid === undefined) {
      const base = this.maxT ?? t;
      this.minValid = base - this.half;
      this.oooMin = base - this.window;
    }
    const newest = (this.pendingIn.get(s) ?? this.inOrder.get(s) ?? []).at(-1);
    if (t >= this.minValid) {
      if (newest === undefined || t > newest.t) {
        const list = this.pendingIn.get(s) ?? [...(this.inOrder.get(s) ?? [])];
        list.push({ t, bits });
        this.pendingIn.set(s, list);
        return 'ok';
      }
      if (t === newest.t) return newest.bits === bits ? 'ignored' : 'new_value_for_timestamp';
    }
    if (this.window > 0 && t >= this.oooMin) {
      const existing =
        this.pendingOOO.find((p) => p.s === s && p.t === t)?.bits ?? this.all.get(s)?.get(t);
      if (existing !== undefined) return existing === bits ? 'ignored' : 'new_value_for_timestamp';
      this.pendingOOO.push({ s, t, bits });
      return 'ok';
    }
    if (this.window > 0) return 'sample_too_old';
    if (t < this.minValid) return 'sample_out_of_bounds';
    return 'sample_out_of_order';
  }

  end(commit: boolean): void {
    if (commit) {
      for (const [s, list] of this.pendingIn) {
        this.inOrder.set(s, list);
        const all = this.all.get(s) ?? new Map<number, bigint>();
        for (const x of list) all.set(x.t, x.bits);
        this.all.set(s, all);
        this.maxT = Math.max(this.maxT ?? -Infinity, list.at(-1)!.t);
      }
      for (const p of this.pendingOOO) {
        const all = this.all.get(p.s) ?? new Map<number, bigint>();
        if (!all.has(p.t)) all.set(p.t, p.bits);
        this.all.set(p.s, all);
      }
    }
    this.pendingIn.clear();
    this.pendingOOO = [];
    this.minValid = undefined;
  }

  samples(): Map<string, ReadSample[]> {
    const out = new Map<string, ReadSample[]>();
    for (const [s, all] of this.all) {
      if (all.size === 0) continue;
      const list = [...all].map(([t, bits]) => ({ t, bits })).sort((a, b) => a.t - b.t);
      out.set(seriesLabels(s).toString(), list);
    }
    return out;
  }
}

function tryAppend(
  app: ReturnType<Head['appender']>,
  series: number,
  t: number,
  bits: bigint,
): Outcome {
  try {
    const before = app.pendingSamples();
    app.append(seriesLabels(series), t, fromBits(bits));
    return app.pendingSamples() > before ? 'ok' : 'ignored';
  } catch (err) {
    if (!(err instanceof SampleRejectedError)) throw err;
    return err.code;
  }
}

describe('head out-of-order window', () => {
  it('accepts, rejects and reads back exactly as the out-of-order model says', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 80 }),
        fc.constantFrom(0, 20, 120, 1000),
        fc.integer({ min: 1, max: 4 }),
        async (ops, window, capMax) => {
          const head = newHead({
            chunkRange: 100,
            stripeSize: 4,
            samplesPerChunk: 4,
            outOfOrderTimeWindow: window,
            outOfOrderCapMax: capMax,
          });
          const model = new Model(50, window);
          let app = head.appender();
          for (const o of ops) {
            if (o.kind === 'append') {
              const bits = VALUE_BITS[o.value]!;
              const expected = model.append(o.series, o.t, bits);
              const got = tryAppend(app, o.series, o.t, bits);
              expect(got, `append series ${o.series} t=${o.t}`).toBe(expected);
            } else {
              if (o.kind === 'commit') await app.commit();
              else app.rollback();
              model.end(o.kind === 'commit');
              app = head.appender();
            }
          }
          const got = await readAll(head);
          expect(new Map([...got].sort())).toEqual(new Map([...model.samples()].sort()));
          expect(head.maxTime()).toBe(model.maxT ?? Number.MIN_SAFE_INTEGER);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps window 0 exactly as before: out of bounds and out of order, no OOO data', async () => {
    const head = newHead();
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000_000, 1);
    await app.commit();
    const late = head.appender();
    expect(() => late.append(ref, 9_999_999, 1)).toThrow(OutOfOrderSampleError);
    expect(() => late.append(ref, 1000, 1)).toThrow(OutOfBoundsError);
    expect(() => late.append(ref, 1000, 1)).toThrow(
      'sample timestamp out of bounds: ts=1000, min valid=6400000',
    );
    expect(head.seriesByRef(ref)!.ooo).toBeNull();
    expect(head.oooMaxTime()).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('names the timestamp and the window floor when a sample is too old', async () => {
    const head = newHead({ outOfOrderTimeWindow: 600_000 });
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000_000, 1);
    await app.commit();
    const late = head.appender();
    let err: unknown;
    try {
      late.append(ref, 9_000_000, 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TooOldSampleError);
    expect((err as TooOldSampleError).message).toBe(
      'sample timestamp too old: ts=9000000, min valid=9400000',
    );
    expect((err as TooOldSampleError).minValidTime).toBe(9_400_000);
    // Within the window it goes in, although older than the head's in-order floor.
    late.append(ref, 9_400_000, 2);
    late.append(ref, 9_999_000, 3);
    expect(await late.commit()).toEqual({ appended: 2, dropped: 0 });
    expect((await readAll(head)).get(seriesLabels(0).toString())).toEqual([
      { t: 9_400_000, bits: toBits(2) },
      { t: 9_999_000, bits: toBits(3) },
      { t: 10_000_000, bits: toBits(1) },
    ]);
    expect(head.oooMinTime()).toBe(9_400_000);
    expect(head.oooMaxTime()).toBe(9_999_000);
    expect(head.minTime()).toBe(10_000_000); // in-order range unchanged
  });

  it('checks duplicates against in-order and out-of-order data alike', async () => {
    const head = newHead({ outOfOrderTimeWindow: 10_000, outOfOrderCapMax: 2 });
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 1000, 1);
    app.append(ref, 5000, 5);
    await app.commit();
    const ooo = head.appender();
    ooo.append(ref, 3000, 3);
    ooo.append(ref, 2000, staleNaN());
    ooo.append(ref, 4000, 4); // the buffer (cap 2) is cut into a chunk at commit
    expect(() => ooo.append(ref, 3000, 33)).toThrow(DuplicateSampleForTimestampError);
    await ooo.commit();
    expect(head.seriesByRef(ref)!.ooo!.chunks).toHaveLength(1);
    const again = head.appender();
    expect(again.append(ref, 1000, 1)).toBe(ref); // identical to an in-order sample
    expect(again.append(ref, 2000, staleNaN())).toBe(ref); // identical, in a chunk
    expect(again.append(ref, 4000, 4)).toBe(ref); // identical, in the buffer
    expect(again.pendingSamples()).toBe(0);
    expect(() => again.append(ref, 1000, 7)).toThrow(
      'duplicate sample for timestamp: ts=1000, existing value=1, new value=7',
    );
    expect(() => again.append(ref, 2000, NaN)).toThrow(DuplicateSampleForTimestampError);
    expect(() => again.append(ref, 4000, 44)).toThrow(/existing value=4, new value=44/);
    again.rollback();
    const got = (await readAll(head)).get(seriesLabels(0).toString())!;
    expect(got).toEqual([
      { t: 1000, bits: toBits(1) },
      { t: 2000, bits: toBits(staleNaN()) },
      { t: 3000, bits: toBits(3) },
      { t: 4000, bits: toBits(4) },
      { t: 5000, bits: toBits(5) },
    ]);
  });

  it('merges in-order and out-of-order samples on read, within the queried range', async () => {
    const head = newHead({ outOfOrderTimeWindow: 1_000_000, outOfOrderCapMax: 3 });
    const app = head.appender();
    for (let t = 0; t <= 100_000; t += 10_000) app.append(seriesLabels(0), t, t);
    await app.commit();
    // Out-of-order samples between the in-order ones, in a scrambled order.
    const ooo = head.appender();
    for (const t of [95_000, 5_000, 45_000, 25_000, 15_000, 85_000, 65_000, 55_000])
      ooo.append(seriesLabels(0), t, -t);
    await ooo.commit();
    const series = head.seriesByLabels(seriesLabels(0))!;
    expect(series.ooo!.chunks.length).toBe(2); // 8 samples, cap 3: two chunks and a buffer
    const all = (await readAll(head)).get(seriesLabels(0).toString())!;
    expect(all.map((s) => s.t)).toEqual([
      0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000, 40_000, 45_000, 50_000, 55_000, 60_000,
      65_000, 70_000, 80_000, 85_000, 90_000, 95_000, 100_000,
    ]);
    expect(all.find((s) => s.t === 45_000)!.bits).toBe(toBits(-45_000));
    const part = (await readAll(head, 42_000, 66_000)).get(seriesLabels(0).toString())!;
    expect(part.map((s) => s.t)).toEqual([45_000, 50_000, 55_000, 60_000, 65_000]);
    // Without out-of-order data (as block cutting reads the head).
    const [inOrderOnly] = await head.select([], 0, 100_000, { outOfOrder: false });
    expect(inOrderOnly).toBeUndefined(); // no matcher: no postings
  });

  it('applies a changed window to new appenders, keeping out-of-order data already in', async () => {
    const head = newHead();
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000, 1);
    await app.commit();
    expect(() => head.appender().append(ref, 9_000, 1)).toThrow(OutOfOrderSampleError);
    const before = head.appender();
    before.append(ref, 11_000, 1); // fixes its window (0) now
    head.setOutOfOrderTimeWindow(5_000);
    expect(head.outOfOrderTimeWindow()).toBe(5_000);
    expect(() => before.append(ref, 9_000, 1)).toThrow(OutOfOrderSampleError);
    before.rollback();
    const after = head.appender();
    after.append(ref, 9_000, 9);
    expect(() => after.append(ref, 4_000, 1)).toThrow(TooOldSampleError);
    await after.commit();
    head.setOutOfOrderTimeWindow(0);
    expect(() => head.appender().append(ref, 8_000, 1)).toThrow(OutOfOrderSampleError);
    expect((await readAll(head)).get(seriesLabels(0).toString())!.map((s) => s.t)).toEqual([
      9_000, 10_000,
    ]);
    expect(() => head.setOutOfOrderTimeWindow(-1)).toThrow(/non-negative integer of ms, got -1/);
  });

  it('drops at commit an out-of-order sample another appender committed first', async () => {
    const head = newHead({ outOfOrderTimeWindow: 10_000 });
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000, 1);
    await app.commit();
    const a = head.appender();
    const b = head.appender();
    a.append(ref, 5_000, 5);
    a.append(ref, 6_000, 6);
    b.append(ref, 5_000, 55);
    await b.commit();
    expect(await a.commit()).toEqual({ appended: 1, dropped: 1 });
    expect((await readAll(head)).get(seriesLabels(0).toString())).toEqual([
      { t: 5_000, bits: toBits(55) },
      { t: 6_000, bits: toBits(6) },
      { t: 10_000, bits: toBits(1) },
    ]);
  });

  it('moves an in-order sample overtaken before commit into the out-of-order data', async () => {
    const head = newHead({ outOfOrderTimeWindow: 10_000 });
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000, 1);
    await app.commit();
    const a = head.appender();
    const b = head.appender();
    a.append(ref, 11_000, 11); // in order when appended
    b.append(ref, 12_000, 12);
    await b.commit();
    expect(await a.commit()).toEqual({ appended: 1, dropped: 0 });
    expect(head.seriesByRef(ref)!.hasOOOSamples()).toBe(true);
    expect((await readAll(head)).get(seriesLabels(0).toString())!.map((s) => s.t)).toEqual([
      10_000, 11_000, 12_000,
    ]);
  });

  it('counts appended and refused samples under Prometheus metric names', async () => {
    const metrics = newMetricsRegistry();
    const head = newHead({ outOfOrderTimeWindow: 1_000 }, metrics);
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 10_000, 1);
    await app.commit();
    const ooo = head.appender();
    ooo.append(ref, 9_500, 1);
    expect(() => ooo.append(ref, 8_000, 1)).toThrow(TooOldSampleError);
    await ooo.commit();
    const strictMetrics = newMetricsRegistry();
    const strict = newHead({}, strictMetrics);
    const s = strict.appender();
    const r = s.append(seriesLabels(0), 10_000_000, 1);
    await s.commit();
    expect(() => strict.appender().append(r, 9_999_999, 1)).toThrow(OutOfOrderSampleError);
    expect(() => strict.appender().append(r, 1, 1)).toThrow(OutOfBoundsError);
    const strictText = await strictMetrics.metrics();
    expect(strictText).toContain('prometheus_tsdb_out_of_order_samples_total{type="float"} 1');
    expect(strictText).toContain('prometheus_tsdb_out_of_bound_samples_total{type="float"} 1');
    const text = await metrics.metrics();
    expect(text).toContain(
      'prometheus_tsdb_head_out_of_order_samples_appended_total{type="float"} 1',
    );
    expect(text).toContain('prometheus_tsdb_too_old_samples_total{type="float"} 1');
    expect(text).toContain('prometheus_tsdb_head_samples_appended_total 2');
  });
});
