import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import {
  ObjectNotFoundError,
  type Bucket,
  type ObjectAttributes,
  type UploadSource,
} from '../bucket.js';
import type { Clock } from '../clock.js';
import { checkRange, compareCodeUnits, dirPrefix } from '../memory/index.js';
import { readSource } from '../upload_source.js';

/** Uploads in progress are files with this prefix; listings skip them, names may not use it. */
const TEMP_PREFIX = '.strata-upload-';

/**
 * The `filesystem` bucket backend: object `a/b/c` is the file `<dir>/a/b/c`. Uploads go to a
 * temporary file in the destination directory, are fsynced and then renamed over the target,
 * so readers see the old or the new object, never a partial one, and a crash leaves at most a
 * temporary file that listings ignore. Deleting the last object of a directory removes the
 * now-empty directories up to `dir`, so listings never show empty "directories".
 */
export class FilesystemBucket implements Bucket {
  readonly name: string;
  private readonly root: string;

  /**
   * `clock` stamps uploads: an object's lastModified is the upload time on the Env clock, the
   * same timebase components compare it with (deletion delays, sync intervals).
   */
  constructor(
    dir: string,
    private readonly clock: Clock,
  ) {
    this.root = path.resolve(dir);
    this.name = `filesystem:${this.root}`;
  }

  async get(name: string): Promise<Uint8Array> {
    const file = this.objectPath(name);
    try {
      const buf = await fsp.readFile(file);
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      throw this.mapError(err, name);
    }
  }

