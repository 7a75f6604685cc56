/**
 * Immutable label sets sorted by name in Go string order (UTF-8 bytes), with Prometheus's
 * comparison, hashing (XXH64 over name 0xff value 0xff …) and `String()` rendering.
 */
import { compareGoStrings, goQuote } from './go_strings.js';
import { METRIC_NAME_LABEL, isValidLegacyLabelName } from './names.js';
import { xxhash64 } from './xxhash64.js';

export interface Label {
  readonly name: string;
  readonly value: string;
}

/** Prometheus's separator byte between names and values in the hashed form. */
const SEPARATOR = 0xff;
const encoder = new TextEncoder();

/** Below this many items a key per item costs more than it saves. */
const SORT_KEY_MIN_ITEMS = 64;
/**
 * What keeps a label set's joined form from ordering natively as `compare` does: NUL (the
 * separator) and code units where JavaScript's string order and Go's (UTF-8 bytes) part.
 */
const UNSAFE_FOR_KEYS = /[\0\uD800-\uFFFF]/;
/** UNSAFE_FOR_KEYS but NUL: for a joined form whose only NULs are its separators. */
const UNSAFE_CODE_UNITS = /[\uD800-\uFFFF]/;

/** Thrown when a label set is built with the same name twice. */
export class DuplicateLabelError extends Error {
  constructor(readonly labelName: string) {
    super(`duplicate label name ${goQuote(labelName)}`);
    this.name = 'DuplicateLabelError';
  }
}

export class Labels implements Iterable<Label> {
  static readonly EMPTY: Labels = new Labels([]);

  /**
   * Interleaved name, value, name, value … in ascending name order; undefined while a set
   * made by `fromJoined` has not been split yet (see `flat`). True-private (#), as #joined.
   */
  #pairs: readonly string[] | undefined;
  /** The number of labels (known before the pairs are). */
  readonly #count: number;
  private cachedHash: bigint | undefined;
  /** lookupHash() once computed; -1 before. */
  private cachedLookupHash = -1;
  /**
   * joined() once computed; true-private (#) so that label sets still compare equal
   * field by field whether or not it was computed.
   */
  #joined: string | undefined;
  /** Whether #joined orders natively as `compare` does (see sortKey); checked when asked. */
  #sortable: boolean | undefined;
  /** Whether no name or value holds a NUL (see nulFree); checked when asked. */
  #nulFree: boolean | undefined;
  /**
   * @internal A memo slot for the one store that looks label sets up on its hot path (the
   * TSDB head keeps the series it last found for these labels here, checked on use): a
   * field read instead of a hash-table walk. Not part of the value.
   */
  seriesHint: object | undefined = undefined;

  private constructor(pairs: readonly string[] | undefined, count = (pairs?.length ?? 0) / 2) {
    this.#pairs = pairs;
    this.#count = count;
  }

  /**
   * A set known only by its `joined()` form until something needs its names and values
   * one by one (it is split then, once): the evaluation thread receives thousands of sets
   * of a select this way, and most of them are only hashed by that form, cut by a leading
   * `__name__` or asked for one value. The caller vouches that `joined` is the joined form
   * of a valid set of `count` labels (sorted, no name twice) in which no string holds a
   * NUL: the packing of such a set by another thread.
   */
  static fromJoined(joined: string, count: number): Labels {
    if (count === 0) return Labels.EMPTY;
    const l = new Labels(undefined, count);
    l.#joined = joined;
    l.#nulFree = true;
    return l;
  }

