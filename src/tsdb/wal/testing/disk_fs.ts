/**
 * Test support only (imported by `*.test.ts`, never by production code): a FileSystem over
 * the simulator's `SimDisk` without the kernel, so WAL tests run synchronously-fast while
 * using the simulator's exact durability model (unsynced bytes lost or torn on power loss,
 * directory entries durable only after syncDir).
 */
import {
  FileSystemError,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type OpenMode,
} from '../../../runtime/index.js';
import { SimDisk, type DiskFile } from '../../../../sim/runtime/index.js';

export class DiskFileSystem implements FileSystem {
  /** Counts operations, so tests can check a code path did (or did not) touch the disk. */
  ops = 0;

  constructor(readonly disk: SimDisk = new SimDisk('test', () => 0)) {}

  open(path: string, mode: OpenMode): Promise<FileHandle> {
    return this.op(() => {
      let file: DiskFile;
      switch (mode) {
        case 'r':
        case 'r+':
          file = this.disk.requireFile(path);
          break;
        case 'w':
          file = this.disk.createFile(path, false);
          this.disk.truncate(file, 0);
          break;
        case 'a':
          file = this.disk.createFile(path, false);
          break;
        case 'wx':
          file = this.disk.createFile(path, true);
          break;
      }
      return new DiskFileHandle(path, mode, file, this);
    });
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.op(() => {
      const f = this.disk.requireFile(path);
      return SimDisk.read(f, 0, f.size);
    });
  }

  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return this.op(() => {
      const f = this.disk.createFile(path, false);
      this.disk.truncate(f, 0);
      this.disk.write(f, 0, typeof data === 'string' ? new TextEncoder().encode(data) : data);
    });
  }

  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.op(() => this.disk.mkdir(path, opts?.recursive ?? false));
  }

  readdir(path: string): Promise<string[]> {
    return this.op(() => this.disk.readdir(path));
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.op(() => this.disk.stat(path));
  }

  exists(path: string): Promise<boolean> {
    return this.op(() => this.disk.lookup(path) !== undefined);
  }

  rename(from: string, to: string): Promise<void> {
    return this.op(() => this.disk.rename(from, to));
  }

  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.op(() => this.disk.remove(path, opts?.recursive ?? false));
  }

  syncDir(path: string): Promise<void> {
    return this.op(() => this.disk.syncDir(path));
  }

  op<T>(fn: () => T): Promise<T> {
    this.ops++;
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

class DiskFileHandle implements FileHandle {
  private closed = false;

  constructor(
    readonly path: string,
    private readonly mode: OpenMode,
    private readonly file: DiskFile,
    private readonly fs: DiskFileSystem,
  ) {}

  read(position: number, length: number): Promise<Uint8Array> {
    return this.guard(() => SimDisk.read(this.file, position, length));
  }

  write(position: number, data: Uint8Array): Promise<void> {
    return this.guard(() => {
      if (this.mode === 'a' || this.mode === 'r')
        throw new FileSystemError(
          'EBADF',
          this.path,
          `EBADF: write on ${this.path} (${this.mode})`,
        );
      this.fs.disk.write(this.file, position, data.slice());
    });
  }

  append(data: Uint8Array): Promise<void> {
    return this.guard(() => {
      if (this.mode === 'r') throw new FileSystemError('EBADF', this.path);
      this.fs.disk.append(this.file, data.slice());
    });
  }

  size(): Promise<number> {
    return this.guard(() => this.file.size);
  }

  truncate(length: number): Promise<void> {
    return this.guard(() => this.fs.disk.truncate(this.file, length));
  }

  sync(): Promise<void> {
    return this.guard(() => SimDisk.sync(this.file));
  }

  close(): Promise<void> {
    return this.guard(() => {
      this.closed = true;
    });
  }

  private guard<T>(fn: () => T): Promise<T> {
    return this.fs.op(() => {
      if (this.closed)
        throw new FileSystemError('EBADF', this.path, `EBADF: ${this.path} is closed`);
      return fn();
    });
  }
}