  async getRange(name: string, offset: number, length: number): Promise<Uint8Array> {
    checkRange(name, offset, length);
    const file = this.objectPath(name);
    let handle: fsp.FileHandle | undefined;
    try {
      handle = await fsp.open(file, 'r');
      const size = (await handle.stat()).size;
      const end = length === -1 ? size : Math.min(size, offset + length);
      const want = Math.max(0, end - offset);
      const out = new Uint8Array(want);
      let filled = 0;
      while (filled < want) {
        const { bytesRead } = await handle.read(out, filled, want - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === want ? out : out.slice(0, filled);
    } catch (err) {
      throw this.mapError(err, name);
    } finally {
      await handle?.close();
    }
  }

  async exists(name: string): Promise<boolean> {
    const file = this.objectPath(name);
    try {
      return (await fsp.stat(file)).isFile();
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  upload(name: string, data: Uint8Array): Promise<void> {
    return this.store(name, (handle) => handle.writeFile(data));
  }

  /** Written to the temporary file piece by piece as the source yields them. */
  uploadStream(name: string, source: UploadSource): Promise<void> {
    return this.store(name, async (handle) => {
      let at = 0;
      for await (const piece of readSource(name, source)) {
        let done = 0;
        while (done < piece.length) {
          const { bytesWritten } = await handle.write(piece, done, piece.length - done, at);
          done += bytesWritten;
          at += bytesWritten;
        }
      }
    });
  }

  private async store(
    name: string,
    fill: (handle: fsp.FileHandle) => Promise<void>,
  ): Promise<void> {
    const file = this.objectPath(name);
    // A concurrent delete may remove the freshly created parent directory (it cleans up empty
    // directories); retry the few steps that depend on it (a streamed source is reopened).
    for (let attempt = 1; ; attempt++) {
      try {
        await this.writeAtomically(file, fill);
        return;
      } catch (err) {
        if (!isMissing(err) || attempt >= 3) {
          throw new Error(
            `upload ${name} to ${this.name}: ${err instanceof Error ? err.message : String(err)}`,
            {
              cause: err,
            },
          );
        }
      }
    }
  }

  /**
   * Deleting a missing object (or a name that is a "directory") succeeds and changes nothing,
   * as the Bucket contract says.
   */
  async delete(name: string): Promise<void> {
    const file = this.objectPath(name);
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) return;
      await fsp.unlink(file);
    } catch (err) {
      if (isMissing(err)) return;
      throw this.mapError(err, name);
    }
    await this.removeEmptyParents(path.dirname(file));
  }

  async list(dir: string, opts?: { recursive?: boolean }): Promise<string[]> {
    const prefix = dirPrefix(dir);
    const base = prefix === '' ? this.root : this.objectPath(prefix.slice(0, -1));
    const out: string[] = [];
    await this.walk(base, prefix, opts?.recursive ?? false, out);
    return out.sort(compareCodeUnits);
  }

  async attributes(name: string): Promise<ObjectAttributes> {
    const file = this.objectPath(name);
    try {
      const st = await fsp.stat(file);
      if (!st.isFile()) throw new ObjectNotFoundError(name);
      return { size: st.size, lastModified: st.mtimeMs };
    } catch (err) {
      throw this.mapError(err, name);
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The file of object `name`, after rejecting names that are not plain relative paths. */
  private objectPath(name: string): string {
    const parts = name.split('/');
    const bad = parts.find(
      (p) => p === '' || p === '.' || p === '..' || p.startsWith(TEMP_PREFIX) || p.includes('\0'),
    );
    if (name === '' || bad !== undefined || path.isAbsolute(name) || name.includes('\\')) {
      throw new Error(
        `invalid object name ${JSON.stringify(name)} for ${this.name}: must be a relative path without ` +
          `empty, ".", ".." or "${TEMP_PREFIX}*" segments`,
      );
    }
    const file = path.join(this.root, ...parts);
    if (!file.startsWith(this.root + path.sep)) {
      throw new Error(`invalid object name ${JSON.stringify(name)}: escapes ${this.root}`);
    }
    return file;
  }

  private async writeAtomically(
    file: string,
    fill: (handle: fsp.FileHandle) => Promise<void>,
  ): Promise<void> {
    const parent = path.dirname(file);
    await fsp.mkdir(parent, { recursive: true });
    const temp = path.join(
      parent,
      `${TEMP_PREFIX}${randomBytes(8).toString('hex')}-${path.basename(file)}`,
    );
    try {
      const handle = await fsp.open(temp, 'wx');
      try {
        await fill(handle);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const seconds = this.clock.now() / 1000;
      await fsp.utimes(temp, seconds, seconds);
      await fsp.rename(temp, file);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw err;
    }
  }

  private async removeEmptyParents(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.root + path.sep)) {
      try {
        await fsp.rmdir(current);
      } catch {
        // Not empty (or already gone, or recreated by an upload): the cleanup stops here.
        return;
      }
      current = path.dirname(current);
    }
  }

  private async walk(
    absDir: string,
    prefix: string,
    recursive: boolean,
    out: string[],
  ): Promise<void> {
    let entries;
    try {
      entries = await fsp.readdir(absDir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err) || (err as { code?: unknown }).code === 'ENOTDIR') return;
      throw err;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(TEMP_PREFIX)) continue;
      const abs = path.join(absDir, entry.name);
      if (entry.isDirectory()) {
        if (recursive) await this.walk(abs, `${prefix}${entry.name}/`, true, out);
        else if (await this.containsObject(abs)) out.push(`${prefix}${entry.name}/`);
      } else if (entry.isFile()) {
        out.push(prefix + entry.name);
      }
    }
  }

  /** Whether a directory holds an object anywhere below it (temporary files do not count). */
  private async containsObject(absDir: string): Promise<boolean> {
    let entries;
    try {
      entries = await fsp.readdir(absDir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const entry of entries) {
      if (entry.name.startsWith(TEMP_PREFIX)) continue;
      if (entry.isFile()) return true;
      if (entry.isDirectory() && (await this.containsObject(path.join(absDir, entry.name))))
        return true;
    }
    return false;
  }

  private mapError(err: unknown, name: string): Error {
    if (err instanceof ObjectNotFoundError) return err;
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR')
      return new ObjectNotFoundError(name);
    return err instanceof Error ? err : new Error(String(err));
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