  /** The pairs, split from the joined form on first use by a set made by `fromJoined`. */
  private flat(): readonly string[] {
    let p = this.#pairs;
    if (p === undefined) {
      p = (this.#joined as string).split('\0');
      if (p.length !== 2 * this.#count)
        throw new Error(`label set of ${this.#count} labels split into ${p.length} strings`);
      this.#pairs = p;
    }
    return p;
  }

  /**
   * Where `name`'s value starts in the joined form of a set not split yet, or -1 when the
   * set has no such label: a walk over the separators that allocates nothing.
   */
  private valueStart(name: string): number {
    const j = this.#joined as string;
    const n = name.length;
    let at = 0;
    for (let i = 0; i < this.#count; i++) {
      const nameEnd = j.indexOf('\0', at);
      if (nameEnd - at === n && j.startsWith(name, at)) return nameEnd + 1;
      const valueEnd = j.indexOf('\0', nameEnd + 1);
      if (valueEnd < 0) return -1;
      at = valueEnd + 1;
    }
    return -1;
  }

  /** The value starting at `from` in the joined form (up to the next separator or the end). */
  private valueFrom(from: number): string {
    const j = this.#joined as string;
    const end = j.indexOf('\0', from);
    return end < 0 ? j.slice(from) : j.slice(from, end);
  }

  /** From `{name: value}`; object keys are unique, so this cannot fail on duplicates. */
  static fromObject(obj: Readonly<Record<string, string>>): Labels {
    return Labels.fromPairs(Object.entries(obj));
  }

  /** From name/value pairs or Label objects in any order; throws DuplicateLabelError on a repeated name. */
  static fromPairs(pairs: Iterable<readonly [string, string] | Label>): Labels {
    const list: [string, string][] = [];
    for (const p of pairs) list.push('name' in p ? [p.name, p.value] : [p[0], p[1]]);
    list.sort((a, b) => compareGoStrings(a[0], b[0]));
    const flat: string[] = [];
    for (let i = 0; i < list.length; i++) {
      const [name, value] = list[i] as [string, string];
      if (i > 0 && (list[i - 1] as [string, string])[0] === name)
        throw new DuplicateLabelError(name);
      flat.push(name, value);
    }
    return new Labels(flat);
  }

  /** Like Prometheus's labels.FromStrings: alternating names and values. */
  static fromStrings(...nameValues: string[]): Labels {
    if (nameValues.length % 2 !== 0) {
      throw new Error(
        `Labels.fromStrings needs name/value pairs, got ${nameValues.length} strings`,
      );
    }
    const pairs: [string, string][] = [];
    for (let i = 0; i < nameValues.length; i += 2)
      pairs.push([nameValues[i] as string, nameValues[i + 1] as string]);
    return Labels.fromPairs(pairs);
  }

  /**
   * From parallel arrays already sorted by name (e.g. decoded from an index). Verifies the
   * order in one pass instead of sorting; throws if unsorted or duplicated.
   */
  static fromSorted(names: readonly string[], values: readonly string[]): Labels {
    if (names.length !== values.length) {
      throw new Error(`Labels.fromSorted: ${names.length} names but ${values.length} values`);
    }
    const flat: string[] = new Array<string>(names.length * 2);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      if (i > 0) {
        const order = compareGoStrings(names[i - 1] as string, name);
        if (order === 0) throw new DuplicateLabelError(name);
        if (order > 0)
          throw new Error(
            `Labels.fromSorted: ${goQuote(name)} is out of order after ${goQuote(names[i - 1] as string)}`,
          );
      }
      flat[2 * i] = name;
      flat[2 * i + 1] = values[i] as string;
    }
    return new Labels(flat);
  }

  /**
   * fromSortedFlat for a set whose joined() form the caller has at hand (the packed text it
   * was cut from); the caller vouches that `joined` is `flat.join('\0')`.
   */
  static fromSortedFlatJoined(flat: readonly string[], joined: string): Labels {
    const l = Labels.fromSortedFlat(flat);
    l.#joined = joined;
    return l;
  }

  /**
   * From a flat `[name, value, name, value, ...]` array already sorted by name (a decoded
   * remote-write series): verified in one pass and kept as is, not copied, so the caller must
   * not change it afterwards. Throws if unsorted, duplicated or of odd length.
   */
  static fromSortedFlat(flat: readonly string[]): Labels {
    if (flat.length % 2 !== 0)
      throw new Error(`Labels.fromSortedFlat needs name/value pairs, got ${flat.length} strings`);
    for (let i = 2; i < flat.length; i += 2) {
      const prev = flat[i - 2] as string;
      const name = flat[i] as string;
      const order = compareGoStrings(prev, name);
      if (order === 0) throw new DuplicateLabelError(name);
      if (order > 0)
        throw new Error(
          `Labels.fromSortedFlat: ${goQuote(name)} is out of order after ${goQuote(prev)}`,
        );
    }
    return new Labels(flat);
  }

  /** Prometheus labels.Compare: by name then value, pair by pair; then the shorter set first. */
  static compare(a: Labels, b: Labels): number {
    const x = a.flat();
    const y = b.flat();
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) {
      if (x[i] !== y[i]) return compareGoStrings(x[i] as string, y[i] as string);
    }
    return (x.length - y.length) / 2;
  }

