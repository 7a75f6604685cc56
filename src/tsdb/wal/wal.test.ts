import { describe, expect, it } from 'vitest';
import { newMetricsRegistry } from '../../runtime/index.js';
import { CapturingLogger } from '../../runtime/testing/index.js';
import { crc32c } from '../encoding/index.js';
import { snappyDecode } from './compression.js';
import { CorruptionError, PAGE_SIZE, WAL, WALMetrics, readRecords, segmentName } from './index.js';
import { DiskFileSystem } from '../../../sim/testing/index.js';

const DIR = '/data/wal';

function setup(config: { segmentSize?: number; compress?: boolean } = {}) {
  const fs = new DiskFileSystem();
  const logger = new CapturingLogger();
  const open = () => WAL.open(DIR, config, { fs, logger });
  return { fs, logger, open };
}

async function readAll(fs: DiskFileSystem, opts = {}): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const r of readRecords(DIR, opts, { fs })) out.push(r);
  return out;
}

function segmentBytes(fs: DiskFileSystem, index: number): Uint8Array {
  const bytes = fs.disk.readCurrent(`${DIR}/${segmentName(index)}`);
  if (bytes === undefined) throw new Error(`segment ${index} missing`);
  return bytes;
}

const pattern = (n: number, seed = 1): Uint8Array =>
  Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed * 7 + (i >> 8)) & 0xff);

