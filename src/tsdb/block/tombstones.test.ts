import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from '../../runtime/real/index.js';
import { EncBuf, crc32c } from '../encoding/index.js';
import {
  addInterval,
  decodeTombstonesFile,
  encodeTombstonesFile,
  INTERVAL_MAX,
  INTERVAL_MIN,
  isDeleted,
  isSubrange,
  readTombstones,
  Tombstones,
  writeTombstones,
  type Interval,
} from './index.js';

const root = mkdtempSync(join(tmpdir(), 'strata-tombstones-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fs = new NodeFileSystem();

const intervalArb = fc
  .tuple(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 8 }))
  .map(([mint, len]): Interval => ({ mint, maxt: mint + len }));

describe('Intervals.add', () => {
  it('matches a model of deleted timestamps and stays sorted, disjoint, non-adjacent', () => {
    fc.assert(
      fc.property(fc.array(intervalArb, { maxLength: 25 }), (adds) => {
        let ivs: Interval[] = [];
        const model = new Set<number>();
        for (const iv of adds) {
          ivs = addInterval(ivs, iv);
          for (let t = iv.mint; t <= iv.maxt; t++) model.add(t);
        }
        for (let t = -1; t <= 70; t++) expect(isDeleted(ivs, t)).toBe(model.has(t));
        for (let i = 1; i < ivs.length; i++) {
          expect((ivs[i] as Interval).mint).toBeGreaterThan((ivs[i - 1] as Interval).maxt + 1);
        }
        for (const iv of adds) expect(isSubrange(iv, ivs)).toBe(true);
      }),
    );
  });

  it('merges adjacent intervals and handles the unbounded ends', () => {
    expect(addInterval([{ mint: 1, maxt: 2 }], { mint: 3, maxt: 4 })).toEqual([
      { mint: 1, maxt: 4 },
    ]);
    expect(addInterval([{ mint: 5, maxt: 6 }], { mint: 1, maxt: 3 })).toEqual([
      { mint: 1, maxt: 3 },
      { mint: 5, maxt: 6 },
    ]);
    expect(addInterval([{ mint: 5, maxt: 6 }], { mint: INTERVAL_MIN, maxt: INTERVAL_MAX })).toEqual(
      [{ mint: INTERVAL_MIN, maxt: INTERVAL_MAX }],
    );
    expect(() => addInterval([], { mint: 2, maxt: 1 })).toThrow(/mint 2 is after maxt 1/);
  });
});

describe('tombstones file', () => {
  it('writes the empty file promtool writes (magic, version, CRC of nothing)', () => {
    expect([...encodeTombstonesFile(new Tombstones())]).toEqual([
      0x01, 0x30, 0xba, 0x30, 1, 0, 0, 0, 0,
    ]);
  });

  it('encodes entries as uvarint ref, varint mint, varint maxt with a CRC of the entries', () => {
    const t = new Tombstones();
    t.addInterval(300, { mint: -5, maxt: 70 });
    t.addInterval(2, { mint: 1, maxt: 2 }, { mint: 10, maxt: 20 });
    const entries = new EncBuf();
    for (const [ref, mint, maxt] of [
      [2, 1, 2],
      [2, 10, 20],
      [300, -5, 70],
    ] as const) {
      entries.putUvarint(ref);
      entries.putVarint(mint);
      entries.putVarint(maxt);
    }
    const body = entries.get();
    const want = new EncBuf();
    want.putBE32(0x0130ba30);
    want.putByte(1);
    want.putBytes(body);
    want.putBE32(crc32c(body));
    expect(encodeTombstonesFile(t)).toEqual(want.get());
    expect(t.total()).toBe(3);
  });

  it('round-trips and merges intervals read back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 1e6 }), intervalArb), { maxLength: 30 }),
        (adds) => {
          const t = new Tombstones();
          for (const [ref, iv] of adds) t.addInterval(ref, iv);
          const back = decodeTombstonesFile(encodeTombstonesFile(t));
          expect(back.refs()).toEqual(t.refs());
          for (const ref of t.refs()) expect(back.get(ref)).toEqual(t.get(ref));
        },
      ),
    );
  });

  it('clamps int64 bounds beyond the safe range', () => {
    const b = new EncBuf();
    b.putBE32(0x0130ba30);
    b.putByte(1);
    b.putUvarint(7);
    b.putVarintBig(-(1n << 63n));
    b.putVarintBig((1n << 63n) - 1n);
    b.putBE32(crc32c(b.get().subarray(5)));
    expect(decodeTombstonesFile(b.get()).get(7)).toEqual([
      { mint: INTERVAL_MIN, maxt: INTERVAL_MAX },
    ]);
  });

  it('rejects damaged files naming the problem', () => {
    const t = new Tombstones();
    t.addInterval(1, { mint: 0, maxt: 9 });
    const good = encodeTombstonesFile(t);
    const flipped = good.slice();
    flipped[6] = (flipped[6] as number) ^ 1;
    expect(() => decodeTombstonesFile(flipped)).toThrow(/checksum mismatch/);
    const magic = good.slice();
    magic[0] = 9;
    expect(() => decodeTombstonesFile(magic)).toThrow(/invalid tombstones magic number 0x930ba30/);
    const version = good.slice();
    version[4] = 2;
    expect(() => decodeTombstonesFile(version)).toThrow(/format version 2/);
    expect(() => decodeTombstonesFile(good.subarray(0, 4))).toThrow(/too short: 4 bytes/);
    const truncated = new EncBuf();
    truncated.putBytes(good.subarray(0, 6));
    truncated.putBE32(crc32c(good.subarray(5, 6)));
    expect(() => decodeTombstonesFile(truncated.get())).toThrow(/tombstones entry: unexpected end/);
  });

  it('supports truncation and series deletion like MemTombstones', () => {
    const t = new Tombstones();
    t.addInterval(1, { mint: 0, maxt: 9 }, { mint: 20, maxt: 30 });
    t.addInterval(2, { mint: 0, maxt: 4 });
    t.truncateBefore(5);
    expect(t.get(1)).toEqual([
      { mint: 5, maxt: 9 },
      { mint: 20, maxt: 30 },
    ]);
    expect(t.refs()).toEqual([1]);
    t.deleteSeries([1]);
    expect(t.total()).toBe(0);
  });

  it('writes atomically and reads back; a missing file means no tombstones', async () => {
    const dir = join(root, 'b1');
    await fs.mkdir(dir, { recursive: true });
    expect((await readTombstones(dir, { fs })).size).toBe(0);
    const t = new Tombstones();
    t.addInterval(4, { mint: 100, maxt: 200 });
    const size = await writeTombstones(dir, t, { fs });
    expect(await fs.exists(join(dir, 'tombstones.tmp'))).toBe(false);
    const back = await readTombstones(dir, { fs });
    expect(back.size).toBe(size);
    expect(back.tombstones.get(4)).toEqual([{ mint: 100, maxt: 200 }]);
    await fs.writeFile(join(dir, 'tombstones'), Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9));
    await expect(readTombstones(dir, { fs })).rejects.toThrow(
      `${dir}/tombstones: invalid tombstones magic`,
    );
  });
});
