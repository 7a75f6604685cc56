import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import {
  DuplicateSampleForTimestampError,
  Head,
  OutOfBoundsError,
  OutOfOrderSampleError,
  SampleRejectedError,
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

const newHead = (config: HeadConfig = {}) =>
  new Head(config, { logger: new CapturingLogger(), metrics: newMetricsRegistry() });

type Op =
  | { kind: 'append'; series: number; t: number; value: number }
  | { kind: 'commit' }
  | { kind: 'rollback' };

const VALUE_BITS = [toBits(1), toBits(2), toBits(staleNaN()), toBits(NaN)];

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
  'ok' | 'ignored' | 'sample_out_of_bounds' | 'sample_out_of_order' | 'new_value_for_timestamp';

/**
 * The ingestion rule as a model (Prometheus appendable + appendableMinValidTime): the window
 * is fixed on an appender's first sample; committed and pending samples both count.
 */
class Model {
  committed = new Map<number, ReadSample[]>();
  pending = new Map<number, ReadSample[]>();
  maxT: number | undefined;
  window: number | undefined;
  constructor(private readonly half: number) {}
  append(s: number, t: number, bits: bigint): Outcome {
    this.window ??= (this.maxT ?? t) - this.half;
    const last = (this.pending.get(s) ?? this.committed.get(s) ?? []).at(-1);
    if (t < this.window) return 'sample_out_of_bounds';
    if (last !== undefined && t < last.t) return 'sample_out_of_order';
    if (last !== undefined && t === last.t)
      return last.bits === bits ? 'ignored' : 'new_value_for_timestamp';
    this.pending.set(s, [...(this.pending.get(s) ?? this.committed.get(s) ?? []), { t, bits }]);
    return 'ok';
  }
  end(commit: boolean): void {
    if (commit)
      for (const [s, samples] of this.pending) {
        this.committed.set(s, samples);
        this.maxT = Math.max(this.maxT ?? -Infinity, samples.at(-1)!.t);
      }
    this.pending.clear();
    this.window = undefined;
  }
}

describe('head appender', () => {
  it('accepts and rejects exactly as the ingestion-window model says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const head = newHead({ chunkRange: 100, stripeSize: 4 });
        const model = new Model(50);
        let app = head.appender();
        for (const o of ops) {
          if (o.kind === 'append') {
            const bits = VALUE_BITS[o.value]!;
            const expected = model.append(o.series, o.t, bits);
            let got: Outcome;
            try {
              const before = app.pendingSamples();
              app.append(seriesLabels(o.series), o.t, fromBits(bits));
              got = app.pendingSamples() > before ? 'ok' : 'ignored';
            } catch (err) {
              if (!(err instanceof SampleRejectedError)) throw err;
              got = err.code as Outcome;
            }
            expect(got, `append series ${o.series} t=${o.t}`).toBe(expected);
          } else {
            if (o.kind === 'commit') await app.commit();
            else app.rollback();
            model.end(o.kind === 'commit');
            app = head.appender();
          }
        }
        const want = new Map<string, ReadSample[]>();
        for (const [s, samples] of model.committed) want.set(seriesLabels(s).toString(), samples);
        const got = await readAll(head);
        expect(new Map([...got].sort())).toEqual(new Map([...want].sort()));
        expect(head.maxTime()).toBe(model.maxT ?? Number.MIN_SAFE_INTEGER);
      }),
      { numRuns: 300 },
    );
  });

  it('names the timestamp and the minimum accepted in an out-of-bounds error', async () => {
    const head = newHead();
    const app = head.appender();
    app.append(seriesLabels(0), 10_000_000, 1);
    await app.commit();
    const late = head.appender();
    const err = (() => {
      try {
        late.append(seriesLabels(1), 1000, 1);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(OutOfBoundsError);
    expect((err as OutOfBoundsError).message).toBe(
      'sample timestamp out of bounds: ts=1000, min valid=6400000',
    );
    expect((err as OutOfBoundsError).minValidTime).toBe(10_000_000 - 3_600_000);
  });

  it('ignores identical duplicates and rejects a new value for a timestamp', async () => {
    const head = newHead();
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 1000, 5);
    await app.commit();
    const again = head.appender();
    expect(again.append(ref, 1000, 5)).toBe(ref);
    expect(again.pendingSamples()).toBe(0);
    expect(() => again.append(ref, 1000, 6)).toThrow(DuplicateSampleForTimestampError);
    expect(() => again.append(ref, 1000, 6)).toThrow(/ts=1000, existing value=5, new value=6/);
    expect(() => again.append(ref, 999, 6)).toThrow(OutOfOrderSampleError);
    // A stale marker is not a duplicate of an ordinary NaN: the bits differ.
    again.append(ref, 2000, staleNaN());
    expect(() => again.append(ref, 2000, NaN)).toThrow(DuplicateSampleForTimestampError);
    again.append(ref, 2000, staleNaN());
    expect(again.pendingSamples()).toBe(1);
    await again.commit();
    expect((await readAll(head)).get(seriesLabels(0).toString())).toEqual([
      { t: 1000, bits: toBits(5) },
      { t: 2000, bits: toBits(staleNaN()) },
    ]);
  });

  it('rollback leaves no series, postings or samples behind', async () => {
    const head = newHead();
    const keep = head.appender();
    keep.append(seriesLabels(0), 1000, 1);
    await keep.commit();
    const app = head.appender();
    const ref = app.append(seriesLabels(7), 1000, 1);
    app.append(seriesLabels(0), 2000, 2);
    app.rollback();
    expect(head.seriesCount()).toBe(1);
    expect(head.seriesByRef(ref)).toBeUndefined();
    expect(await head.labelValues('i')).toEqual(['0']);
    expect(head.maxTime()).toBe(1000);
    expect(() => app.append(seriesLabels(0), 3000, 1)).toThrow(/already committed or rolled back/);
    // Refs are never reused, even those of rolled-back series.
    const next = head.appender();
    expect(next.append(seriesLabels(7), 1500, 1)).toBeGreaterThan(ref);
  });

  it('keeps NaN payloads bit-exact from append to read', async () => {
    const head = newHead();
    const app = head.appender();
    const payloads = [
      0x7ff0000000000002n,
      0x7ff8000000000001n,
      0xfff8000000000000n,
      0x7ff4000000000abcn,
    ];
    payloads.forEach((bits, i) => app.append(seriesLabels(0), 1000 * (i + 1), fromBits(bits)));
    await app.commit();
    const got = (await readAll(head)).get(seriesLabels(0).toString())!;
    expect(got.map((s) => s.bits)).toEqual(payloads);
  });

  it('cuts chunks at 120 samples and at the chunk range boundary', async () => {
    const head = newHead();
    const app = head.appender();
    // 15s scrapes from the start of a 2h range: 480 samples fit, so chunks of 120 each.
    for (let i = 0; i < 300; i++) app.append(seriesLabels(0), i * 15_000, i);
    await app.commit();
    const series = head.seriesByLabels(seriesLabels(0))!;
    expect(series.completed.map((c) => c.chunk.numSamples())).toEqual([120, 120]);
    expect(series.openChunk()!.chunk.numSamples()).toBe(60);
    expect(series.completed[1]!.minTime).toBe(120 * 15_000);
    const next = head.appender();
    next.append(series.ref, 2 * 3_600_000, 1); // the next chunk range starts a chunk
    await next.commit();
    expect(series.completed.length).toBe(3);
    expect(series.openChunk()!.minTime).toBe(7_200_000);
  });

  it('drops at commit what another appender overtook, and reuses its series', async () => {
    const head = newHead();
    const a = head.appender();
    const b = head.appender();
    const refA = a.append(seriesLabels(3), 1000, 1);
    const refB = b.append(seriesLabels(3), 2000, 2);
    expect(refA).not.toBe(refB);
    await b.commit();
    expect(await a.commit()).toEqual({ appended: 0, dropped: 1 });
    expect(head.seriesCount()).toBe(1);
    expect((await readAll(head)).get(seriesLabels(3).toString())).toEqual([
      { t: 2000, bits: toBits(2) },
    ]);
  });

  it('keeps each appender’s own order when two appenders write one series at once', async () => {
    const head = newHead();
    const app = head.appender();
    const ref = app.append(seriesLabels(0), 500, 1);
    await app.commit();
    const a = head.appender();
    const b = head.appender();
    a.append(ref, 1000, 1);
    b.append(ref, 1500, 2);
    // 900 is after the committed 500 but before a's own pending 1000.
    expect(() => a.append(ref, 900, 1)).toThrow(OutOfOrderSampleError);
    expect(() => b.append(ref, 1200, 1)).toThrow(OutOfOrderSampleError);
    expect(() => b.append(ref, 1500, 3)).toThrow(DuplicateSampleForTimestampError);
    a.append(ref, 1100, 1);
    await a.commit();
    b.append(ref, 1600, 3);
    expect(() => b.append(ref, 1550, 1)).toThrow(OutOfOrderSampleError);
    expect(await b.commit()).toEqual({ appended: 2, dropped: 0 });
    expect((await readAll(head)).get(seriesLabels(0).toString())!.map((s) => s.t)).toEqual([
      500, 1000, 1100, 1500, 1600,
    ]);
  });

  it('takes every sample of an appender that other commits left in order', async () => {
    const head = newHead();
    const a = head.appender();
    const b = head.appender();
    a.append(seriesLabels(1), 1000, 1);
    a.append(seriesLabels(1), 2000, 2);
    a.append(seriesLabels(2), 1000, 3);
    b.append(seriesLabels(3), 5000, 4);
    b.append(seriesLabels(1), 500, 5);
    await b.commit();
    // b's commit moved series 1 to 500 only: a's samples are all still after it.
    expect(await a.commit()).toEqual({ appended: 3, dropped: 0 });
    const all = await readAll(head);
    expect(all.get(seriesLabels(1).toString())!.map((x) => x.t)).toEqual([500, 1000, 2000]);
    expect(head.seriesCount()).toBe(3);
  });

  it('re-checks in full after a truncation removed series', async () => {
    const head = newHead();
    const first = head.appender();
    first.append(seriesLabels(1), 1000, 1);
    first.append(seriesLabels(2), 1000, 1);
    await first.commit();
    const a = head.appender();
    a.append(seriesLabels(2), 1500, 2);
    // Both series end before 1200: removed, and 1500 is no longer after a series' newest
    // in the head but after nothing at all; the sample's series is gone, so it is dropped.
    expect(head.truncateMemory(1200).removedSeries).toBe(2);
    expect(await a.commit()).toEqual({ appended: 0, dropped: 1 });
    expect(head.seriesCount()).toBe(0);
  });

  it('finds a series again by the same Labels object, never across heads or after removal', async () => {
    const labels = seriesLabels(7);
    const one = newHead();
    const two = newHead();
    const app1 = one.appender();
    const ref1 = app1.append(labels, 1000, 1);
    await app1.commit();
    expect(one.seriesByLabels(labels)?.ref).toBe(ref1);
    // The other head has no such series, though the Labels object now hints at one's.
    expect(two.seriesByLabels(labels)).toBeUndefined();
    two.insertSeries(two.allocateRef(), labels);
    two.insertSeries(two.allocateRef(), seriesLabels(8));
    expect(two.seriesByLabels(labels)?.ref).toBe(1);
    expect(one.seriesByLabels(labels)?.ref).toBe(ref1);
    // Removed by truncation: gone, and a new append makes a new series.
    expect(one.truncateMemory(5000).removedSeries).toBe(1);
    expect(one.seriesByLabels(labels)).toBeUndefined();
    const app2 = one.appender();
    const ref2 = app2.append(labels, 6000, 1);
    await app2.commit();
    expect(ref2).not.toBe(ref1);
    expect(one.seriesByLabels(labels)?.ref).toBe(ref2);
    expect(one.seriesByLabels(seriesLabels(7))?.ref).toBe(ref2);
    // A closed head lets go of the series its label sets hinted at.
    expect(labels.seriesHint).toBe(one.seriesByRef(ref2));
    await one.close();
    expect(labels.seriesHint).toBeUndefined();
  });

  it('refuses bad configuration and bad input with the value in the message', () => {
    expect(() => newHead({ stripeSize: 3 })).toThrow(/power of two, got 3/);
    expect(() => newHead({ chunkRange: 0 })).toThrow(/got 0/);
    const app = newHead().appender();
    expect(() => app.append(seriesLabels(0), 1.5, 1)).toThrow(/got 1.5/);
    expect(() => app.append(42, 1, 1)).toThrow(/unknown series ref 42/);
  });
});