const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('WAL byte layout', () => {
  it('writes the exact Prometheus fragment layout for a tiny WAL (golden bytes)', async () => {
    const { fs, open } = setup();
    const wal = await open();
    expect(wal.currentSegment).toBe(0);
    await wal.log(ascii('abc'));
    await wal.log(new Uint8Array(0));
    // Each log() call writes its bytes out at once (page kept in memory, not padded yet).
    expect([...segmentBytes(fs, 0)]).toEqual([
      // type full, length 3, CRC32C("abc") = 0x364b3fb7, payload
      0x01, 0x00, 0x03, 0x36, 0x4b, 0x3f, 0xb7, 0x61, 0x62, 0x63,
      // an empty record is still a full fragment: length 0, CRC32C("") = 0
      0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]);
    await wal.close();
    // Close pads the last page with zeros to 32 KiB.
    const closed = segmentBytes(fs, 0);
    expect(closed.length).toBe(PAGE_SIZE);
    expect(closed.subarray(17).every((b) => b === 0)).toBe(true);
    expect(await readAll(fs)).toEqual([ascii('abc'), new Uint8Array(0)]);
  });

  it('splits records larger than a page into first/middle/last fragments on page boundaries', async () => {
    const { fs, open } = setup();
    const wal = await open();
    const big = pattern(3 * PAGE_SIZE + 100);
    await wal.log(ascii('x'), big);
    const bytes = segmentBytes(fs, 0);
    const payload = PAGE_SIZE - 7;
    // Page 0: full "x" (8 bytes), then first fragment with the rest of the page.
    expect(bytes[0]).toBe(1);
    expect(bytes[8]).toBe(2);
    expect((bytes[9]! << 8) | bytes[10]!).toBe(PAGE_SIZE - 8 - 7);
    expect(bytes[PAGE_SIZE]).toBe(3);
    expect((bytes[PAGE_SIZE + 1]! << 8) | bytes[PAGE_SIZE + 2]!).toBe(payload);
    expect(bytes[2 * PAGE_SIZE]).toBe(3);
    expect(bytes[3 * PAGE_SIZE]).toBe(4);
    const lastLen = big.length - (PAGE_SIZE - 15) - 2 * payload;
    expect((bytes[3 * PAGE_SIZE + 1]! << 8) | bytes[3 * PAGE_SIZE + 2]!).toBe(lastLen);
    expect(bytes.length).toBe(3 * PAGE_SIZE + 7 + lastLen);
    // Each fragment's CRC covers its own payload only.
    const crc =
      ((bytes[PAGE_SIZE + 3]! << 24) |
        (bytes[PAGE_SIZE + 4]! << 16) |
        (bytes[PAGE_SIZE + 5]! << 8) |
        bytes[PAGE_SIZE + 6]!) >>>
      0;
    expect(crc).toBe(crc32c(bytes.subarray(PAGE_SIZE + 7, 2 * PAGE_SIZE)));
    expect(await readAll(fs)).toEqual([ascii('x'), big]);
  });

  it('pads a page when fewer than 7 bytes remain and writes a zero-length first fragment when exactly 7 remain', async () => {
    const { fs, open } = setup();
    const wal = await open();
    // 7 + 32754 = 32761: exactly 7 bytes remain in page 0.
    await wal.log(pattern(PAGE_SIZE - 14), pattern(10, 2));
    const bytes = segmentBytes(fs, 0);
    expect(bytes[PAGE_SIZE - 7]).toBe(2); // first, empty
    expect([...bytes.subarray(PAGE_SIZE - 6, PAGE_SIZE)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(bytes[PAGE_SIZE]).toBe(4); // last, with all 10 bytes
    expect(bytes[PAGE_SIZE + 2]).toBe(10);

    // Now leave 3 bytes in page 1: the next record starts on page 2 after zero padding.
    const { fs: fs2, open: open2 } = setup();
    const wal2 = await open2();
    await wal2.log(pattern(PAGE_SIZE - 10), ascii('next'));
    const b2 = segmentBytes(fs2, 0);
    expect([...b2.subarray(PAGE_SIZE - 3, PAGE_SIZE)]).toEqual([0, 0, 0]);
    expect(b2[PAGE_SIZE]).toBe(1);
    expect(await readAll(fs2)).toEqual([pattern(PAGE_SIZE - 10), ascii('next')]);
    expect(await readAll(fs)).toEqual([pattern(PAGE_SIZE - 14), pattern(10, 2)]);
  });

  it('continues a flushed partial page in place across log calls and syncs', async () => {
    const { fs, open } = setup();
    const wal = await open();
    const records = Array.from({ length: 50 }, (_, i) => pattern(1000 + i, i));
    for (const r of records) {
      await wal.log(r);
      await wal.sync();
    }
    // Nothing but fragments: 50 records of ~1 KiB fill pages contiguously.
    const bytes = segmentBytes(fs, 0);
    const used = records.reduce((n, r) => n + r.length + 7, 0);
    expect(bytes.length).toBeGreaterThanOrEqual(used);
    expect(bytes.length).toBeLessThan(used + 7 * 4);
    expect(await readAll(fs)).toEqual(records);
  });
});

describe('WAL compression', () => {
  it('snappy-compresses records that shrink and flags them; leaves others alone', async () => {
    const { fs } = setup();
    const registry = newMetricsRegistry();
    const metrics = new WALMetrics(registry);
    // A second WALMetrics on the same registry shares the metrics instead of failing.
    expect(new WALMetrics(registry).pageFlushes).toBe(metrics.pageFlushes);
    const wal = await WAL.open(
      DIR,
      { compress: true },
      { fs, logger: new CapturingLogger(), metrics },
    );
    await wal.close();
    const wal2 = await WAL.open(
      DIR,
      { compress: true },
      { fs, logger: new CapturingLogger(), metrics },
    );
    const compressible = new Uint8Array(5000).fill(7);
    await wal2.log(compressible, ascii('ab'));
    const bytes = segmentBytes(fs, 1);
    expect(bytes[0]).toBe(0x01 | 0x08);
    const len = (bytes[1]! << 8) | bytes[2]!;
    expect(len).toBeLessThan(500);
    expect(snappyDecode(bytes.subarray(7, 7 + len))).toEqual(compressible);
    // "ab" does not shrink under snappy: written plain.
    expect(bytes[7 + len]).toBe(0x01);
    expect(await readAll(fs)).toEqual([compressible, ascii('ab')]);
    const saved = await registry.getSingleMetricAsString(
      'prometheus_tsdb_wal_record_bytes_saved_total',
    );
    expect(saved).toContain(`compression="snappy"} ${5000 - len}`);
  });

  it('a compressed record larger than a page splits with the flag on every fragment', async () => {
    const { fs, open } = setup({ compress: true });
    const wal = await open();
    // Random-ish data does not compress well, so it stays large.
    const rec = Uint8Array.from({ length: 3 * PAGE_SIZE }, (_, i) => (i * 2654435761) >>> 24);
    const compressed = Uint8Array.from({ length: 4 * PAGE_SIZE }, (_, i) =>
      i % 13 === 0 ? i & 0xff : 0,
    );
    await wal.log(rec, compressed);
    const all = await readAll(fs);
    expect(all).toEqual([rec, compressed]);
  });
});

describe('WAL segments', () => {
  it('rotates so that no record straddles segments and truncates old segments', async () => {
    const { fs, open } = setup({ segmentSize: 2 * PAGE_SIZE });
    const wal = await open();
    const records = Array.from({ length: 12 }, (_, i) => pattern(20000, i));
    for (const r of records) await wal.log(r);
    expect(wal.currentSegment).toBeGreaterThan(2);
    const range = await wal.segments();
    expect(range.first).toBe(0);
    expect(range.last).toBe(wal.currentSegment);
    // Every segment reads on its own: nothing continues into the next one.
    let total = 0;
    for (let s = range.first; s <= range.last; s++) {
      const recs = await readAll(fs, { fromSegment: s, toSegment: s });
      total += recs.length;
      if (s < range.last) expect(segmentBytes(fs, s).length % PAGE_SIZE).toBe(0);
      expect(segmentBytes(fs, s).length).toBeLessThanOrEqual(2 * PAGE_SIZE);
    }
    expect(total).toBe(records.length);
    expect(await readAll(fs)).toEqual(records);

    await wal.truncate(2);
    expect((await wal.segments()).first).toBe(2);
    const rest = await readAll(fs);
    expect(rest).toEqual(records.slice(records.length - rest.length));
    await expect(wal.truncate(wal.currentSegment + 1)).rejects.toThrow(/being written/);
  });

  it('a record larger than a whole segment goes into a fresh segment of its own', async () => {
    const { fs, open } = setup({ segmentSize: PAGE_SIZE });
    const wal = await open();
    await wal.log(ascii('small'));
    await wal.log(pattern(3 * PAGE_SIZE));
    await wal.log(ascii('after'));
    expect(await readAll(fs, { toSegment: 0 })).toEqual([ascii('small')]);
    expect(await readAll(fs, { fromSegment: 1, toSegment: 1 })).toEqual([pattern(3 * PAGE_SIZE)]);
    expect(await readAll(fs, { fromSegment: 2 })).toEqual([ascii('after')]);
  });

  it('nextSegment pads the page, and reopening starts a new segment after the last', async () => {
    const { fs, open } = setup();
    const wal = await open();
    await wal.log(ascii('one'));
    expect(await wal.nextSegment()).toBe(1);
    expect(segmentBytes(fs, 0).length).toBe(PAGE_SIZE);
    await wal.log(ascii('two'));
    await wal.close();
    await expect(wal.log(ascii('x'))).rejects.toThrow(/closed/);
    const reopened = await open();
    expect(reopened.currentSegment).toBe(2);
    const seen: Uint8Array[] = [];
    expect(await reopened.replay((r) => void seen.push(r))).toEqual({ records: 2 });
    expect(seen).toEqual([ascii('one'), ascii('two')]);
  });

  it('refuses segment sizes that are not whole pages and non-sequential segments', async () => {
    const { fs, logger } = setup();
    await expect(WAL.open(DIR, { segmentSize: 1000 }, { fs, logger })).rejects.toThrow(/1000/);
    const wal = await WAL.open(DIR, {}, { fs, logger });
    await wal.close();
    await fs.writeFile(`${DIR}/00000005`, new Uint8Array(0));
    await fs.writeFile(`${DIR}/checkpoint.00000001`, 'ignored');
    await expect(readAll(fs)).rejects.toThrow(/00000000 is followed by 00000005/);
  });
});

describe('WAL corruption and repair', () => {
  async function threeSegments() {
    const env = setup({ segmentSize: 2 * PAGE_SIZE });
    const wal = await env.open();
    const records = Array.from({ length: 9 }, (_, i) => pattern(20000, i));
    for (const r of records) await wal.log(r);
    await wal.sync();
    await wal.close();
    return { ...env, records };
  }

  it('reports a bad CRC in the middle with segment and offset, and repair keeps the prefix', async () => {
    const { fs, logger, records, open } = await threeSegments();
    // Segment 1 holds records 3..5 (each 20000 + fragments); garble record 4's payload.
    const seg1 = await readAll(fs, { fromSegment: 1, toSegment: 1 });
    expect(seg1).toEqual(records.slice(3, 6));
    const path = `${DIR}/${segmentName(1)}`;
    const h = await fs.open(path, 'r+');
    await h.write(20007 + 100, Uint8Array.of(0xee));
    await h.close();

    const err = await readAll(fs).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CorruptionError);
    const c = err as CorruptionError;
    expect(c.segment).toBe(1);
    expect(c.kind).toBe('checksum');
    expect(c.offset).toBe(20007);
    expect(c.recordStart).toBe(20007);
    expect(c.message).toContain('/data/wal/00000001');
    expect(c.message).toContain('offset 20007');

    const wal = await open();
    const seen: Uint8Array[] = [];
    const result = await wal.replay((r) => void seen.push(r));
    expect(result.records).toBe(4);
    expect(result.repaired?.segment).toBe(1);
    expect(seen).toEqual(records.slice(0, 4));
    expect(logger.find('corruption', 'warn').length).toBeGreaterThan(0);
    // Later segments are gone; writing continues after the repaired one.
    expect(wal.currentSegment).toBe(2);
    expect(await wal.segments()).toEqual({ first: 0, last: 2 });
    expect(segmentBytes(fs, 1).length).toBe(PAGE_SIZE);
    await wal.log(ascii('after repair'));
    await wal.close();
    expect(await readAll(fs)).toEqual([...records.slice(0, 4), ascii('after repair')]);
  });

  it('treats a torn tail as the end and repairs it without losing complete records', async () => {
    const { fs, open } = setup();
    const wal = await open();
    const records = [pattern(100), pattern(40000, 2), pattern(50, 3)];
    await wal.log(...records);
    await wal.sync();
    await wal.log(pattern(70000, 4));
    // Cut the last record in its middle fragment, as a power loss would.
    const path = `${DIR}/${segmentName(0)}`;
    const h = await fs.open(path, 'r+');
    const size = await h.size();
    await h.truncate(size - 40000);
    await h.close();

    const err = await readAll(fs).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CorruptionError);
    expect((err as CorruptionError).kind).toBe('truncated');

    const reopened = await open();
    const seen: Uint8Array[] = [];
    const result = await reopened.replay((r) => void seen.push(r));
    expect(seen).toEqual(records);
    expect(result.repaired?.kind).toBe('truncated');
    // The repair is durable and clean: reading again finds no corruption.
    expect(await readAll(fs)).toEqual(records);
  });

  it('reports out-of-order fragment types and non-zero padding', async () => {
    const { fs, open } = setup();
    const wal = await open();
    await wal.log(ascii('a'), ascii('b'));
    await wal.close();
    const path = `${DIR}/${segmentName(0)}`;
    const h = await fs.open(path, 'r+');
    await h.write(8, Uint8Array.of(4)); // second record claims to be a "last" fragment
    await h.close();
    const err = (await readAll(fs).catch((e: unknown) => e)) as CorruptionError;
    expect(err.kind).toBe('fragment-type');
    expect(err.offset).toBe(8);
    expect(err.recordStart).toBe(8);

    const h2 = await fs.open(path, 'r+');
    await h2.write(8, Uint8Array.of(1));
    await h2.write(1000, Uint8Array.of(9));
    await h2.close();
    const err2 = (await readAll(fs).catch((e: unknown) => e)) as CorruptionError;
    expect(err2.kind).toBe('malformed');
    expect(err2.offset).toBe(1000);
    expect(err2.recordStart).toBe(16);
  });
});
