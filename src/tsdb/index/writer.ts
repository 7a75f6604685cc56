/**
 * Writes a block index in Prometheus's format v2, byte for byte as Prometheus's index.Writer
 * does: symbols first (sorted, unique), then series in label order (16-byte aligned), and on
 * close the label indices (still written for older readers), postings, label offset table,
 * postings offset table and TOC. Postings are collected in memory while series are added
 * instead of Prometheus's temporary files; the bytes produced are the same.
 */
import { Labels, compareGoStrings, goQuote } from '../../model/index.js';
import type { FileSystem } from '../../runtime/index.js';
import { Crc32c, EncBuf, crc32c } from '../encoding/index.js';
import { IndexFileWriter } from './file_writer.js';
import {
  INDEX_FORMAT_V2,
  INDEX_MAGIC,
  SERIES_ALIGNMENT,
  encodeToc,
  type IndexToc,
} from './format.js';

/** One chunk of a series as the index records it: its time range and its chunk reference. */
export interface ChunkMeta {
  /** Time of the first sample (ms). */
  minTime: number;
  /** Time of the last sample (ms). */
  maxTime: number;
  /**
   * Prometheus ChunkRef (segment index << 32 | offset in segment) as a safe integer; segment
   * numbers below 2^21 keep every real reference exact.
   */
  ref: number;
}

export interface IndexWriterConfig {
  /** Path of the index file to create (an existing file is replaced). */
  path: string;
}

export interface IndexWriterDeps {
  fs: FileSystem;
}

/** Writing stages in order; a later stage finishes the sections of the earlier ones. */
const Stage = { None: 0, Symbols: 1, Series: 2, Done: 3 } as const;
type Stage = (typeof Stage)[keyof typeof Stage];

const STAGE_NAMES = ['none', 'symbols', 'series', 'done'] as const;

const MAX_UINT32 = 0xffffffff;

/**
 * Index writer. Call `addSymbol` for every string of every label set in ascending order,
 * then `addSeries` in ascending label-set order, then `close`. A method called out of stage
 * order rejects, as Prometheus's writer does.
 */
export class IndexWriter {
  private readonly config: IndexWriterConfig;
  private readonly fs: FileSystem;
  private file: IndexFileWriter | null = null;
  private stage: Stage = Stage.None;
  private readonly toc: IndexToc = {
    symbols: 0,
    series: 0,
    labelIndices: 0,
    labelIndicesTable: 0,
    postings: 0,
    postingsTable: 0,
  };

  private lastSymbol = '';
  /** Symbol → its index in the symbol table. */
  private readonly symbolIndex = new Map<string, number>();

  private lastSeries: Labels = Labels.EMPTY;
  private lastSeriesRef = 0;
  private lastChunkRef = 0;
  private maxSeriesSize = 0;
  /** Series IDs (offset / 16) in write order: the "all postings" list. */
  private readonly allPostings: number[] = [];
  /** Label name → label value → series IDs, filled as series are added. */
  private readonly postingsByLabel = new Map<string, Map<string, number[]>>();

  private readonly seriesBuf = new EncBuf(256);
  private readonly scratch = new EncBuf(64);

  constructor(config: IndexWriterConfig, deps: IndexWriterDeps) {
    this.config = config;
    this.fs = deps.fs;
  }

  private async out(): Promise<IndexFileWriter> {
    if (this.file === null) {
      await this.fs.remove(this.config.path);
      const handle = await this.fs.open(this.config.path, 'w');
      this.file = new IndexFileWriter(handle);
      const header = new EncBuf(8);
      header.putBE32(INDEX_MAGIC);
      header.putByte(INDEX_FORMAT_V2);
      await this.file.write(header.get());
    }
    return this.file;
  }

  /** Moves through the stages up to `target`, finishing each section on the way. */
  private async ensureStage(target: Stage): Promise<void> {
    if (this.stage === target) return;
    if (this.stage > target) {
      throw new Error(
        `index writer: cannot go back to stage ${STAGE_NAMES[target]} from ${STAGE_NAMES[this.stage]} (${this.config.path})`,
      );
    }
    if (this.stage < target - 1) await this.ensureStage((target - 1) as Stage);
    const file = await this.out();
    switch (target) {
      case Stage.Symbols:
        this.toc.symbols = file.position;
        // Length and count are back-filled once all symbols are known.
        await file.write(new Uint8Array(8));
        break;
      case Stage.Series:
        await this.finishSymbols(file);
        this.toc.series = file.position;
        break;
      case Stage.Done:
        await this.finishIndex(file);
        break;
      default:
        break;
    }
    this.stage = target;
  }

