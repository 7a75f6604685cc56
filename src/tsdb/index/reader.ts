/**
 * Reads a block index in Prometheus's format v2 through a ByteSource, touching only the byte
 * ranges a lookup needs: at open the TOC, the symbol table and one pass over the postings
 * offset table (keeping every Nth value per label name, as Prometheus does); afterwards each
 * lookup reads a window of the offset table, the postings lists or one series entry.
 */
import { Labels, compareGoStrings, goQuote } from '../../model/index.js';
import { DecBuf } from '../encoding/index.js';
import type { ByteSource } from './byte_source.js';
import {
  DEFAULT_SAMPLING_FACTOR,
  INDEX_FORMAT_V2,
  INDEX_HEADER_LENGTH,
  INDEX_MAGIC,
  INDEX_TOC_LENGTH,
  IndexFormatError,
  SERIES_ALIGNMENT,
  decodeToc,
  hex,
  type IndexToc,
} from './format.js';
import {
  checkEntryCrc,
  decodePostingsList,
  postingsListLength,
  seriesEntryBody,
} from './entries.js';
import { mergePostings } from './postings.js';
import type { ChunkMeta } from './writer.js';

export interface IndexReaderOptions {
  /** Keep every Nth symbol and postings-table value in memory (default 32, as Prometheus). */
  samplingFactor?: number;
}

/** A series entry: its labels and its chunks' metadata. */
export interface IndexSeries {
  labels: Labels;
  chunks: ChunkMeta[];
}

/** A sampled postings offset table entry: a value and where its table entry starts. */
interface SampledValue {
  value: string;
  /** Offset of the table entry in the file. */
  entryOffset: number;
  /** Offset of the value's postings list (bounds the list before it). */
  postingsOffset: number;
}

interface LabelNameRange {
  /** Every Nth value plus the last one, in ascending order. */
  samples: SampledValue[];
  /** Offset just past this name's last table entry. */
  endOffset: number;
  /** Where the postings list after this name's last one starts (or the postings section ends). */
  nextPostingsOffset: number;
}

/**
 * Where one postings list lies in the index: [offset, end) holds `len | count | refs | CRC`,
 * possibly followed by alignment padding (end is where the next list starts), so a remote
 * reader can fetch several lists in one range without first reading their lengths.
 */
export interface PostingsRange {
  readonly value: string;
  readonly offset: number;
  readonly end: number;
}

/** Decoded postings offset table entry. */
interface TableEntry {
  name: string;
  value: string;
  postingsOffset: number;
}

export class IndexReader {
  /** Reused by symbol lookups, which run once per label of every series read. */
  private readonly symbolDecoder = new DecBuf(new Uint8Array(0));

  private constructor(
    private readonly source: ByteSource,
    readonly version: number,
    readonly toc: IndexToc,
    private readonly symbolBytes: Uint8Array,
    /** File offset of symbolBytes[0]. */
    private readonly symbolBase: number,
    private readonly symbolCount: number,
    /** Position in symbolBytes of every Nth symbol. */
    private readonly symbolSamples: Int32Array,
    private readonly labelRanges: Map<string, LabelNameRange>,
    private readonly samplingFactor: number,
  ) {}

