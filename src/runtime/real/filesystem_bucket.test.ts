import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeBucketContract, ManualClock } from '../testing/index.js';
import { FilesystemBucket } from './filesystem_bucket.js';

describeBucketContract('FilesystemBucket', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'strata-bucket-'));
  return {
    bucket: new FilesystemBucket(dir, new ManualClock(1_700_000_000_000)),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

describe('FilesystemBucket', () => {
  let dir: string;
  let clock: ManualClock;
  let bucket: FilesystemBucket;
  const enc = new TextEncoder();

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'strata-bucket-'));
    clock = new ManualClock(1_700_000_000_000);
    bucket = new FilesystemBucket(dir, clock);
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores object a/b/c as the file <dir>/a/b/c and names itself after the directory', async () => {
    await bucket.upload('a/b/c', enc.encode('data'));
    expect((await stat(join(dir, 'a', 'b', 'c'))).size).toBe(4);
    expect(bucket.name).toBe(`filesystem:${dir}`);
  });

  it('rejects names that escape the directory or are not plain relative paths, naming them', async () => {
    for (const bad of ['../x', 'a/../../x', '/etc/passwd', 'a//b', './a', 'a/.', 'dir/', 'a\\b']) {
      await expect(bucket.upload(bad, enc.encode('x')), bad).rejects.toThrow(JSON.stringify(bad));
      await expect(bucket.get(bad), bad).rejects.toThrow(JSON.stringify(bad));
    }
    await expect(bucket.list('../')).rejects.toThrow('".."');
    expect(await readdir(join(dir, '..'))).not.toContain('x');
  });

  it('stamps lastModified with the clock time of the upload', async () => {
    await bucket.upload('m', enc.encode('x'));
    expect((await bucket.attributes('m')).lastModified).toBe(1_700_000_000_000);
    await clock.advance(60_000);
    await bucket.upload('m', enc.encode('y'));
    expect((await bucket.attributes('m')).lastModified).toBe(1_700_000_060_000);
  });

  it('never lists temporary upload files or directories without objects', async () => {
    await bucket.upload('t/real', enc.encode('x'));
    // What a crash in the middle of an upload leaves behind, plus an empty directory.
    await writeFile(join(dir, 't', '.strata-upload-deadbeef-real2'), 'partial');
    await mkdir(join(dir, 'empty', 'deeper'), { recursive: true });
    await mkdir(join(dir, 'crashed'));
    await writeFile(join(dir, 'crashed', '.strata-upload-0-x'), 'partial');
    expect(await bucket.list('')).toEqual(['t/']);
    expect(await bucket.list('t')).toEqual(['t/real']);
    expect(await bucket.list('', { recursive: true })).toEqual(['t/real']);
    await expect(bucket.upload('t/.strata-upload-x', enc.encode('x'))).rejects.toThrow(
      /invalid object name/,
    );
  });

  it('leaves no temporary file behind after uploads', async () => {
    await bucket.upload('x/y', enc.encode('1'));
    await bucket.upload('x/y', enc.encode('2'));
    expect(await readdir(join(dir, 'x'))).toEqual(['y']);
  });

  it('removes directories emptied by a delete, up to but not including its own directory', async () => {
    await bucket.upload('tenant/block/chunks/000001', enc.encode('x'));
    await bucket.upload('tenant/other', enc.encode('x'));
    await bucket.delete('tenant/block/chunks/000001');
    expect(await readdir(join(dir, 'tenant'))).toEqual(['other']);
    await bucket.delete('tenant/other');
    expect(await readdir(dir)).toEqual([]);
    expect((await stat(dir)).isDirectory()).toBe(true);
  });

  it('treats a directory as a missing object', async () => {
    await bucket.upload('d/x', enc.encode('x'));
    await expect(bucket.get('d')).rejects.toThrow(/object not found: d/);
    await bucket.delete('d'); // a "directory" is no object: nothing to delete
    expect(await bucket.exists('d/x')).toBe(true);
    expect(await bucket.exists('d')).toBe(false);
  });

  it('reads a range of a large object', async () => {
    const data = new Uint8Array(5 << 20).map((_, i) => i % 253);
    await bucket.upload('big', data);
    const range = await bucket.getRange('big', 3 << 20, 1000);
    expect(Buffer.compare(range, data.subarray(3 << 20, (3 << 20) + 1000))).toBe(0);
  });

  it('survives uploads racing with deletes that clean up the shared parent directory', async () => {
    const ops: Promise<void>[] = [];
    for (let i = 0; i < 30; i++) {
      ops.push(
        bucket.upload(`race/a${i}`, enc.encode('x')).then(() => bucket.delete(`race/a${i}`)),
      );
    }
    await Promise.all(ops);
    await bucket.upload('race/final', enc.encode('x'));
    expect(await bucket.list('race')).toEqual(['race/final']);
  });
});