  async addSymbol(symbol: string): Promise<void> {
    await this.ensureStage(Stage.Symbols);
    if (this.symbolIndex.size > 0 && compareGoStrings(symbol, this.lastSymbol) <= 0) {
      throw new Error(
        `index writer: symbol ${goQuote(symbol)} out of order after ${goQuote(this.lastSymbol)}`,
      );
    }
    this.lastSymbol = symbol;
    this.symbolIndex.set(symbol, this.symbolIndex.size);
    this.scratch.reset();
    this.scratch.putUvarintStr(symbol);
    await (this.file as IndexFileWriter).write(this.scratch.get());
  }

  /** Adds every symbol of `symbols` after sorting and de-duplicating them. */
  async addSymbols(symbols: Iterable<string>): Promise<void> {
    const sorted = [...new Set(symbols)].sort(compareGoStrings);
    for (const s of sorted) await this.addSymbol(s);
  }

  private async finishSymbols(file: IndexFileWriter): Promise<void> {
    const size = file.position - this.toc.symbols - 4;
    if (size > MAX_UINT32) {
      throw new Error(`index writer: symbol table size ${size} exceeds ${MAX_UINT32} bytes`);
    }
    const head = new EncBuf(8);
    head.putBE32(size);
    head.putBE32(this.symbolIndex.size);
    await file.writeAt(this.toc.symbols, head.get());
    const body = await file.readBack(this.toc.symbols + 4, size);
    const crc = new EncBuf(4);
    crc.putBE32(crc32c(body));
    await file.write(crc.get());
  }

  /**
   * Bytes of the largest series entry written so far (length, body and CRC): what a reader
   * fetching a series by range needs at most (Thanos's `index_stats.series_max_size`).
   */
  get seriesMaxSize(): number {
    return this.maxSeriesSize;
  }

  /**
   * Adds one series. `ref` is the caller's series reference and only has to be non-decreasing
   * (Prometheus checks the same); the series ID in the index is its file offset / 16.
   * Returns that series ID.
   */
  async addSeries(ref: number, labels: Labels, chunks: readonly ChunkMeta[]): Promise<number> {
    await this.ensureStage(Stage.Series);
    const file = this.file as IndexFileWriter;
    if (Labels.compare(labels, this.lastSeries) <= 0) {
      throw new Error(
        `index writer: out-of-order series added with label set ${labels.toString()}, last label set ${this.lastSeries.toString()}`,
      );
    }
    if (ref < this.lastSeriesRef && !this.lastSeries.isEmpty()) {
      throw new Error(
        `index writer: series reference ${ref} is lower than the previous ${this.lastSeriesRef}`,
      );
    }
    let lastChunkRef = this.lastChunkRef;
    let lastMaxTime = 0;
    for (let i = 0; i < chunks.length; i++) {
      const c = chunks[i] as ChunkMeta;
      if (!Number.isSafeInteger(c.ref) || c.ref < 0) {
        throw new RangeError(`index writer: chunk reference ${c.ref} is not a safe uint`);
      }
      if (c.ref < lastChunkRef) {
        throw new Error(
          `index writer: unsorted chunk reference ${c.ref}, previous ${lastChunkRef} (series ${labels.toString()})`,
        );
      }
      lastChunkRef = c.ref;
      if (i > 0 && c.minTime <= lastMaxTime) {
        throw new Error(
          `index writer: chunk minT ${c.minTime} is not higher than previous chunk maxT ${lastMaxTime} (series ${labels.toString()})`,
        );
      }
      if (c.maxTime < c.minTime) {
        throw new Error(
          `index writer: chunk maxT ${c.maxTime} is less than minT ${c.minTime} (series ${labels.toString()})`,
        );
      }
      lastMaxTime = c.maxTime;
    }

    await file.pad(SERIES_ALIGNMENT);
    const seriesId = file.position / SERIES_ALIGNMENT;
    if (seriesId > MAX_UINT32) {
      throw new Error(`index writer: series offset ${file.position} exceeds the 64 GiB limit`);
    }

    const buf = this.seriesBuf;
    buf.reset();
    buf.putUvarint(labels.length);
    for (let i = 0; i < labels.length; i++) {
      const name = labels.nameAt(i);
      const value = labels.valueAt(i);
      buf.putUvarint(this.symbolRef(name));
      buf.putUvarint(this.symbolRef(value));
      this.recordPosting(name, value, seriesId);
    }
    buf.putUvarint(chunks.length);
    const first = chunks[0];
    if (first !== undefined) {
      buf.putVarint(first.minTime);
      buf.putUvarint(first.maxTime - first.minTime);
      buf.putUvarint(first.ref);
      let prevMaxTime = first.maxTime;
      let prevRef = first.ref;
      for (let i = 1; i < chunks.length; i++) {
        const c = chunks[i] as ChunkMeta;
        buf.putUvarint(c.minTime - prevMaxTime);
        buf.putUvarint(c.maxTime - c.minTime);
        buf.putVarint(c.ref - prevRef);
        prevMaxTime = c.maxTime;
        prevRef = c.ref;
      }
    }
    const body = buf.get();
    this.scratch.reset();
    this.scratch.putUvarint(body.length);
    await file.write(this.scratch.get());
    const crc = crc32c(body);
    buf.putBE32(crc);
    await file.write(buf.get());
    this.maxSeriesSize = Math.max(this.maxSeriesSize, this.scratch.len() + buf.len());

    this.allPostings.push(seriesId);
    this.lastSeries = labels;
    this.lastSeriesRef = ref;
    this.lastChunkRef = lastChunkRef;
    return seriesId;
  }