  /** Opens an index: checks magic, version and TOC, loads the symbol and postings tables. */
  static async open(source: ByteSource, options: IndexReaderOptions = {}): Promise<IndexReader> {
    const factor = options.samplingFactor ?? DEFAULT_SAMPLING_FACTOR;
    if (!Number.isSafeInteger(factor) || factor < 1) {
      throw new RangeError(
        `index reader: sampling factor must be a positive integer, got ${factor}`,
      );
    }
    if (source.size < INDEX_HEADER_LENGTH + INDEX_TOC_LENGTH) {
      throw new IndexFormatError(`index too small: ${source.size} bytes`);
    }
    const header = new DecBuf(await source.read(0, INDEX_HEADER_LENGTH));
    const magic = header.getBE32();
    if (magic !== INDEX_MAGIC)
      throw new IndexFormatError(`invalid index magic number ${hex(magic)}`);
    const version = header.getByte();
    if (version !== INDEX_FORMAT_V2) {
      throw new IndexFormatError(`unsupported index format version ${version} (want 2)`);
    }
    const tocOffset = source.size - INDEX_TOC_LENGTH;
    const toc = decodeToc(await source.read(tocOffset, INDEX_TOC_LENGTH), tocOffset);

    // Symbols: the section body (count + entries) stays in memory; lookups walk from a sample.
    const symbolSection = await readSection(source, toc.symbols, 'symbol table');
    const sd = new DecBuf(symbolSection, toc.symbols + 4);
    const symbolCount = sd.getBE32();
    const samples = new Int32Array(Math.ceil(symbolCount / factor));
    for (let i = 0; i < symbolCount; i++) {
      if (i % factor === 0) samples[i / factor] = sd.position();
      sd.getUvarintBytes();
    }
    sd.throwIfError();

    const labelRanges = new Map<string, LabelNameRange>();
    if (toc.postingsTable !== 0) {
      const table = await readSection(source, toc.postingsTable, 'postings offset table');
      const base = toc.postingsTable + 4;
      const td = new DecBuf(table, base);
      const count = td.getBE32();
      let current: LabelNameRange | undefined;
      let currentName: string | undefined;
      let countForName = 0;
      let last: SampledValue | undefined;
      for (let i = 0; i < count; i++) {
        const entryOffset = base + td.position();
        const entry = decodeTableEntry(td, entryOffset);
        if (entry.name !== currentName) {
          if (current !== undefined) {
            closeRange(current, last, entryOffset, entry.postingsOffset);
          }
          if (currentName !== undefined && compareGoStrings(currentName, entry.name) > 0) {
            throw new IndexFormatError(
              `postings offset table not sorted: ${goQuote(entry.name)} after ${goQuote(currentName)} at offset ${entryOffset}`,
            );
          }
          current = { samples: [], endOffset: 0, nextPostingsOffset: 0 };
          currentName = entry.name;
          labelRanges.set(entry.name, current);
          countForName = 0;
        }
        last = { value: entry.value, entryOffset, postingsOffset: entry.postingsOffset };
        if (countForName % factor === 0) (current as LabelNameRange).samples.push(last);
        countForName++;
      }
      td.throwIfError();
      // Prometheus writes the label indices table right after the postings lists.
      const postingsEnd =
        toc.labelIndicesTable > toc.postings ? toc.labelIndicesTable : toc.postingsTable;
      if (current !== undefined) closeRange(current, last, base + td.position(), postingsEnd);
    }
    return new IndexReader(
      source,
      version,
      toc,
      symbolSection,
      toc.symbols + 4,
      symbolCount,
      samples,
      labelRanges,
      factor,
    );
  }

  /** Number of symbols in the symbol table. */
  get symbolTableSize(): number {
    return this.symbolCount;
  }

  /** The symbol with reference `ref` (its position in the sorted symbol table). */
  symbol(ref: number): string {
    if (!Number.isInteger(ref) || ref < 0 || ref >= this.symbolCount) {
      throw new IndexFormatError(`unknown symbol reference ${ref} (table has ${this.symbolCount})`);
    }
    const d = this.symbolDecoder;
    d.reset(this.symbolBytes, this.symbolBase);
    d.skip(this.symbolSamples[Math.floor(ref / this.samplingFactor)] as number);
    for (let i = ref % this.samplingFactor; i > 0; i--) d.getUvarintBytes();
    const s = d.getUvarintStr();
    d.throwIfError();
    return s;
  }

  /** Every symbol, in table order. */
  symbols(): string[] {
    const d = new DecBuf(this.symbolBytes, this.symbolBase);
    d.skip(4);
    const out: string[] = new Array<string>(this.symbolCount);
    for (let i = 0; i < this.symbolCount; i++) out[i] = d.getUvarintStr();
    d.throwIfError();
    return out;
  }

  /** Every symbol in table order, decoded as it is reached (compaction merges tables lazily). */
  *iterateSymbols(): Generator<string> {
    const d = new DecBuf(this.symbolBytes, this.symbolBase);
    d.skip(4);
    for (let i = 0; i < this.symbolCount; i++) {
      const s = d.getUvarintStr();
      d.throwIfError();
      yield s;
    }
  }

  /** Label names present in the index, sorted (the all-postings key excluded). */
  labelNames(): string[] {
    const names: string[] = [];
    for (const name of this.labelRanges.keys()) if (name !== '') names.push(name);
    return names.sort(compareGoStrings);
  }