  /**
   * Sorts `items` by their label sets in `Labels.compare` order. Large lists are sorted by one
   * string key per item (names and values joined by NUL) compared natively, which orders the
   * same whenever no string holds a NUL or a code unit from U+D800 up (where UTF-16 order and
   * Go's byte order can part); otherwise they fall back to `Labels.compare`.
   */
  static sortBy<T>(items: T[], labelsOf: (item: T) => Labels): void {
    const n = items.length;
    const byCompare = (a: T, b: T): number => Labels.compare(labelsOf(a), labelsOf(b));
    if (n < SORT_KEY_MIN_ITEMS) {
      items.sort(byCompare);
      return;
    }
    const keys: string[] = new Array<string>(n);
    const width = String(n).length;
    for (let i = 0; i < n; i++) {
      const key = labelsOf(items[i] as T).sortKey();
      if (key === undefined) {
        items.sort(byCompare);
        return;
      }
      // After the label set, NUL (below any name's first character) and the item's index:
      // equal label sets keep their order, and the default sort compares the keys natively.
      keys[i] = key + '\0\0' + String(i).padStart(width, '0');
    }
    keys.sort();
    const sorted = keys.map((k) => items[Number(k.slice(k.length - width))] as T);
    for (let i = 0; i < n; i++) items[i] = sorted[i] as T;
  }

  get length(): number {
    return this.#count;
  }

  /**
   * Names and values joined by NUL, computed once per label set: one string per set where
   * a select's thousands of sets are sorted or packed for another thread.
   */
  joined(): string {
    if (this.#joined === undefined) {
      this.#joined = this.flat().join('\0');
    }
    return this.#joined;
  }

  /**
   * `joined()` when comparing it as a JavaScript string orders label sets as `compare`
   * does (no NUL and no code unit from U+D800 up in any name or value), else undefined.
   */
  sortKey(): string | undefined {
    const joined = this.joined();
    // A set not split yet is NUL-free: its joined form is tested as it is.
    this.#sortable ??=
      this.#pairs === undefined
        ? !UNSAFE_CODE_UNITS.test(joined)
        : !this.#pairs.some((p) => UNSAFE_FOR_KEYS.test(p));
    return this.#sortable ? joined : undefined;
  }

