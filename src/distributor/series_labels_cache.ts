/**
 * Cross-request reuse of decoded label sets. A remote-write sender sends the same series
 * every scrape, byte for byte: the decoder hashes the raw bytes of a TimeSeries' labels and,
 * when a previous request decoded the same bytes, returns that request's `string[]` (the same
 * array object) instead of decoding again. Identity then pays downstream: the validation
 * mark below, and the ingester's Labels per array.
 *
 * An entry is only ever returned after the bytes were checked against it without
 * allocating, and only entries whose canonical protobuf encoding (all ASCII) is exactly the
 * bytes they were decoded from are kept: a hit therefore decodes to exactly what the normal
 * path would have produced, and invalid UTF-8 (never ASCII) can never hit.
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
 * the head, so what the cache adds is its table (tens of bytes per entry) and, for series
 * gone from the head, their labels until evicted.
 */
export const DEFAULT_SERIES_LABELS_CACHE_ENTRIES = 1 << 21;

/** Distinct LabelRules kept before the table is reset (limits rarely differ much). */
const MAX_RULES = 64;

/** Protobuf tags: TimeSeries.labels / Label.name (field 1, bytes), Label.value (field 2). */
const TAG_FIELD1_BYTES = 0x0a;
const TAG_FIELD2_BYTES = 0x12;

export class SeriesLabelsCache {
  /**
   * Two generations by byte hash: lookups promote from `previous` to `current`, and when
   * `current` is full it becomes `previous` (the old previous is dropped). Recently seen
   * series thus survive, and the total stays at most `maxEntries`.
   */
  private current = new Map<number, readonly string[]>();
  private previous = new Map<number, readonly string[]>();
  private readonly generationSize: number;
  /** Arrays validated before, with the rules they passed under. */
  private readonly validated = new WeakMap<readonly string[], LabelRules>();
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

  /**
   * The cached label array whose encoding is exactly `buf[start, end)` (hashed to `hash`),
   * or undefined.
   */
  lookup(hash: number, buf: Uint8Array, start: number, end: number): readonly string[] | undefined {
    let flat = this.current.get(hash);
    if (flat === undefined) {
      flat = this.previous.get(hash);
      if (flat === undefined) return undefined;
      if (!encodesTo(buf, start, end, flat)) return undefined;
      this.previous.delete(hash);
      this.store(hash, flat);
      return flat;
    }
    return encodesTo(buf, start, end, flat) ? flat : undefined;
  }

  /**
   * Keeps `flat`, just decoded from `buf[start, end)`, when that range is its canonical
   * ASCII encoding (anything else is simply not cached). Replaces a colliding entry.
   */
  insert(hash: number, buf: Uint8Array, start: number, end: number, flat: readonly string[]): void {
    if (flat.length === 0 || !isAscii(flat) || !encodesTo(buf, start, end, flat)) return;
    this.previous.delete(hash);
    this.store(hash, flat);
  }

  private store(hash: number, flat: readonly string[]): void {
    if (!this.current.has(hash) && this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(hash, flat);
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

  /** Whether `flat` passed label validation under exactly these rules before. */
  isValidated(flat: readonly string[], rules: LabelRules): boolean {
    return this.validated.get(flat) === rules;
  }

  /** Records that `flat` passed; only arrays this cache hands out are worth marking. */
  markValidated(flat: readonly string[], rules: LabelRules): void {
    this.validated.set(flat, rules);
  }
}

/**
 * Whether `buf[start, end)` is exactly the canonical encoding of `flat` (ASCII strings) as
 * repeated `Label { name = 1; value = 2 }` messages: checked against the strings' char codes,
 * without decoding or allocating. For ASCII strings equal char codes mean equal bytes, and a
 * non-ASCII byte (valid UTF-8 or not) never matches.
 */
export function encodesTo(
  buf: Uint8Array,
  start: number,
  end: number,
  flat: readonly string[],
): boolean {
  let p = start;
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i] as string;
    const value = flat[i + 1] as string;
    const inner =
      2 + varintSize(name.length) + name.length + varintSize(value.length) + value.length;
    if (p >= end || buf[p] !== TAG_FIELD1_BYTES) return false;
    p = expectVarint(buf, p + 1, end, inner);
    if (p < 0 || p + inner > end) return false;
    const labelEnd = p + inner;
    p = expectString(buf, p, labelEnd, TAG_FIELD1_BYTES, name);
    if (p < 0) return false;
    p = expectString(buf, p, labelEnd, TAG_FIELD2_BYTES, value);
    if (p !== labelEnd) return false;
  }
  return p === end;
}

/** Checks `tag, len, bytes` of one ASCII string field at `p`; the next offset or -1. */
function expectString(buf: Uint8Array, p: number, end: number, tag: number, s: string): number {
  if (p >= end || buf[p] !== tag) return -1;
  const len = s.length;
  p = expectVarint(buf, p + 1, end, len);
  if (p < 0 || p + len > end) return -1;
  // A byte of 0x80 or more never equals a char code here: cached strings are all ASCII.
  for (let j = 0; j < len; j++) if (buf[p + j] !== s.charCodeAt(j)) return -1;
  return p + len;
}

/** Reads the varint at `p` and checks it equals `want`; the offset after it or -1. */
function expectVarint(buf: Uint8Array, p: number, end: number, want: number): number {
  let v = 0;
  let shift = 0;
  for (;;) {
    if (p >= end || shift > 28) return -1;
    const b = buf[p++] as number;
    v += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) break;
    shift += 7;
  }
  return v === want ? p : -1;
}

function isAscii(flat: readonly string[]): boolean {
  for (const s of flat)
    for (let j = 0; j < s.length; j++) if (s.charCodeAt(j) >= 0x80) return false;
  return true;
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}