  /** Values of label `name`, sorted; empty when the name is absent. */
  async labelValues(name: string): Promise<string[]> {
    const range = this.labelRanges.get(name);
    const first = range?.samples[0];
    if (range === undefined || first === undefined || name === '') return [];
    const entries = await this.readTableEntries(first.entryOffset, range.endOffset);
    return entries.map((e) => e.value);
  }

  /** Same as labelValues (the table is sorted); named after Prometheus's SortedLabelValues. */
  sortedLabelValues(name: string): Promise<string[]> {
    return this.labelValues(name);
  }

  /** Sorted references of the series that have `name` set to any of `values`. */
  async postings(name: string, ...values: string[]): Promise<Uint32Array> {
    const lists: Uint32Array[] = [];
    for (const r of await this.postingsRanges(name, values)) {
      lists.push(await this.readPostings(r.offset));
    }
    return lists.length === 1 ? (lists[0] as Uint32Array) : mergePostings(...lists);
  }

  /**
   * Where the postings lists of `name` set to each of `values` lie, for the values present,
   * in table (value) order. Reads only the postings offset table, never a postings list.
   */
  async postingsRanges(name: string, values: readonly string[]): Promise<PostingsRange[]> {
    const range = this.labelRanges.get(name);
    if (range === undefined || values.length === 0) return [];
    const wanted = [...new Set(values)].sort(compareGoStrings);
    const out: PostingsRange[] = [];
    let window: TableEntry[] = [];
    let windowIndex = -1;
    for (const value of wanted) {
      const i = lastSampleAtOrBefore(range.samples, value);
      if (i < 0) continue;
      if (i !== windowIndex) {
        const from = (range.samples[i] as SampledValue).entryOffset;
        const to = range.samples[i + 1]?.entryOffset ?? range.endOffset;
        window = await this.readTableEntries(from, to);
        windowIndex = i;
      }
      const k = window.findIndex((e) => e.value === value);
      if (k < 0) continue;
      const entry = window[k] as TableEntry;
      const end =
        window[k + 1]?.postingsOffset ??
        range.samples[i + 1]?.postingsOffset ??
        range.nextPostingsOffset;
      out.push({ value, offset: entry.postingsOffset, end });
    }
    return out;
  }

  /** References of every series in the index. */
  allPostings(): Promise<Uint32Array> {
    return this.postings('', '');
  }

  /** The labels and chunk metadata of the series with reference `ref`. */
  async series(ref: number): Promise<IndexSeries> {
    const offset = this.seriesOffset(ref);
    const head = await this.source.read(offset, Math.min(10, this.source.size - offset));
    const hd = new DecBuf(head, offset);
    const length = hd.getUvarint();
    hd.throwIfError();
    const bytes = await this.source.read(offset, hd.position() + length + 4);
    return this.decodeSeries(ref, bytes);
  }

  /** File offset of the series entry `ref` (ref * 16), checked to lie in the series section. */
  seriesOffset(ref: number): number {
    const offset = ref * SERIES_ALIGNMENT;
    if (
      !Number.isSafeInteger(ref) ||
      ref < 0 ||
      offset < this.toc.series ||
      offset >= this.toc.labelIndices
    ) {
      throw new IndexFormatError(`series reference ${ref} is outside the series section`);
    }
    return offset;
  }

  /**
   * Decodes the series entry `ref` from `bytes`, which start at its offset (ref * 16) and hold
   * at least the whole entry (seriesEntryLength tells how many bytes that is); CRC checked.
   */
  decodeSeries(ref: number, bytes: Uint8Array): IndexSeries {
    const { body, bodyOffset } = seriesEntryBody(bytes, this.seriesOffset(ref), `series ${ref}`);
    const d = new DecBuf(body, bodyOffset);
    const labelCount = d.getUvarint();
    const names: string[] = [];
    const values: string[] = [];
    for (let i = 0; i < labelCount && d.err() === null; i++) {
      const nameRef = d.getUvarint();
      const valueRef = d.getUvarint();
      d.throwIfError();
      names.push(this.symbol(nameRef));
      values.push(this.symbol(valueRef));
    }
    const chunkCount = d.getUvarint();
    const chunks: ChunkMeta[] = [];
    if (chunkCount > 0) {
      let minTime = d.getVarint();
      let maxTime = minTime + d.getUvarint();
      let chunkRef = d.getUvarint();
      chunks.push({ minTime, maxTime, ref: chunkRef });
      for (let i = 1; i < chunkCount && d.err() === null; i++) {
        minTime = chunkMinTime(d, maxTime);
        maxTime = minTime + d.getUvarint();
        chunkRef += d.getVarint();
        chunks.push({ minTime, maxTime, ref: chunkRef });
      }
    }
    d.throwIfError();
    return { labels: Labels.fromSorted(names, values), chunks };
  }

