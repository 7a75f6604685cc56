import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isObjectNotFound, type Bucket, type UploadSource } from '../bucket.js';
import { bytesSource } from '../upload_source.js';

export interface BucketUnderTest {
  bucket: Bucket;
  cleanup: () => Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

/** `size` bytes of a pattern that differs from one offset to the next (no repeats at 2^n). */
function patterned(size: number, seed = 0): Uint8Array {
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = (i * 31 + (i >>> 11) + seed) & 0xff;
  return out;
}

/**
 * A source over `data` cut into `piece`-byte pieces that counts its opens; `failFirstOpenAt`
 * makes the first open throw after that many bytes went out (a dropped local read).
 */
function piecewise(
  data: Uint8Array,
  piece: number,
  failFirstOpenAt?: number,
): UploadSource & { opens: number } {
  const source = {
    size: data.length,
    opens: 0,
    async *open(): AsyncIterable<Uint8Array> {
      const open = ++source.opens;
      for (let at = 0; at < data.length; at += piece) {
        if (open === 1 && failFirstOpenAt !== undefined && at >= failFirstOpenAt) {
          throw new Error(`source read failed at byte ${at}`);
        }
        await Promise.resolve();
        // A fresh copy per piece: a backend may keep the buffers it was given.
        yield data.slice(at, Math.min(data.length, at + piece));
      }
    },
  };
  return source;
}

/**
 * The Bucket contract every backend must pass (memory, filesystem, S3/MinIO, GCS, Azure, the
 * simulator's wrapper). `makeBucket` returns a fresh, empty bucket for each test.
 */
export function describeBucketContract(
  name: string,
  makeBucket: () => Promise<BucketUnderTest>,
): void {
  describe(`Bucket contract: ${name}`, () => {
    let subject: BucketUnderTest;
    let bucket: Bucket;

    beforeEach(async () => {
      subject = await makeBucket();
      bucket = subject.bucket;
    });
    afterEach(async () => {
      await subject.bucket.close();
      await subject.cleanup();
    });

    async function expectNotFound(p: Promise<unknown>, object: string): Promise<void> {
      const err: unknown = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isObjectNotFound(err), `expected ObjectNotFoundError, got ${String(err)}`).toBe(true);
      expect(String(err)).toContain(object);
    }

    it('has a descriptive name', () => {
      expect(bucket.name.length).toBeGreaterThan(0);
    });

    it('round-trips binary data, including empty objects', async () => {
      const data = new Uint8Array(256).map((_, i) => i);
      await bucket.upload('blocks/01/index', data);
      await bucket.upload('empty', new Uint8Array(0));
      expect(await bucket.get('blocks/01/index')).toEqual(data);
      expect(await bucket.get('empty')).toEqual(new Uint8Array(0));
    });

    it('rejects get, getRange and attributes of a missing object with ObjectNotFoundError', async () => {
      await expectNotFound(bucket.get('missing/obj'), 'missing/obj');
      await expectNotFound(bucket.getRange('missing/obj', 0, 1), 'missing/obj');
      await expectNotFound(bucket.attributes('missing/obj'), 'missing/obj');
    });

    it('deletes a missing object without error (idempotent delete)', async () => {
      await bucket.delete('missing/obj');
      await bucket.upload('twice', bytes('x'));
      await bucket.delete('twice');
      await bucket.delete('twice');
      expect(await bucket.exists('twice')).toBe(false);
      expect(await bucket.list('')).toEqual([]);
    });

    it('reports existence', async () => {
      expect(await bucket.exists('a/b')).toBe(false);
      await bucket.upload('a/b', bytes('x'));
      expect(await bucket.exists('a/b')).toBe(true);
      expect(await bucket.exists('a')).toBe(false);
    });

    it('replaces an object on upload', async () => {
      await bucket.upload('obj', bytes('first version, longer'));
      await bucket.upload('obj', bytes('second'));
      expect(dec.decode(await bucket.get('obj'))).toBe('second');
      expect((await bucket.attributes('obj')).size).toBe(6);
    });

    it('reads byte ranges: inside, across the end, to the end with -1, and past the end', async () => {
      await bucket.upload('r', bytes('0123456789'));
      expect(dec.decode(await bucket.getRange('r', 2, 3))).toBe('234');
      expect(dec.decode(await bucket.getRange('r', 7, 10))).toBe('789');
      expect(dec.decode(await bucket.getRange('r', 4, -1))).toBe('456789');
      expect(dec.decode(await bucket.getRange('r', 0, 0))).toBe('');
      expect(dec.decode(await bucket.getRange('r', 10, 5))).toBe('');
      expect(dec.decode(await bucket.getRange('r', 12, -1))).toBe('');
    });

    it('rejects invalid ranges naming the bad value', async () => {
      await bucket.upload('r', bytes('0123'));
      await expect(bucket.getRange('r', -1, 2)).rejects.toThrow(/-1/);
      await expect(bucket.getRange('r', 0, -2)).rejects.toThrow(/-2/);
    });

    it('rejects an empty object name', async () => {
      await expect(bucket.upload('', bytes('x'))).rejects.toThrow(/""/);
    });

    it('deletes objects', async () => {
      await bucket.upload('d/x', bytes('x'));
      await bucket.delete('d/x');
      expect(await bucket.exists('d/x')).toBe(false);
      await expectNotFound(bucket.get('d/x'), 'd/x');
    });

    it('reports size and a plausible modification time', async () => {
      await bucket.upload('attr', bytes('hello'));
      const attrs = await bucket.attributes('attr');
      expect(attrs.size).toBe(5);
      expect(Number.isFinite(attrs.lastModified)).toBe(true);
    });

    it('lists direct children: objects by full name, directories with a trailing slash, sorted', async () => {
      // No name is both an object and a directory: filesystem backends cannot represent that.
      for (const n of ['b/d/e', '0', 'b/c', 'c/x', 'a-b', 'a/x', 'a0'])
        await bucket.upload(n, bytes(n));
      expect(await bucket.list('')).toEqual(['0', 'a-b', 'a/', 'a0', 'b/', 'c/']);
      expect(await bucket.list('b')).toEqual(['b/c', 'b/d/']);
      expect(await bucket.list('b/')).toEqual(['b/c', 'b/d/']);
      expect(await bucket.list('b/d')).toEqual(['b/d/e']);
      expect(await bucket.list('nope')).toEqual([]);
    });

    it('lists recursively: every object below the directory, no directories', async () => {
      for (const n of ['b/d/e', 'a', 'b/c', 'c/x', 'b/d/f/g']) await bucket.upload(n, bytes(n));
      expect(await bucket.list('', { recursive: true })).toEqual([
        'a',
        'b/c',
        'b/d/e',
        'b/d/f/g',
        'c/x',
      ]);
      expect(await bucket.list('b', { recursive: true })).toEqual(['b/c', 'b/d/e', 'b/d/f/g']);
      expect(await bucket.list('b/d/', { recursive: true })).toEqual(['b/d/e', 'b/d/f/g']);
    });

    it('stops listing a directory once its last object is deleted', async () => {
      await bucket.upload('t/1/meta.json', bytes('{}'));
      await bucket.upload('t/2/meta.json', bytes('{}'));
      await bucket.delete('t/1/meta.json');
      expect(await bucket.list('t')).toEqual(['t/2/']);
      expect(await bucket.list('')).toEqual(['t/']);
      await bucket.delete('t/2/meta.json');
      expect(await bucket.list('')).toEqual([]);
    });

    it('copies data: mutating the uploaded or returned buffer never changes the stored object', async () => {
      const data = bytes('abc');
      await bucket.upload('copy', data);
      data[0] = 0x7a;
      const got = await bucket.get('copy');
      expect(dec.decode(got)).toBe('abc');
      got[1] = 0x7a;
      expect(dec.decode(await bucket.get('copy'))).toBe('abc');
      const range = await bucket.getRange('copy', 0, 2);
      range[0] = 0x7a;
      expect(dec.decode(await bucket.get('copy'))).toBe('abc');
    });

    it('never shows a reader a mix of the old and new object during a replacing upload', async () => {
      const oldData = new Uint8Array(1 << 20).fill(1);
      const newData = new Uint8Array(1 << 20).fill(2);
      await bucket.upload('atomic', oldData);
      const reads: Promise<Uint8Array>[] = [];
      const upload = bucket.upload('atomic', newData);
      for (let i = 0; i < 20; i++) reads.push(bucket.get('atomic'));
      await upload;
      reads.push(bucket.get('atomic'));
      const results = await Promise.all(reads);
      for (const r of results) {
        expect(r.length).toBe(1 << 20);
        const first = r[0];
        expect(first === 1 || first === 2).toBe(true);
        expect(r.every((b) => b === first)).toBe(true);
      }
      expect(results.at(-1)?.[0]).toBe(2);
    });

    it('uploads from a stream: the same object as a byte upload, empty ones too', async () => {
      const data = patterned(10_000);
      await bucket.uploadStream('s/pieces', piecewise(data, 999));
      await bucket.uploadStream('s/empty', bytesSource(new Uint8Array(0)));
      expect(await bucket.get('s/pieces')).toEqual(data);
      expect((await bucket.attributes('s/pieces')).size).toBe(10_000);
      expect(await bucket.get('s/empty')).toEqual(new Uint8Array(0));
      expect(await bucket.list('s')).toEqual(['s/empty', 's/pieces']);
    });

    it('uploads a large streamed object spanning many pieces (and S3 parts, Azure blocks)', async () => {
      const data = patterned(17 * (1 << 20) + 123, 7);
      await bucket.uploadStream('large/chunks/000001', piecewise(data, 1 << 20));
      const got = await bucket.get('large/chunks/000001');
      expect(got.length).toBe(data.length);
      expect(Buffer.compare(got, data)).toBe(0);
      expect(await bucket.getRange('large/chunks/000001', 16 * (1 << 20) - 5, 10)).toEqual(
        data.slice(16 * (1 << 20) - 5, 16 * (1 << 20) + 5),
      );
    });

    it('rejects a stream that yields fewer or more bytes than its size, keeping the old object', async () => {
      await bucket.upload('sized', bytes('old'));
      const data = patterned(100);
      const short = { size: 101, open: () => piecewise(data, 30).open() };
      const long = { size: 99, open: () => piecewise(data, 30).open() };
      await expect(bucket.uploadStream('sized', short)).rejects.toThrow(/100 bytes|101/);
      await expect(bucket.uploadStream('sized', long)).rejects.toThrow(/99/);
      expect(dec.decode(await bucket.get('sized'))).toBe('old');
    });

    it('leaves the old object when a stream fails midway; the next call reads the source from the start', async () => {
      await bucket.upload('restart', bytes('old'));
      const data = patterned(3 * (1 << 20), 3);
      const source = piecewise(data, 256 * 1024, 1 << 20);
      await expect(bucket.uploadStream('restart', source)).rejects.toThrow(/source read failed/);
      expect(dec.decode(await bucket.get('restart'))).toBe('old');
      await bucket.uploadStream('restart', source);
      expect(source.opens).toBe(2);
      expect(Buffer.compare(await bucket.get('restart'), data)).toBe(0);
    });

    it('keeps names with spaces and non-ASCII characters intact', async () => {
      const n = 'tenant a/blöck 1/chunks/000001';
      await bucket.upload(n, bytes('x'));
      expect(await bucket.list('', { recursive: true })).toEqual([n]);
      expect(await bucket.list('tenant a')).toEqual(['tenant a/blöck 1/']);
      expect(dec.decode(await bucket.get(n))).toBe('x');
    });
  });
}
