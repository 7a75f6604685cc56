/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum Prometheus uses for WAL
 * fragments, index sections, chunks and tombstones (`crc32.MakeTable(crc32.Castagnoli)`).
 * Slicing-by-8: eight 256-entry tables let the hot loop consume eight bytes per step.
 * The tables are computed once at import and never written afterwards.
 */

const CASTAGNOLI_REFLECTED = 0x82f63b78;

function buildTables(): Uint32Array {
  const tables = new Uint32Array(8 * 256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ CASTAGNOLI_REFLECTED : c >>> 1;
    tables[n] = c >>> 0;
  }
  // Table t[k][n] is the CRC of byte n followed by k zero bytes.
  for (let n = 0; n < 256; n++) {
    let c = tables[n]!;
    for (let k = 1; k < 8; k++) {
      c = tables[c & 0xff]! ^ (c >>> 8);
      tables[k * 256 + n] = c >>> 0;
    }
  }
  return tables;
}

const TABLES: Uint32Array = buildTables();

/** Advances a raw (pre-inverted) CRC register over `data[start, end)`. */
function updateRaw(crc: number, data: Uint8Array, start: number, end: number): number {
  const t = TABLES;
  let c = crc;
  let i = start;
  const end8 = start + ((end - start) & ~7);
  while (i < end8) {
    const lo =
      (c ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24))) >>> 0;
    const hi = data[i + 4]! | (data[i + 5]! << 8) | (data[i + 6]! << 16) | (data[i + 7]! << 24);
    c =
      t[7 * 256 + (lo & 0xff)]! ^
      t[6 * 256 + ((lo >>> 8) & 0xff)]! ^
      t[5 * 256 + ((lo >>> 16) & 0xff)]! ^
      t[4 * 256 + (lo >>> 24)]! ^
      t[3 * 256 + (hi & 0xff)]! ^
      t[2 * 256 + ((hi >>> 8) & 0xff)]! ^
      t[256 + ((hi >>> 16) & 0xff)]! ^
      t[(hi >>> 24) & 0xff]!;
    i += 8;
  }
  while (i < end) {
    c = t[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
    i++;
  }
  return c >>> 0;
}

/**
 * CRC-32C of `data`. `seed` is the CRC of the bytes before `data` (Go's `crc32.Update`
 * semantics), so `crc32c(b, crc32c(a))` equals the CRC of `a` followed by `b`.
 */
export function crc32c(data: Uint8Array, seed = 0): number {
  return ~updateRaw(~seed >>> 0, data, 0, data.length) >>> 0;
}

/** Incremental CRC-32C over several pieces, without concatenating them. */
export class Crc32c {
  private raw = 0xffffffff;

  /** Feeds `data[start, end)` (the whole array by default). */
  update(data: Uint8Array, start = 0, end = data.length): this {
    if (start < 0 || end > data.length || start > end)
      throw new RangeError(
        `crc32c update range [${start}, ${end}) is outside the data (length ${data.length})`,
      );
    this.raw = updateRaw(this.raw, data, start, end);
    return this;
  }

  /** The CRC of everything fed since construction or the last reset (unsigned 32-bit). */
  digest(): number {
    return ~this.raw >>> 0;
  }

  reset(): this {
    this.raw = 0xffffffff;
    return this;
  }
}
