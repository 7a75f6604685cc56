import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isObjectNotFound, type Bucket } from '../bucket.js';

export interface BucketUnderTest {
  bucket: Bucket;
  cleanup: () => Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s: string): Uint8Array => enc.encode(s);

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

    it('keeps names with spaces and non-ASCII characters intact', async () => {
      const n = 'tenant a/blöck 1/chunks/000001';
      await bucket.upload(n, bytes('x'));
      expect(await bucket.list('', { recursive: true })).toEqual([n]);
      expect(await bucket.list('tenant a')).toEqual(['tenant a/blöck 1/']);
      expect(dec.decode(await bucket.get(n))).toBe('x');
    });
  });
}
