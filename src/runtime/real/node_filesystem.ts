import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import {
  FileSystemError,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type OpenMode,
} from '../filesystem.js';

type ErrorCode = FileSystemError['code'];
const KNOWN_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'ENOENT',
  'EEXIST',
  'ENOTDIR',
  'EISDIR',
  'ENOTEMPTY',
  'EIO',
  'EBADF',
]);

/** Node flags per open mode; every mode but 'r' can also read, as the interface promises. */
const NODE_FLAGS: Record<OpenMode, string> = { r: 'r', 'r+': 'r+', w: 'w+', a: 'a+', wx: 'wx+' };

/**
 * Converts a Node error into a FileSystemError. Codes outside the interface's set (EACCES,
 * ENOSPC, ...) become EIO with the original code kept in the message, so callers can still
 * tell what happened from logs.
 */
export function toFileSystemError(err: unknown, p: string): Error {
  if (err instanceof FileSystemError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  if (typeof code === 'string' && KNOWN_CODES.has(code)) {
    // Node's message already names the code and the path ("ENOENT: no such file ..., open 'p'").
    return new FileSystemError(code as ErrorCode, p, message);
  }
  if (code === 'ERR_FS_EISDIR') return new FileSystemError('EISDIR', p, `EISDIR: ${p}: ${message}`);
  return new FileSystemError(
    'EIO',
    p,
    `EIO (${typeof code === 'string' ? code : 'unknown'}): ${p}: ${message}`,
  );
}

async function mapErrors<T>(p: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (err) {
    throw toFileSystemError(err, p);
  }
}

/** The local disk through node:fs/promises; relative paths resolve against `root`. */
export class NodeFileSystem implements FileSystem {
  private readonly root: string;

  constructor(root?: string) {
    this.root = path.resolve(root ?? process.cwd());
  }

  /** The absolute path a FileSystem path refers to. */
  resolve(p: string): string {
    return path.resolve(this.root, p);
  }

  open(p: string, mode: OpenMode): Promise<FileHandle> {
    return mapErrors(p, async () => {
      const handle = await fsp.open(this.resolve(p), NODE_FLAGS[mode]);
      return new NodeFileHandle(p, handle, mode);
    });
  }

  readFile(p: string): Promise<Uint8Array> {
    return mapErrors(p, async () => {
      const buf = await fsp.readFile(this.resolve(p));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    });
  }

  writeFile(p: string, data: Uint8Array | string): Promise<void> {
    return mapErrors(p, () => fsp.writeFile(this.resolve(p), data));
  }

  mkdir(p: string, opts?: { recursive?: boolean }): Promise<void> {
    return mapErrors(p, async () => {
      await fsp.mkdir(this.resolve(p), { recursive: opts?.recursive ?? false });
    });
  }

  readdir(p: string): Promise<string[]> {
    // Array.prototype.sort without a comparator orders by UTF-16 code unit, as promised.
    return mapErrors(p, async () => (await fsp.readdir(this.resolve(p))).sort());
  }

  stat(p: string): Promise<FileStat | undefined> {
    return mapErrors(p, async () => {
      try {
        const st = await fsp.stat(this.resolve(p));
        return { size: st.size, isDirectory: st.isDirectory(), mtimeMs: st.mtimeMs };
      } catch (err) {
        if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
        throw err;
      }
    });
  }

  async exists(p: string): Promise<boolean> {
    return (await this.stat(p)) !== undefined;
  }

  rename(from: string, to: string): Promise<void> {
    return mapErrors(from, () => fsp.rename(this.resolve(from), this.resolve(to)));
  }

  remove(p: string, opts?: { recursive?: boolean }): Promise<void> {
    return mapErrors(p, async () => {
      const abs = this.resolve(p);
      if (opts?.recursive === true) {
        await fsp.rm(abs, { recursive: true, force: true });
        return;
      }
      // Without `recursive`, a directory is removed only when empty (rmdir), never its contents.
      const st = await fsp.lstat(abs).catch((err: unknown) => {
        if ((err as { code?: unknown }).code === 'ENOENT') return undefined;
        throw err;
      });
      if (st === undefined) return;
      if (st.isDirectory()) await fsp.rmdir(abs);
      else await fsp.unlink(abs);
    });
  }

  syncDir(p: string): Promise<void> {
    return mapErrors(p, async () => {
      const handle = await fsp.open(this.resolve(p), 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    });
  }
}

class NodeFileHandle implements FileHandle {
  private closed = false;

  constructor(
    readonly path: string,
    private readonly handle: fsp.FileHandle,
    private readonly mode: OpenMode,
  ) {}

  read(position: number, length: number): Promise<Uint8Array> {
    return this.op(async () => {
      const out = new Uint8Array(length);
      let filled = 0;
      // A single read may return fewer bytes than asked before end of file; loop until EOF.
      while (filled < length) {
        const { bytesRead } = await this.handle.read(
          out,
          filled,
          length - filled,
          position + filled,
        );
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return filled === length ? out : out.slice(0, filled);
    });
  }

  write(position: number, data: Uint8Array): Promise<void> {
    return this.op(async () => {
      if (this.mode === 'a') {
        throw new FileSystemError(
          'EBADF',
          this.path,
          `EBADF: ${this.path}: positional write on a file opened for append`,
        );
      }
      await this.writeAll(data, position);
    });
  }

  append(data: Uint8Array): Promise<void> {
    return this.op(async () => {
      // O_APPEND ('a') ignores the position; other modes append at the current size.
      const position = this.mode === 'a' ? null : (await this.handle.stat()).size;
      await this.writeAll(data, position);
    });
  }

  size(): Promise<number> {
    return this.op(async () => (await this.handle.stat()).size);
  }

  truncate(length: number): Promise<void> {
    return this.op(() => this.handle.truncate(length));
  }

  sync(): Promise<void> {
    return this.op(() => this.handle.sync());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await mapErrors(this.path, () => this.handle.close());
  }

  private async writeAll(data: Uint8Array, position: number | null): Promise<void> {
    let written = 0;
    while (written < data.length) {
      const { bytesWritten } = await this.handle.write(
        data,
        written,
        data.length - written,
        position === null ? null : position + written,
      );
      written += bytesWritten;
    }
  }

  private op<T>(body: () => Promise<T>): Promise<T> {
    if (this.closed) {
      return Promise.reject(
        new FileSystemError('EBADF', this.path, `EBADF: ${this.path}: file handle is closed`),
      );
    }
    return mapErrors(this.path, body);
  }
}
