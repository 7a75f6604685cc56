import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSeededRandom } from '../../../src/runtime/index.js';
import { SeriesGenerator, seriesKey, type SeriesGeneratorConfig } from './generator.js';

const base: SeriesGeneratorConfig = {
  writer: 'w1',
  tenant: 't',
  series: 4,
  metrics: 2,
  firstScrapeMs: 1_000,
  intervalMs: 1_000,
  churnEveryMs: 0,
  churnFraction: 0,
};

const gen = (c: Partial<SeriesGeneratorConfig> = {}, seed = 's'): SeriesGenerator =>
  new SeriesGenerator({ ...base, ...c }, createSeededRandom(seed).stream('g'));

describe('seriesKey', () => {
  it('prints labels sorted by name with quoted values, whatever the input order', () => {
    expect(
      seriesKey([
        ['job', 'x'],
        ['__name__', 'up'],
        ['a', 'q"uote'],
      ]),
    ).toBe('{__name__="up", a="q\\"uote", job="x"}');
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string(), fc.string()), { selector: ([n]) => n }),
        (pairs) => seriesKey(pairs) === seriesKey([...pairs].reverse()),
      ),
    );
  });
});

describe('SeriesGenerator', () => {
  it('scrapes one sample per slot with growing integer values and the scrape timestamp', () => {
    const g = gen();
    const a = g.scrape(1_000);
    const b = g.scrape(2_000);
    expect(a).toHaveLength(4);
    expect(a.map((s) => s.timestamp)).toEqual([1_000, 1_000, 1_000, 1_000]);
    expect(a.map((s) => s.labels[0]![1])).toEqual([
      'strata_sim_m0',
      'strata_sim_m1',
      'strata_sim_m0',
      'strata_sim_m1',
    ]);
    for (let i = 0; i < 4; i++) {
      expect(b[i]!.series).toBe(a[i]!.series);
      expect(Number.isInteger(b[i]!.value)).toBe(true);
      expect(b[i]!.value).toBeGreaterThan(a[i]!.value);
    }
    expect(new Set(a.map((s) => s.series)).size).toBe(4);
    expect(a[0]!.series).toBe(seriesKey(a[0]!.labels));
  });

  it('is deterministic for a stream and differs between seeds', () => {
    const values = (seed: string): number[] =>
      [1_000, 2_000, 3_000].flatMap((t) =>
        gen({}, seed)
          .scrape(t)
          .map((s) => s.value),
      );
    expect(values('a')).toEqual(values('a'));
    expect(values('a')).not.toEqual(values('b'));
  });

  it('churn replaces a round-robin fraction of the slots with new series starting over', () => {
    const g = gen({ churnEveryMs: 2_000, churnFraction: 0.5 });
    const before = g.scrape(1_000);
    const same = g.scrape(2_000); // less than one churn period after the first slot
    const after = g.scrape(3_000); // one round: slots 0 and 1 churn
    const later = g.scrape(5_000); // second round: slots 2 and 3
    expect(same.map((s) => s.series)).toEqual(before.map((s) => s.series));
    expect(after.map((s) => s.labels.find(([n]) => n === 'gen')![1])).toEqual(['1', '1', '0', '0']);
    expect(after[0]!.value).toBeLessThanOrEqual(10); // counter restarted
    expect(after[2]!.series).toBe(before[2]!.series);
    expect(later.map((s) => s.labels.find(([n]) => n === 'gen')![1])).toEqual(['1', '1', '1', '1']);
  });

  it('builds a series once per generation: its samples share labels and key until churn', () => {
    const g = gen({ churnEveryMs: 2_000, churnFraction: 0.5 });
    const a = g.scrape(1_000);
    const b = g.scrape(2_000);
    const c = g.scrape(3_000); // slots 0 and 1 churn
    for (let i = 0; i < 4; i++) {
      expect(b[i]!.labels).toBe(a[i]!.labels);
      expect(c[i]!.series).toBe(seriesKey(c[i]!.labels));
    }
    expect(c[0]!.labels).not.toBe(a[0]!.labels);
    expect(c[0]!.series).not.toBe(a[0]!.series);
    expect(c[2]!.labels).toBe(a[2]!.labels);
    expect(c[0]!.labels).toEqual(g.labelsOf(0, 1));
  });
});
