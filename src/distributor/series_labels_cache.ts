/**
 * Cross-request reuse of decoded label sets. A remote-write sender sends the same series
 * every scrape, byte for byte: the decoder hashes the raw bytes of a TimeSeries' labels and,
 * when a previous request decoded the same bytes, returns that request's `string[]` (the same
 * array object) instead of decoding again. Identity then pays downstream: the validation
 * mark below, the ingester's Labels per array and the head's series hint on them.
 *
 * Each entry keeps a copy of the bytes it was decoded from, and is only returned for exactly
 * those bytes (compared natively): decoding is a function of the bytes, so a hit is what the
 * normal path would have produced. Bytes the decoder refuses (invalid UTF-8...) are never
 * inserted, since the decoder throws before it would insert them.
 *
 * Arrays handed out are shared between requests: nothing may change them afterwards.
 */

/** The limits `validateLabels` depends on; one object per distinct combination. */
export interface LabelRules {
  readonly enforceMetricName: boolean;
  readonly maxLabelNamesPerSeries: number;
  readonly maxLabelNameLength: number;
  readonly maxLabelValueLength: number;
  readonly skipLabelNameValidation: boolean;
}

export interface SeriesLabelsCacheConfig {
  /** At most this many label sets are kept (oldest generation dropped first). */
  maxEntries: number;
}

/**
 * Default bound. A sender cycles through its series every scrape, so a series is still
 * cached when it comes back only if a generation (half the bound) holds every active series
 * of this distributor: 2^21 serves about a million. Active series share their arrays with
 * the head, so what the cache adds is its table and the copied label bytes (a few hundred
 * bytes per entry) and, for series gone from the head, their labels until evicted.
 */
export const DEFAULT_SERIES_LABELS_CACHE_ENTRIES = 1 << 21;

/** Distinct LabelRules kept before the table is reset (limits rarely differ much). */
const MAX_RULES = 64;

/**
 * A cached label array, the bytes it was decoded from (a pooled Buffer copy), and what later
 * stages worked out for the array once (one field read instead of a lookup per series).
 */
export class CachedLabels {
  /** The label rules `flat` passed validation under last (see LabelRules). */
  validated: LabelRules | undefined = undefined;
  /**
   * A slot for the ingester this process pushes to in-process: the model Labels it made of
   * `flat` (a pure function of the array, so valid for the entry's life).
   */
  consumerMemo: unknown = undefined;
  /** The sharding token of `flat` for `tokenTenant` and `tokenByAllLabels` (see seriesToken). */
  token = 0;
  tokenTenant: string | undefined = undefined;
  tokenByAllLabels = false;

  constructor(
    readonly bytes: Buffer,
    readonly flat: readonly string[],
  ) {}

  /** Whether `buf[start, end)` is exactly this entry's bytes (memcmp, no allocation). */
  matches(buf: Uint8Array, start: number, end: number): boolean {
    return this.bytes.length === end - start && this.bytes.compare(buf, start, end) === 0;
  }
}

export class SeriesLabelsCache {
  /**
   * Two generations by byte hash: lookups promote from `previous` to `current`, and when
   * `current` is full it becomes `previous` (the old previous is dropped). Recently seen
   * series thus survive, and the total stays at most `maxEntries`.
   */
  private current = new Map<number, CachedLabels>();
  private previous = new Map<number, CachedLabels>();
  private readonly generationSize: number;
  /** Lookups that found their entry, and those that did not (plain counts: the hot path). */
  hits = 0;
  misses = 0;
  private readonly rules = new Map<string, LabelRules>();

  constructor(readonly config: SeriesLabelsCacheConfig) {
    if (!(config.maxEntries >= 2))
      throw new RangeError(
        `series labels cache needs at least 2 entries, got ${config.maxEntries}`,
      );
    this.generationSize = Math.floor(config.maxEntries / 2);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  /** The entry decoded from exactly `buf[start, end)` (hashed to `hash`). */
  lookup(hash: number, buf: Uint8Array, start: number, end: number): CachedLabels | undefined {
    const entry = this.current.get(hash);
    if (entry !== undefined && entry.matches(buf, start, end)) {
      this.hits++;
      return entry;
    }
    const old = entry === undefined ? this.previous.get(hash) : undefined;
    if (old === undefined || !old.matches(buf, start, end)) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    this.previous.delete(hash);
    this.store(hash, old);
    return old;
  }

  /**
   * Keeps `flat`, just decoded from `buf[start, end)`, with a copy of those bytes. Replaces a
   * colliding entry.
   */
  insert(
    hash: number,
    buf: Uint8Array,
    start: number,
    end: number,
    flat: readonly string[],
  ): CachedLabels | undefined {
    if (flat.length === 0) return undefined;
    this.previous.delete(hash);
    const entry = new CachedLabels(Buffer.from(buf.subarray(start, end)), flat);
    this.store(hash, entry);
    return entry;
  }

  private store(hash: number, entry: CachedLabels): void {
    if (!this.current.has(hash) && this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(hash, entry);
  }

  /** The one LabelRules object for these values, so that marks can compare by identity. */
  rulesFor(
    limits: Omit<LabelRules, 'skipLabelNameValidation'>,
    skipLabelNameValidation: boolean,
  ): LabelRules {
    const key = `${limits.enforceMetricName ? 1 : 0},${limits.maxLabelNamesPerSeries},${limits.maxLabelNameLength},${limits.maxLabelValueLength},${skipLabelNameValidation ? 1 : 0}`;
    let rules = this.rules.get(key);
    if (rules === undefined) {
      if (this.rules.size >= MAX_RULES) this.rules.clear();
      rules = {
        enforceMetricName: limits.enforceMetricName,
        maxLabelNamesPerSeries: limits.maxLabelNamesPerSeries,
        maxLabelNameLength: limits.maxLabelNameLength,
        maxLabelValueLength: limits.maxLabelValueLength,
        skipLabelNameValidation,
      };
      this.rules.set(key, rules);
    }
    return rules;
  }
}
