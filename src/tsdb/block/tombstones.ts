// A block's `tombstones` file (tsdb/docs/format/tombstones.md): magic 0x0130BA30 (BE32),
// format version 1, then one entry per deleted interval — uvarint series ref, varint mint,
// varint maxt — and a CRC32C of the entries (the magic and version byte are not covered,
// as in Prometheus). Intervals are merged per series as Prometheus merges them.
//
// Prometheus writes the entries in Go map order (unspecified); we write them by ascending
// series ref and interval, so our files are deterministic and still readable by Prometheus.

import { writeFileDurable, type FileSystem } from '../../runtime/index.js';
import { crc32c, DecBuf, EncBuf } from '../encoding/index.js';
import { addInterval, clampBound, type Interval } from './intervals.js';

export const TOMBSTONES_FILENAME = 'tombstones';
export const TOMBSTONES_MAGIC = 0x0130ba30;
export const TOMBSTONES_FORMAT_V1 = 1;
const HEADER_SIZE = 5;
const CRC_SIZE = 4;

/** The tombstones file is damaged; the message names what and where. */
export class TombstonesError extends Error {
  override readonly name = 'TombstonesError';
}

/** Deleted intervals per series ref (Prometheus MemTombstones). */
export class Tombstones {
  private readonly bySeries = new Map<number, Interval[]>();

  /** Adds intervals for a series, merging with what is there. */
  addInterval(ref: number, ...ivs: Interval[]): void {
    if (!Number.isSafeInteger(ref) || ref < 0) {
      throw new RangeError(`series ref must be a non-negative safe integer, got ${ref}`);
    }
    let cur = this.bySeries.get(ref) ?? [];
    for (const iv of ivs) cur = addInterval(cur, iv);
    this.bySeries.set(ref, cur);
  }

  /** The sorted deleted intervals of a series (empty when none). */
  get(ref: number): readonly Interval[] {
    return this.bySeries.get(ref) ?? [];
  }

  /** Series refs with tombstones, ascending. */
  refs(): number[] {
    return [...this.bySeries.keys()].sort((a, b) => a - b);
  }

  /** Calls `fn` for each series in ascending ref order. */
  forEach(fn: (ref: number, ivs: readonly Interval[]) => void): void {
    for (const ref of this.refs()) fn(ref, this.bySeries.get(ref) as Interval[]);
  }

  /** Number of intervals over all series (Prometheus Total(), meta.json numTombstones). */
  total(): number {
    let n = 0;
    for (const ivs of this.bySeries.values()) n += ivs.length;
    return n;
  }

  /** Forgets the given series. */
  deleteSeries(refs: Iterable<number>): void {
    for (const r of refs) this.bySeries.delete(r);
  }

  /** Drops every part of every interval before `beforeT` (Prometheus TruncateBefore). */
  truncateBefore(beforeT: number): void {
    for (const [ref, ivs] of this.bySeries) {
      const kept: Interval[] = [];
      for (const iv of ivs) {
        if (iv.maxt < beforeT) continue;
        kept.push(iv.mint < beforeT ? { mint: beforeT, maxt: iv.maxt } : iv);
      }
      if (kept.length === 0) this.bySeries.delete(ref);
      else this.bySeries.set(ref, kept);
    }
  }
}

/** The tombstones file content for `t`. */
export function encodeTombstonesFile(t: Tombstones): Uint8Array {
  const buf = new EncBuf(64);
  buf.putBE32(TOMBSTONES_MAGIC);
  buf.putByte(TOMBSTONES_FORMAT_V1);
  t.forEach((ref, ivs) => {
    for (const iv of ivs) {
      buf.putUvarint(ref);
      buf.putVarint(iv.mint);
      buf.putVarint(iv.maxt);
    }
  });
  const entries = buf.get().subarray(HEADER_SIZE);
  buf.putBE32(crc32c(entries));
  return buf.get().slice();
}

/** Parses a tombstones file; errors name the file offset of the problem. */
export function decodeTombstonesFile(bytes: Uint8Array): Tombstones {
  if (bytes.length < HEADER_SIZE + CRC_SIZE) {
    throw new TombstonesError(
      `tombstones file too short: ${bytes.length} bytes, want at least ${HEADER_SIZE + CRC_SIZE}`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = view.getUint32(0);
  if (magic !== TOMBSTONES_MAGIC) {
    throw new TombstonesError(
      `invalid tombstones magic number 0x${magic.toString(16)}, want 0x130ba30`,
    );
  }
  if (bytes[4] !== TOMBSTONES_FORMAT_V1) {
    throw new TombstonesError(`invalid tombstones format version ${bytes[4]}, want 1`);
  }
  const entries = bytes.subarray(HEADER_SIZE, bytes.length - CRC_SIZE);
  const want = view.getUint32(bytes.length - CRC_SIZE);
  const got = crc32c(entries);
  if (want !== got) {
    throw new TombstonesError(
      `tombstones checksum mismatch: stored 0x${want.toString(16)}, computed 0x${got.toString(16)}`,
    );
  }
  const t = new Tombstones();
  const d = new DecBuf(entries, HEADER_SIZE);
  while (d.len() > 0) {
    const ref = d.getUvarint();
    const mint = clampBound(d.getVarintBig());
    const maxt = clampBound(d.getVarintBig());
    const err = d.err();
    if (err !== null) throw new TombstonesError(`tombstones entry: ${err.message}`);
    if (mint > maxt) {
      throw new TombstonesError(
        `tombstones entry for series ${ref}: mint ${mint} is after maxt ${maxt}`,
      );
    }
    t.addInterval(ref, { mint, maxt });
  }
  return t;
}

/** Reads `<blockDir>/tombstones`; a missing file means no tombstones (as in Prometheus). */
export async function readTombstones(
  blockDir: string,
  deps: { fs: FileSystem },
): Promise<{ tombstones: Tombstones; size: number }> {
  const path = `${blockDir}/${TOMBSTONES_FILENAME}`;
  if (!(await deps.fs.exists(path))) return { tombstones: new Tombstones(), size: 0 };
  const bytes = await deps.fs.readFile(path);
  try {
    return { tombstones: decodeTombstonesFile(bytes), size: bytes.length };
  } catch (err) {
    if (err instanceof TombstonesError) throw new TombstonesError(`${path}: ${err.message}`);
    throw err;
  }
}

/**
 * Writes `<blockDir>/tombstones` atomically (temp file, fsync, rename, directory sync), as
 * Prometheus does. Returns the file size.
 */
export async function writeTombstones(
  blockDir: string,
  t: Tombstones,
  deps: { fs: FileSystem },
): Promise<number> {
  return writeFileDurable(deps.fs, blockDir, TOMBSTONES_FILENAME, encodeTombstonesFile(t));
}
