import type { RandomStream } from '../../../src/runtime/index.js';

/** One generated sample of one series. */
export interface GeneratedSample {
  /** The series' canonical key (see `seriesKey`). */
  series: string;
  labels: [string, string][];
  timestamp: number;
  value: number;
}

export interface SeriesGeneratorConfig {
  writer: string;
  tenant: string;
  series: number;
  metrics: number;
  /** Offset of the first scrape slot and period of slots (absolute ms). */
  firstScrapeMs: number;
  intervalMs: number;
  churnEveryMs: number;
  churnFraction: number;
}

export const METRIC_PREFIX = 'strata_sim_m';

/**
 * The canonical key of a label set: pairs sorted by name, printed as Prometheus prints a
 * series (`{a="x", b="y"}`), so the ledger and the read answers meet on the same string.
 */
export function seriesKey(pairs: Iterable<readonly [string, string]>): string {
  const sorted = Array.from(pairs).sort(byName);
  let out = '{';
  for (let i = 0; i < sorted.length; i++) {
    const [n, v] = sorted[i] as readonly [string, string];
    out += `${i === 0 ? '' : ', '}${n}=${JSON.stringify(v)}`;
  }
  return `${out}}`;
}

function byName(a: readonly [string, string], b: readonly [string, string]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/** A slot's series in its current generation: labels and key, built once per generation. */
interface SlotSeries {
  key: string;
  labels: [string, string][];
}

/**
 * The series one writer scrapes for one tenant, as Prometheus would see a target: `series`
 * slots, each a counter that grows by a random integer per scrape (values stay exact
 * integers, so sums in the model are exact). Churn replaces a round-robin `fraction` of the
 * slots every `churnEveryMs`: a replaced slot continues as a new series (its `gen` label
 * changes) starting again from a small value, as a restarted pod would. No staleness
 * markers are written for ended series.
 *
 * Deterministic: the values depend only on the stream and the order of `scrape` calls.
 */
export class SeriesGenerator {
  private readonly counters: number[];
  private readonly generations: number[];
  /**
   * Each slot's series, rebuilt only when churn changes its generation: every sample of a
   * series shares one labels array and one key string instead of building them per scrape.
   * Nothing downstream mutates them (the writers copy labels into their requests).
   */
  private readonly slotSeries: SlotSeries[];
  private churnsApplied = 0;

  constructor(
    private readonly config: SeriesGeneratorConfig,
    private readonly random: RandomStream,
  ) {
    this.counters = new Array<number>(config.series).fill(0);
    this.generations = new Array<number>(config.series).fill(0);
    this.slotSeries = [];
    for (let slot = 0; slot < config.series; slot++) this.slotSeries.push(this.seriesOf(slot, 0));
  }

  /** Labels of a slot in a generation. */
  labelsOf(slot: number, gen: number): [string, string][] {
    const c = this.config;
    return [
      ['__name__', `${METRIC_PREFIX}${slot % c.metrics}`],
      ['gen', String(gen)],
      ['instance', c.writer],
      ['job', 'strata-sim'],
      ['slot', String(slot)],
    ];
  }

  private seriesOf(slot: number, gen: number): SlotSeries {
    const labels = this.labelsOf(slot, gen);
    return { key: seriesKey(labels), labels };
  }

  /** How many churn rounds have happened by `timestamp`. */
  private churnRoundsBy(timestamp: number): number {
    const c = this.config;
    if (c.churnEveryMs <= 0 || c.churnFraction <= 0) return 0;
    return Math.max(0, Math.floor((timestamp - c.firstScrapeMs) / c.churnEveryMs));
  }

  private applyChurn(rounds: number): void {
    const c = this.config;
    const perRound = Math.max(1, Math.round(c.series * c.churnFraction));
    for (; this.churnsApplied < rounds; this.churnsApplied++) {
      for (let i = 0; i < perRound; i++) {
        const slot = (this.churnsApplied * perRound + i) % c.series;
        const gen = (this.generations[slot] as number) + 1;
        this.generations[slot] = gen;
        this.slotSeries[slot] = this.seriesOf(slot, gen);
        this.counters[slot] = 0;
      }
    }
  }

  /** One scrape at `timestamp` (ms, strictly after the previous scrape's): one sample per slot. */
  scrape(timestamp: number): GeneratedSample[] {
    this.applyChurn(this.churnRoundsBy(timestamp));
    const n = this.config.series;
    const out = new Array<GeneratedSample>(n);
    for (let slot = 0; slot < n; slot++) {
      const value = (this.counters[slot] as number) + 1 + this.random.int(10);
      this.counters[slot] = value;
      const { key, labels } = this.slotSeries[slot] as SlotSeries;
      out[slot] = { series: key, labels, timestamp, value };
    }
    return out;
  }
}