  private symbolRef(symbol: string): number {
    const index = this.symbolIndex.get(symbol);
    if (index === undefined) {
      throw new Error(`index writer: symbol entry for ${goQuote(symbol)} does not exist`);
    }
    return index;
  }

  private recordPosting(name: string, value: string, seriesId: number): void {
    let byValue = this.postingsByLabel.get(name);
    if (byValue === undefined) {
      byValue = new Map();
      this.postingsByLabel.set(name, byValue);
    }
    const list = byValue.get(value);
    if (list === undefined) byValue.set(value, [seriesId]);
    else list.push(seriesId);
  }

  /** Closes the index: writes the trailing sections, fsyncs and closes the file. */
  async close(): Promise<void> {
    await this.ensureStage(Stage.Done);
    await (this.file as IndexFileWriter).close();
  }

  private async finishIndex(file: IndexFileWriter): Promise<void> {
    this.toc.labelIndices = file.position;

    // The postings section as Prometheus builds it in its temporary file: the all-postings
    // list under the empty name and value, then each name's values in byte order, each list
    // aligned to 4 bytes; offsets are relative to the section start until it lands.
    const names = [...this.postingsByLabel.keys()].sort(compareGoStrings);
    const postings = new EncBuf(1024);
    const offsetEntries: Array<{ name: string; value: string; offset: number }> = [];
    const appendPostings = (name: string, value: string, ids: readonly number[]): void => {
      while (postings.len() % 4 !== 0) postings.putByte(0);
      offsetEntries.push({ name, value, offset: postings.len() });
      const start = postings.len();
      postings.putBE32(4 + 4 * ids.length);
      postings.putBE32(ids.length);
      for (const id of ids) postings.putBE32(id);
      postings.putBE32(crc32c(postings.get().subarray(start + 4)));
    };
    appendPostings('', '', this.allPostings);
    const sortedValues = new Map<string, string[]>();
    for (const name of names) {
      const byValue = this.postingsByLabel.get(name) as Map<string, number[]>;
      const values = [...byValue.keys()].sort(compareGoStrings);
      sortedValues.set(name, values);
      for (const value of values) appendPostings(name, value, byValue.get(value) as number[]);
    }

    // Label indices: one per label name, listing the symbol refs of its values.
    const labelIndexOffsets: Array<{ name: string; offset: number }> = [];
    for (const name of names) {
      const values = sortedValues.get(name) as string[];
      await file.pad(4);
      labelIndexOffsets.push({ name, offset: file.position });
      const section = new EncBuf(16 + 4 * values.length);
      section.putBE32(8 + 4 * values.length);
      section.putBE32(1);
      section.putBE32(values.length);
      for (const v of values) section.putBE32(this.symbolRef(v));
      section.putBE32(crc32c(section.get().subarray(4)));
      await file.write(section.get());
    }

    this.toc.postings = file.position;
    await file.pad(4);
    const postingsStart = file.position;
    await file.write(postings.get());

    this.toc.labelIndicesTable = file.position;
    await this.writeTable(
      file,
      labelIndexOffsets.length,
      labelIndexOffsets.map((e) => (buf: EncBuf) => {
        buf.putUvarint(1);
        buf.putUvarintStr(e.name);
        buf.putUvarint(e.offset);
      }),
    );

    this.toc.postingsTable = file.position;
    await this.writeTable(
      file,
      offsetEntries.length,
      offsetEntries.map((e) => (buf: EncBuf) => {
        buf.putUvarint(2);
        buf.putUvarintStr(e.name);
        buf.putUvarintStr(e.value);
        buf.putUvarint(e.offset + postingsStart);
      }),
    );

    await file.write(encodeToc(this.toc));
  }

  /** A `len | count | entries | CRC32C(count, entries)` table. */
  private async writeTable(
    file: IndexFileWriter,
    count: number,
    entries: ReadonlyArray<(buf: EncBuf) => void>,
  ): Promise<void> {
    const buf = new EncBuf(1024);
    buf.putBE32(0);
    buf.putBE32(count);
    for (const put of entries) put(buf);
    const length = buf.len() - 4;
    if (length > MAX_UINT32) {
      throw new Error(`index writer: offset table length ${length} exceeds 4 bytes`);
    }
    const crc = new Crc32c().update(buf.get(), 4).digest();
    buf.putBE32(crc);
    const bytes = buf.get();
    new DataView(bytes.buffer, bytes.byteOffset, 4).setUint32(0, length);
    await file.write(bytes);
  }
}
