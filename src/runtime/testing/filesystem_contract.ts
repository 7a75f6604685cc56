import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSystemError, type FileSystem } from '../filesystem.js';

export interface FileSystemUnderTest {
  /** A file system whose relative paths resolve into a fresh, empty directory. */
  fs: FileSystem;
  cleanup: () => Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (s: string): Uint8Array => enc.encode(s);

async function codeOf(p: Promise<unknown>): Promise<string> {
  const err: unknown = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof FileSystemError)) return `not a FileSystemError: ${String(err)}`;
  return err.code;
}

/**
 * The FileSystem contract shared by the real (node:fs) and simulated disks: contents, open
 * modes, sorted readdir, rename, remove, stat and the error codes. Durability (what survives
 * power loss without sync) cannot be observed here; the simulator's own tests cover it.
 */
export function describeFileSystemContract(
  name: string,
  makeFs: () => Promise<FileSystemUnderTest>,
): void {
  describe(`FileSystem contract: ${name}`, () => {
    let subject: FileSystemUnderTest;
    let fs: FileSystem;

    beforeEach(async () => {
      subject = await makeFs();
      fs = subject.fs;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('writes and reads whole files from bytes and strings', async () => {
      await fs.writeFile('a.bin', new Uint8Array([0, 1, 255]));
      await fs.writeFile('b.txt', 'héllo');
      expect(await fs.readFile('a.bin')).toEqual(new Uint8Array([0, 1, 255]));
      expect(dec.decode(await fs.readFile('b.txt'))).toBe('héllo');
      await fs.writeFile('b.txt', 'x');
      expect(dec.decode(await fs.readFile('b.txt'))).toBe('x');
    });

    it('reports missing files, directories read as files and missing parents with their codes', async () => {
      expect(await codeOf(fs.readFile('missing'))).toBe('ENOENT');
      await fs.mkdir('d');
      expect(await codeOf(fs.readFile('d'))).toBe('EISDIR');
      expect(await codeOf(fs.writeFile('nodir/f', 'x'))).toBe('ENOENT');
    });

    it('names the path in errors', async () => {
      const err: unknown = await fs.readFile('wal/000001').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FileSystemError);
      expect((err as FileSystemError).path).toContain('wal/000001');
      expect(String(err)).toContain('wal/000001');
    });

    it('creates directories, recursively when asked', async () => {
      expect(await codeOf(fs.mkdir('x/y'))).toBe('ENOENT');
      await fs.mkdir('x/y/z', { recursive: true });
      await fs.mkdir('x/y/z', { recursive: true });
      expect(await codeOf(fs.mkdir('x/y'))).toBe('EEXIST');
      expect((await fs.stat('x/y/z'))?.isDirectory).toBe(true);
    });

    it('lists directory entries sorted by code unit', async () => {
      await fs.mkdir('d');
      for (const n of ['b', 'a0', 'B', 'a-b', 'a']) await fs.writeFile(`d/${n}`, n);
      await fs.mkdir('d/sub');
      expect(await fs.readdir('d')).toEqual(['B', 'a', 'a-b', 'a0', 'b', 'sub']);
      expect(await fs.readdir('d/sub')).toEqual([]);
      expect(await codeOf(fs.readdir('missing'))).toBe('ENOENT');
      expect(await codeOf(fs.readdir('d/a'))).toBe('ENOTDIR');
    });

    it('stats files and directories and reports missing paths as undefined', async () => {
      await fs.writeFile('f', '12345');
      await fs.mkdir('dir');
      const f = await fs.stat('f');
      expect(f?.size).toBe(5);
      expect(f?.isDirectory).toBe(false);
      expect(Number.isFinite(f?.mtimeMs)).toBe(true);
      expect((await fs.stat('dir'))?.isDirectory).toBe(true);
      expect(await fs.stat('nope')).toBeUndefined();
      expect(await fs.exists('f')).toBe(true);
      expect(await fs.exists('dir')).toBe(true);
      expect(await fs.exists('nope')).toBe(false);
    });

    it("opens with 'r' only existing files, read-only", async () => {
      expect(await codeOf(fs.open('missing', 'r'))).toBe('ENOENT');
      await fs.writeFile('f', 'abc');
      const h = await fs.open('f', 'r');
      expect(dec.decode(await h.read(0, 3))).toBe('abc');
      expect(await codeOf(h.write(0, b('x')))).toBe('EBADF');
      await h.close();
      expect(dec.decode(await fs.readFile('f'))).toBe('abc');
    });

    it("opens with 'w' creating or truncating, and reads and writes at positions", async () => {
      await fs.writeFile('f', 'old contents');
      const h = await fs.open('f', 'w');
      expect(await h.size()).toBe(0);
      await h.write(0, b('hello'));
      await h.write(3, b('LO!'));
      expect(dec.decode(await h.read(0, 100))).toBe('helLO!');
      expect(dec.decode(await h.read(2, 2))).toBe('lL');
      expect(dec.decode(await h.read(10, 5))).toBe('');
      await h.append(b('+'));
      expect(await h.size()).toBe(7);
      await h.sync();
      await h.close();
      expect(dec.decode(await fs.readFile('f'))).toBe('helLO!+');
      const created = await fs.open('new', 'w');
      await created.close();
      expect((await fs.stat('new'))?.size).toBe(0);
    });

    it("opens with 'r+' an existing file without truncating it", async () => {
      expect(await codeOf(fs.open('missing', 'r+'))).toBe('ENOENT');
      await fs.writeFile('f', 'abcdef');
      const h = await fs.open('f', 'r+');
      await h.write(1, b('XY'));
      await h.close();
      expect(dec.decode(await fs.readFile('f'))).toBe('aXYdef');
    });

    it("opens with 'a' for appending only, creating the file if missing", async () => {
      const h = await fs.open('log', 'a');
      await h.append(b('one,'));
      await h.append(b('two'));
      expect(await codeOf(h.write(0, b('x')))).toBe('EBADF');
      expect(dec.decode(await h.read(0, 100))).toBe('one,two');
      await h.sync();
      await h.close();
      const again = await fs.open('log', 'a');
      await again.append(b(',three'));
      await again.close();
      expect(dec.decode(await fs.readFile('log'))).toBe('one,two,three');
    });

    it("opens with 'wx' only files that do not exist yet", async () => {
      const h = await fs.open('fresh', 'wx');
      await h.write(0, b('x'));
      await h.close();
      expect(await codeOf(fs.open('fresh', 'wx'))).toBe('EEXIST');
    });

    it('truncates through a handle', async () => {
      await fs.writeFile('f', '0123456789');
      const h = await fs.open('f', 'r+');
      await h.truncate(4);
      expect(await h.size()).toBe(4);
      await h.close();
      expect(dec.decode(await fs.readFile('f'))).toBe('0123');
    });

    it('rejects use of a closed handle with EBADF', async () => {
      await fs.writeFile('f', 'x');
      const h = await fs.open('f', 'r');
      await h.close();
      expect(await codeOf(h.read(0, 1))).toBe('EBADF');
    });

    it('renames files (replacing the target) and directories', async () => {
      await fs.writeFile('tmp', 'new');
      await fs.writeFile('target', 'old');
      await fs.rename('tmp', 'target');
      expect(dec.decode(await fs.readFile('target'))).toBe('new');
      expect(await fs.exists('tmp')).toBe(false);
      await fs.mkdir('dir1');
      await fs.writeFile('dir1/f', 'in dir');
      await fs.rename('dir1', 'dir2');
      expect(dec.decode(await fs.readFile('dir2/f'))).toBe('in dir');
      expect(await fs.exists('dir1')).toBe(false);
      expect(await codeOf(fs.rename('missing', 'x'))).toBe('ENOENT');
    });

    it('removes files and trees; missing paths are fine; a non-empty directory needs recursive', async () => {
      await fs.writeFile('f', 'x');
      await fs.remove('f');
      expect(await fs.exists('f')).toBe(false);
      await fs.remove('f');
      await fs.remove('no/such/parent/f');
      await fs.remove('no/such/parent', { recursive: true });
      await fs.mkdir('t/u', { recursive: true });
      await fs.writeFile('t/u/f', 'x');
      expect(await codeOf(fs.remove('t'))).toBe('ENOTEMPTY');
      await fs.remove('t', { recursive: true });
      expect(await fs.exists('t')).toBe(false);
      await fs.mkdir('empty');
      await fs.remove('empty');
      expect(await fs.exists('empty')).toBe(false);
    });

    it('syncs directories that exist', async () => {
      await fs.mkdir('d');
      await fs.writeFile('d/f', 'x');
      await fs.syncDir('d');
      expect(await codeOf(fs.syncDir('missing'))).toBe('ENOENT');
    });
  });
}