  /**
   * Whether no name or value holds a NUL, so that `joined()` splits back into them:
   * computed once per label set (packing a select's sets for another thread then touches
   * one string per set, not every name and value).
   */
  nulFree(): boolean {
    return (this.#nulFree ??= !this.flat().some((p) => p.includes('\0')));
  }

  isEmpty(): boolean {
    return this.#count === 0;
  }

  nameAt(i: number): string {
    return this.pairAt(2 * i);
  }

  valueAt(i: number): string {
    return this.pairAt(2 * i + 1);
  }

  private pairAt(index: number): string {
    const s = this.flat()[index];
    if (s === undefined)
      throw new RangeError(`label index ${index >> 1} out of range for ${this.length} labels`);
    return s;
  }

  private indexOf(name: string): number {
    const pairs = this.flat();
    let lo = 0;
    let hi = this.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = compareGoStrings(pairs[2 * mid] as string, name);
      if (c === 0) return mid;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** The value of `name`, or '' when absent (as in Prometheus, an empty value means "unset"). */
  get(name: string): string {
    return this.find(name) ?? '';
  }

  /** The value of `name`, or undefined when absent (present with an empty value: ''). */
  find(name: string): string | undefined {
    if (this.#pairs === undefined) {
      const at = this.valueStart(name);
      return at < 0 ? undefined : this.valueFrom(at);
    }
    const i = this.indexOf(name);
    return i < 0 ? undefined : this.#pairs[2 * i + 1];
  }

  has(name: string): boolean {
    return this.#pairs === undefined ? this.valueStart(name) >= 0 : this.indexOf(name) >= 0;
  }

  /** Calls fn for each label in order without allocating Label objects. */
  forEach(fn: (name: string, value: string) => void): void {
    const p = this.flat();
    for (let i = 0; i < p.length; i += 2) fn(p[i] as string, p[i + 1] as string);
  }

  *[Symbol.iterator](): Iterator<Label> {
    const p = this.flat();
    for (let i = 0; i < p.length; i += 2) yield { name: p[i] as string, value: p[i + 1] as string };
  }

  names(): string[] {
    const out: string[] = [];
    const p = this.flat();
    for (let i = 0; i < p.length; i += 2) out.push(p[i] as string);
    return out;
  }

  toObject(): Record<string, string> {
    const out: Record<string, string> = {};
    this.forEach((n, v) => {
      out[n] = v;
    });
    return out;
  }

  /**
   * The same set without the named labels (this one when it has none of them). When only
   * leading labels go (`__name__` sorts before lower-case names) a known joined() form is
   * passed on as its tail, so engines dropping names build no new key strings.
   */
  without(...names: string[]): Labels {
    if (this.#pairs === undefined) {
      const cut = this.withoutLeading(names);
      if (cut !== undefined) return cut;
    }
    const p = this.flat();
    let flat: string[] | undefined;
    // Characters of joined() before the first kept label, while every dropped one leads.
    let cut = 0;
    let leading = true;
    for (let i = 0; i < p.length; i += 2) {
      const n = p[i] as string;
      const v = p[i + 1] as string;
      if (names.includes(n)) {
        flat ??= p.slice(0, i);
        if (flat.length > 0) leading = false;
        else cut += n.length + v.length + 2;
      } else if (flat !== undefined) {
        flat.push(n, v);
      }
    }
    if (flat === undefined) return this;
    const out = new Labels(flat);
    if (leading && this.#joined !== undefined) out.#joined = this.#joined.slice(cut);
    // Fewer labels of a NUL-free set hold no NUL either.
    if (this.#nulFree === true) out.#nulFree = true;
    return out;
  }

  /**
   * `without` for a set not split yet, when none of `names` is in it or only leading labels
   * are (`__name__` nearly always leads): the joined form's tail, nothing split. Undefined
   * when a dropped label follows a kept one (the caller splits the set then).
   */
  private withoutLeading(names: readonly string[]): Labels | undefined {
    const j = this.#joined as string;
    const count = this.#count;
    let at = 0;
    let dropped = 0;
    let cut = 0;
    for (let i = 0; i < count; i++) {
      const nameEnd = j.indexOf('\0', at);
      const valueEnd = i === count - 1 ? j.length : j.indexOf('\0', nameEnd + 1);
      let hit = false;
      for (let k = 0; k < names.length && !hit; k++) {
        const n = names[k] as string;
        hit = n.length === nameEnd - at && j.startsWith(n, at);
      }
      if (hit) {
        if (dropped < i) return undefined;
        dropped++;
        cut = valueEnd + 1;
      }
      at = valueEnd + 1;
    }
    return dropped === 0 ? this : Labels.fromJoined(j.slice(cut), count - dropped);
  }

  /** The same set without `__name__`. */
  withoutName(): Labels {
    return this.without(METRIC_NAME_LABEL);
  }

  /**
   * A string identifying the set in this process: equal for equal sets. For a NUL-free set
   * (nearly all) it is the joined form, which also differs between different sets. A set
   * holding a NUL gets the form Prometheus hashes (name 0xff value 0xff …) ended by one or
   * two NULs, so that its key holds an even number of NULs: a NUL-free set's joined form
   * holds an odd number (2n − 1) or is empty, so the two kinds never share a key.
   */
  key(): string {
    if (this.nulFree()) return this.joined();
    let k = '';
    let nuls = 0;
    for (const s of this.flat()) {
      k += s + '\xff';
      for (let i = s.indexOf('\0'); i >= 0; i = s.indexOf('\0', i + 1)) nuls++;
    }
    return k + (nuls % 2 === 0 ? '\0\0' : '\0');
  }

  equals(other: Labels): boolean {
    if (this === other) return true;
    // Two NUL-free sets are equal exactly when their joined forms are (no split needed).
    if (this.#nulFree === true && other.#nulFree === true) return this.joined() === other.joined();
    const x = this.flat();
    const y = other.flat();
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }

  /**
   * XXH64 of `name 0xff value 0xff` for every label, exactly Prometheus's labels.Hash, as an
   * unsigned 64-bit bigint. Computed once per instance.
   */
  hash(): bigint {
    if (this.cachedHash !== undefined) return this.cachedHash;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (const s of this.flat()) {
      const bytes = encoder.encode(s);
      chunks.push(bytes);
      size += bytes.length + 1;
    }
    const buf = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      buf.set(c, at);
      at += c.length;
      buf[at++] = SEPARATOR;
    }
    this.cachedHash = xxhash64(buf);
    return this.cachedHash;
  }

  /**
   * A 31-bit hash of the label set for in-memory lookups (the head's series index): two
   * multiplicative hashes over the UTF-16 code units, computed without allocating and
   * cached. Unlike `hash()` it is not Prometheus's value and must never be persisted or
   * compared across processes; equal label sets always hash equal, unequal ones rarely.
   */
  lookupHash(): number {
    if (this.cachedLookupHash >= 0) return this.cachedLookupHash;
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (const s of this.flat()) {
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        a = Math.imul(a ^ c, 0x01000193);
        b = Math.imul(b ^ c, 0x5bd1e995);
        b ^= b >>> 15;
      }
      // The separator keeps {a="bc"} and {ab="c"} apart.
      a = Math.imul(a ^ 0xffff, 0x01000193);
      b = Math.imul(b ^ 0xffff, 0x5bd1e995);
      b ^= b >>> 15;
    }
    a ^= a >>> 16;
    a = Math.imul(a, 0x85ebca6b);
    a ^= b;
    a ^= a >>> 13;
    a = Math.imul(a, 0xc2b2ae35);
    a ^= a >>> 16;
    this.cachedLookupHash = a & 0x7fffffff;
    return this.cachedLookupHash;
  }

  /**
   * Prometheus 3's labels.String: `{__name__="up", job="x"}`; values in Go `%q` form, names
   * quoted the same way when they are not valid legacy names (e.g. `{"my.name"="v"}`).
   */
  toString(): string {
    let out = '{';
    const p = this.flat();
    for (let i = 0; i < p.length; i += 2) {
      if (i > 0) out += ', ';
      const name = p[i] as string;
      out += isValidLegacyLabelName(name) ? name : goQuote(name);
      out += '=' + goQuote(p[i + 1] as string);
    }
    return out + '}';
  }
}
