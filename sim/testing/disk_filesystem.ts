/**
 * A FileSystem over the simulator's `SimDisk` without the kernel: every operation completes
 * at once, yet with the simulated disk's exact durability model (unsynced bytes lost or torn
 * on power loss, directory entries durable only after syncDir). Unit tests of storage code
 * use it to check crash safety without running a simulation. Test support only.
 */
import { FileSystemError } from '../../src/runtime/index.js';
import type {
  FileHandle,
  FileStat,
  FileSystem,
  OpenMode,
  RandomStream,
} from '../../src/runtime/index.js';
import { SimDisk, type DiskFile } from '../runtime/index.js';

/** One completed operation, as `powerLossAfter` sees it. */
export interface DiskOperation {
  /** The FileSystem or FileHandle method, e.g. `rename`, `syncDir`, `write`. */
  readonly kind: string;
  readonly path: string;
  /** The destination of a rename. */
  readonly to?: string;
}

/** Picks operations out of the stream a DiskFileSystem performs. */
export type DiskOperationMatcher = (op: DiskOperation) => boolean;

interface PendingPowerLoss {
  /** Matchers still to be met, in order; power is lost right after the last one's match. */
  readonly steps: DiskOperationMatcher[];
  readonly tearing: RandomStream | undefined;
}

export class DiskFileSystem implements FileSystem {
  private pending: PendingPowerLoss | undefined;
  /** Set once the arranged power loss happened: the process using this view is dead. */
  private lostAfter: DiskOperation | undefined;

  /** Pass the disk of a crashed DiskFileSystem to model the restarted process. */
  constructor(readonly disk: SimDisk = new SimDisk('test', () => 0)) {}

  /**
   * Arranges a power loss right after the first operation `when` accepts — or, given several
   * matchers, after an operation matching the last once the others matched in order (e.g. the
   * parent's syncDir that follows a rename). The disk keeps only what was durable (unsynced
   * writes torn with `tearing`, or dropped without it), and every later operation through
   * this view fails, as the process died with the machine.
   */
  powerLossAfter(
    when: DiskOperationMatcher | readonly DiskOperationMatcher[],
    tearing?: RandomStream,
  ): void {
    const steps = typeof when === 'function' ? [when] : [...when];
    if (steps.length === 0) throw new RangeError('powerLossAfter needs at least one matcher');
    this.pending = { steps, tearing };
  }

  /** The operation the arranged power loss followed, once it happened. */
  get powerLostAfter(): DiskOperation | undefined {
    return this.lostAfter;
  }

  open(path: string, mode: OpenMode): Promise<FileHandle> {
    return this.op({ kind: 'open', path }, () => {
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
    return this.op({ kind: 'readFile', path }, () => {
      const f = this.disk.requireFile(path);
      return SimDisk.read(f, 0, f.size);
    });
  }

  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    return this.op({ kind: 'writeFile', path }, () => {
      const f = this.disk.createFile(path, false);
      this.disk.truncate(f, 0);
      this.disk.write(f, 0, typeof data === 'string' ? new TextEncoder().encode(data) : data);
    });
  }

  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.op({ kind: 'mkdir', path }, () => this.disk.mkdir(path, opts?.recursive ?? false));
  }

  readdir(path: string): Promise<string[]> {
    return this.op({ kind: 'readdir', path }, () => this.disk.readdir(path));
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.op({ kind: 'stat', path }, () => this.disk.stat(path));
  }

  exists(path: string): Promise<boolean> {
    return this.op({ kind: 'exists', path }, () => this.disk.lookup(path) !== undefined);
  }

  rename(from: string, to: string): Promise<void> {
    return this.op({ kind: 'rename', path: from, to }, () => this.disk.rename(from, to));
  }

  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.op({ kind: 'remove', path }, () =>
      this.disk.remove(path, opts?.recursive ?? false),
    );
  }

  syncDir(path: string): Promise<void> {
    return this.op({ kind: 'syncDir', path }, () => this.disk.syncDir(path));
  }

  /** Runs one operation now; then loses power if it is the one arranged. */
  op<T>(what: DiskOperation, fn: () => T): Promise<T> {
    if (this.lostAfter !== undefined) {
      const after = this.lostAfter;
      return Promise.reject(
        new Error(`${what.kind} ${what.path}: power was lost after ${after.kind} ${after.path}`),
      );
    }
    let result: T;
    try {
      result = fn();
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const pending = this.pending;
    if (pending !== undefined && pending.steps[0]?.(what) === true) {
      pending.steps.shift();
      if (pending.steps.length === 0) {
        this.disk.powerLoss(pending.tearing);
        this.pending = undefined;
        this.lostAfter = what;
      }
    }
    return Promise.resolve(result);
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
    return this.guard('read', () => SimDisk.read(this.file, position, length));
  }

  write(position: number, data: Uint8Array): Promise<void> {
    return this.guard('write', () => {
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
    return this.guard('append', () => {
      if (this.mode === 'r') throw new FileSystemError('EBADF', this.path);
      this.fs.disk.append(this.file, data.slice());
    });
  }

  size(): Promise<number> {
    return this.guard('size', () => this.file.size);
  }

  truncate(length: number): Promise<void> {
    return this.guard('truncate', () => this.fs.disk.truncate(this.file, length));
  }

  sync(): Promise<void> {
    return this.guard('sync', () => SimDisk.sync(this.file));
  }

  close(): Promise<void> {
    return this.guard('close', () => {
      this.closed = true;
    });
  }

  private guard<T>(kind: string, fn: () => T): Promise<T> {
    return this.fs.op({ kind, path: this.path }, () => {
      if (this.closed)
        throw new FileSystemError('EBADF', this.path, `EBADF: ${this.path} is closed`);
      return fn();
    });
  }
}
