import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Labels, Matcher } from '../../model/index.js';
import { newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { ValueType } from '../chunkenc/index.js';
import { HeadSampleIterator } from './head_read.js';
import { Head } from './index.js';

const newHead = () =>
  new Head(
    { stripeSize: 8, chunkRange: 1000, samplesPerChunk: 4 },
    {
      logger: new CapturingLogger(),
      metrics: newMetricsRegistry(),
    },
  );

const labelSet = fc
  .record({
    job: fc.constantFrom('api', 'db', 'web'),
    instance: fc.option(fc.constantFrom('a', 'b', 'c', ''), { nil: undefined }),
    zone: fc.option(fc.constantFrom('eu', 'us'), { nil: undefined }),
  })
  .map(({ job, instance, zone }) => {
    const obj: Record<string, string> = { __name__: 'up', job };
    if (instance !== undefined && instance !== '') obj['instance'] = instance;
    if (zone !== undefined) obj['zone'] = zone;
    return Labels.fromObject(obj);
  });

const matcher = fc.oneof(
  fc.constantFrom('job', 'instance', 'zone', 'missing').chain((name) =>
    fc
      .record({
        type: fc.constantFrom('=' as const, '!=' as const, '=~' as const, '!~' as const),
        value: fc.constantFrom('', 'api', 'a', 'b|c', 'eu', '.*', '.+', 'd.*'),
      })
      .map(({ type, value }) => new Matcher(type, name, value)),
  ),
);

/** `n` series `x{i}` in an order unlike their label order, the head filled with them. */
async function shuffledSeries(head: Head, n: number): Promise<Labels[]> {
  const sets = Array.from({ length: n }, (_, i) =>
    Labels.fromStrings('__name__', 'x', 'i', String((i * 7919) % n)),
  );
  await fill(head, sets);
  return sets;
}

async function fill(head: Head, sets: Labels[]): Promise<void> {
  const app = head.appender();
  for (const [i, labels] of sets.entries()) app.append(labels, 100 + i, i);
  await app.commit();
}

describe('head reads', () => {
  it('postings and label values match a naive scan of the series', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(labelSet, { maxLength: 40 }), async (sets) => {
        const head = newHead();
        await fill(head, sets);
        const unique = new Map(sets.map((l) => [l.toString(), l]));
        const series = [...unique.values()].map((l) => ({
          labels: l,
          ref: head.seriesByLabels(l)!.ref,
        }));
        for (const name of ['job', 'instance', 'zone']) {
          const values = [
            ...new Set(series.filter((s) => s.labels.has(name)).map((s) => s.labels.get(name))),
          ].sort();
          expect(await head.labelValues(name)).toEqual(values);
          for (const value of values) {
            const want = series
              .filter((s) => s.labels.get(name) === value)
              .map((s) => s.ref)
              .sort((a, b) => a - b);
            expect([...(await head.postings(name, value))]).toEqual(want);
          }
        }
        const names = [...new Set(series.flatMap((s) => s.labels.names()))].sort();
        expect(await head.labelNames()).toEqual(names);
        expect(head.seriesCount()).toBe(unique.size);
      }),
    );
  });

  it('select returns the matching series sorted by labels, like a naive filter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(labelSet, { maxLength: 30 }),
        fc.array(matcher, { minLength: 1, maxLength: 3 }),
        async (sets, matchers) => {
          const head = newHead();
          await fill(head, sets);
          const unique = [...new Map(sets.map((l) => [l.toString(), l])).values()];
          const want = unique
            .filter((l) => matchers.every((m) => m.matches(l.get(m.name))))
            .sort((a, b) => Labels.compare(a, b))
            .map((l) => l.toString());
          const got = (await head.select(matchers, 0, 10_000)).map((s) => s.labels.toString());
          expect(got).toEqual(want);
        },
      ),
    );
  });

  it('iterates only samples in [mint, maxt] across chunks, with seek', async () => {
    const head = newHead();
    const labels = Labels.fromStrings('__name__', 'x');
    const app = head.appender();
    for (let t = 0; t < 3000; t += 100) app.append(labels, t, t / 100);
    await app.commit();
    expect(head.seriesByLabels(labels)!.completed.length).toBeGreaterThan(3);
    const [series] = await head.select([Matcher.equal('__name__', 'x')], 450, 1250);
    const it = series!.iterator();
    const seen: number[] = [];
    while (it.next() !== ValueType.None) seen.push(it.atT());
    expect(seen).toEqual([500, 600, 700, 800, 900, 1000, 1100, 1200]);
    const seeker = series!.iterator();
    expect(seeker.seek(1010)).toBe(ValueType.Float);
    expect([seeker.atT(), seeker.atF()]).toEqual([1100, 11]);
    expect(seeker.seek(200)).toBe(ValueType.Float); // never backwards
    expect(seeker.atT()).toBe(1100);
    expect(seeker.seek(1300)).toBe(ValueType.None);
    expect(await head.select([Matcher.equal('__name__', 'x')], 5000, 6000)).toEqual([]);
  });

  it('answers like a chunk iterator before its first sample, over no chunks and bad ones', () => {
    const none = new HeadSampleIterator([], 0, 100);
    expect([none.atT(), none.atF()]).toEqual([Number.MIN_SAFE_INTEGER, 0]);
    expect(none.at()).toEqual({ t: Number.MIN_SAFE_INTEGER, v: 0 });
    expect(none.next()).toBe(ValueType.None);
    expect(none.err()).toBeNull();
    expect(new HeadSampleIterator([], 0, 100).seek(0)).toBe(ValueType.None);
    const torn = new HeadSampleIterator([new Uint8Array([0])], 0, 100);
    expect(torn.next()).toBe(ValueType.None);
    expect(torn.err()?.message).toMatch(/too short/);
  });

  it('a selected series is a snapshot: later appends are not seen', async () => {
    const head = newHead();
    const labels = Labels.fromStrings('__name__', 'x');
    const app = head.appender();
    const ref = app.append(labels, 10, 1);
    await app.commit();
    const [series] = await head.select([Matcher.equal('__name__', 'x')], 0, 100);
    const more = head.appender();
    more.append(ref, 20, 2);
    await more.commit();
    const it = series!.iterator();
    const seen: number[] = [];
    while (it.next() !== ValueType.None) seen.push(it.atT());
    expect(seen).toEqual([10]);
  });

  it('a chunk select that pauses answers as one that does not, appends between slices aside', async () => {
    const head = newHead();
    // Enough series for several sorted runs, inserted out of label order.
    const sets = await shuffledSeries(head, 2500);
    const all = [Matcher.equal('__name__', 'x')];
    const plain = await head.selectChunks(all, 0, 10_000);
    let pauses = 0;
    const pause = {
      due: () => true,
      yield: async () => {
        // Work that runs while the select pauses: appends to series already read or not.
        pauses++;
        const app = head.appender();
        app.append(sets[pauses % sets.length]!, 5_000 + pauses, 1);
        await app.commit();
      },
    };
    const sliced = await head.selectChunks(all, 0, 4_999, { pause });
    expect(pauses).toBeGreaterThan(2500);
    expect(sliced.map((s) => s.labels.toString())).toEqual(plain.map((s) => s.labels.toString()));
    expect(sliced.map((s) => s.labels.toString())).toEqual(sets.map((l) => l.toString()).sort());
  });

  it('an unsorted chunk select answers the same series in creation (postings) order', async () => {
    const head = newHead();
    const sets = await shuffledSeries(head, 300);
    const all = [Matcher.equal('__name__', 'x')];
    const names = (list: readonly { labels: Labels }[]) => list.map((s) => s.labels.toString());
    const sorted = await head.selectChunks(all, 0, 10_000);
    const unsorted = await head.selectChunks(all, 0, 10_000, { sorted: false });
    expect(names(sorted)).toEqual(sets.map((l) => l.toString()).sort());
    expect(names(unsorted)).toEqual(sets.map((l) => l.toString()));
    expect(unsorted.map((s) => s.chunks.length)).toEqual(sorted.map(() => 1));
  });

  it('keeps chunk bytes in shared memory, unchanged by later appends', async () => {
    const head = newHead();
    const labels = Labels.fromStrings('__name__', 'x');
    const app = head.appender();
    let ref = app.append(labels, 0, 0);
    await app.commit();
    // samplesPerChunk 4: ten samples make two completed chunks and an open one.
    for (let t = 1; t < 10; t++) {
      const a = head.appender();
      ref = a.append(ref, t, t);
      await a.commit();
    }
    const [series] = await head.selectChunks([Matcher.equal('__name__', 'x')], 0, 100);
    const chunks = series!.chunks;
    expect(chunks).toHaveLength(3);
    // Completed chunks and the open chunk's snapshot: evaluation threads read them in place.
    for (const c of chunks) expect(c.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    const before = chunks.map((c) => Array.from(c.data));
    const more = head.appender();
    for (let t = 10; t < 20; t++) more.append(ref, t, t);
    await more.commit();
    expect(chunks.map((c) => Array.from(c.data))).toEqual(before);
    const samples = (await head.select([Matcher.equal('__name__', 'x')], 0, 100))[0]!.iterator();
    const seen: number[] = [];
    while (samples.next() !== ValueType.None) seen.push(samples.atF());
    expect(seen).toEqual(Array.from({ length: 20 }, (_, t) => t));
  });
});