  /** Decodes the postings offset table entries in [from, to). */
  private async readTableEntries(from: number, to: number): Promise<TableEntry[]> {
    const bytes = await this.source.read(from, to - from);
    const d = new DecBuf(bytes, from);
    const out: TableEntry[] = [];
    while (d.len() > 0) {
      out.push(decodeTableEntry(d, from + d.position()));
      d.throwIfError();
    }
    return out;
  }

  private async readPostings(offset: number): Promise<Uint32Array> {
    if (offset + 4 > this.source.size) {
      throw new IndexFormatError(
        `postings list offset ${offset} is past the end of the index (${this.source.size})`,
      );
    }
    const total = postingsListLength(await this.source.read(offset, 4));
    if (offset + total > this.source.size) {
      throw new IndexFormatError(
        `postings list at offset ${offset} claims ${total - 8} bytes, past the end of the index (${this.source.size})`,
      );
    }
    return decodePostingsList(await this.source.read(offset, total), offset);
  }
}

/** Reads a `len <4b> | body | CRC32C <4b>` section and returns the verified body. */
async function readSection(source: ByteSource, offset: number, what: string): Promise<Uint8Array> {
  if (offset + 4 > source.size) {
    throw new IndexFormatError(
      `${what} offset ${offset} is past the end of the index (${source.size})`,
    );
  }
  const length = new DecBuf(await source.read(offset, 4)).getBE32();
  if (offset + 8 + length > source.size) {
    throw new IndexFormatError(
      `${what} at offset ${offset} claims ${length} bytes, past the end of the index (${source.size})`,
    );
  }
  const bytes = await source.read(offset + 4, length + 4);
  checkEntryCrc(bytes, length, what, offset);
  return bytes.subarray(0, length);
}

function decodeTableEntry(d: DecBuf, entryOffset: number): TableEntry {
  const keyCount = d.getUvarint();
  if (d.err() === null && keyCount !== 2) {
    throw new IndexFormatError(
      `postings offset table entry at offset ${entryOffset} has ${keyCount} keys, want 2`,
    );
  }
  const name = d.getUvarintStr();
  const value = d.getUvarintStr();
  const postingsOffset = d.getUvarint();
  d.throwIfError();
  return { name, value, postingsOffset };
}

/** Makes sure the last value of a name is sampled and records where its entries end. */
function closeRange(
  range: LabelNameRange,
  last: SampledValue | undefined,
  endOffset: number,
  nextPostingsOffset: number,
): void {
  if (last !== undefined && range.samples.at(-1) !== last) range.samples.push(last);
  range.endOffset = endOffset;
  range.nextPostingsOffset = nextPostingsOffset;
}

/** Index of the last sample whose value is <= `value`, or -1. */
function lastSampleAtOrBefore(samples: readonly SampledValue[], value: string): number {
  let lo = 0;
  let hi = samples.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (compareGoStrings((samples[mid] as SampledValue).value, value) <= 0) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

/**
 * The min time of a series' next chunk: Prometheus writes it as the uint64 difference from
 * the previous chunk's max time, which wraps around when chunks overlap (out-of-order chunks,
 * which verification must be able to see rather than fail to decode).
 */
function chunkMinTime(d: DecBuf, prevMaxTime: number): number {
  const rest = d.rest();
  // A uvarint of 8 or more bytes is at least 2^49: take the exact 64-bit path.
  for (let i = 0; i < 7; i++) {
    const b = rest[i];
    if (b === undefined || b < 0x80) return prevMaxTime + d.getUvarint();
  }
  const t = BigInt.asIntN(64, BigInt(prevMaxTime) + d.getUvarintBig());
  if (t > BigInt(Number.MAX_SAFE_INTEGER) || t < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new IndexFormatError(`chunk min time ${t} is outside the safe integer range`);
  }
  return Number(t);
}
