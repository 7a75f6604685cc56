import {
  FileSystemError,
  type FileHandle,
  type FileStat,
  type FileSystem,
  type OpenMode,
  type RandomStream,
} from '../../src/runtime/index.js';
import type { Incarnation, SimKernel } from '../kernel/index.js';
import { sampleLatency, type LatencySpec } from './latency.js';
import { SimDisk, type DiskFile } from './sim_disk.js';
import { toError } from './to_error.js';

export interface SimFileSystemConfig {
  /** Latency of every operation except sync (reads, writes, namespace changes). */
  opLatency: LatencySpec;
  /** Latency of `sync()` and `syncDir()`. */
  syncLatency: LatencySpec;
}

export interface SimFileSystemDeps {
  kernel: SimKernel;
  owner: Incarnation;
  disk: SimDisk;
  /** The `disk` stream: operation latencies. */
  random: RandomStream;
}

const encoder = new TextEncoder();

/**
 * One process incarnation's view of its node's simulated disk. Every operation completes in
 * a kernel event owned by the incarnation, after a sampled latency, and in issue order (one
 * queue per process, like a single disk); the change happens at completion, so a crash
 * before completion means it never happened. Handles opened by a dead incarnation are useless.
 */
interface QueuedOp {
  readonly due: number;
  readonly kind: string;
  readonly detail: string;
  readonly execute: () => void;
}

export class SimFileSystem implements FileSystem {
  /** Operations not yet completed, in issue order: later operations never overtake earlier ones. */
  private readonly queue: QueuedOp[] = [];
  private headScheduled = false;

  constructor(
    private readonly config: SimFileSystemConfig,
    private readonly deps: SimFileSystemDeps,
  ) {}

  /** Runs `op` against the disk at its completion time; resolves with its result. */
  run<T>(kind: string, detail: string, op: () => T, sync = false): Promise<T> {
    const { kernel, random } = this.deps;
    const latency = sampleLatency(sync ? this.config.syncLatency : this.config.opLatency, random);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        due: kernel.now() + latency,
        kind,
        detail,
        execute: () => {
          try {
            resolve(op());
          } catch (err) {
            reject(toError(err));
          }
        },
      });
      this.scheduleHead();
    });
  }

  /** One kernel event at a time: the head of the queue, at its due time or right now if overdue. */
  private scheduleHead(): void {
    const head = this.queue[0];
    if (head === undefined || this.headScheduled) return;
    this.headScheduled = true;
    const { kernel, owner } = this.deps;
    kernel.at(
      Math.max(head.due, kernel.now()),
      { owner, kind: `fs.${head.kind}`, detail: head.detail },
      () => {
        this.headScheduled = false;
        this.queue.shift();
        head.execute();
        this.scheduleHead();
      },
    );
  }

  async open(path: string, mode: OpenMode): Promise<FileHandle> {
    const disk = this.deps.disk;
    const file = await this.run('open', `${path} ${mode}`, () => {
      switch (mode) {
        case 'r':
        case 'r+':
          return disk.requireFile(path);
        case 'w': {
          const f = disk.createFile(path, false);
          disk.truncate(f, 0);
          return f;
        }
        case 'a':
          return disk.createFile(path, false);
        case 'wx':
          return disk.createFile(path, true);
      }
    });
    return new SimFileHandle(SimDisk.join(SimDisk.split(path)), mode, file, this);
  }

  readFile(path: string): Promise<Uint8Array> {
    return this.run('readFile', path, () => {
      const f = this.deps.disk.requireFile(path);
      return SimDisk.read(f, 0, f.size);
    });
  }

  writeFile(path: string, data: Uint8Array | string): Promise<void> {
    const bytes = typeof data === 'string' ? encoder.encode(data) : data.slice();
    return this.run('writeFile', `${path} ${bytes.length}B`, () => {
      const disk = this.deps.disk;
      const f = disk.createFile(path, false);
      disk.truncate(f, 0);
      disk.write(f, 0, bytes);
    });
  }

  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.run('mkdir', path, () => this.deps.disk.mkdir(path, opts?.recursive ?? false));
  }

  readdir(path: string): Promise<string[]> {
    return this.run('readdir', path, () => this.deps.disk.readdir(path));
  }

  stat(path: string): Promise<FileStat | undefined> {
    return this.run('stat', path, () => this.deps.disk.stat(path));
  }

  exists(path: string): Promise<boolean> {
    return this.run('exists', path, () => this.deps.disk.lookup(path) !== undefined);
  }

  rename(from: string, to: string): Promise<void> {
    return this.run('rename', `${from} -> ${to}`, () => this.deps.disk.rename(from, to));
  }

  remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    return this.run('remove', path, () => this.deps.disk.remove(path, opts?.recursive ?? false));
  }

  syncDir(path: string): Promise<void> {
    return this.run('syncDir', path, () => this.deps.disk.syncDir(path), true);
  }

  /** For handles: the disk they write to. */
  get disk(): SimDisk {
    return this.deps.disk;
  }
}

class SimFileHandle implements FileHandle {
  private closed = false;

  constructor(
    readonly path: string,
    private readonly mode: OpenMode,
    private readonly file: DiskFile,
    private readonly fs: SimFileSystem,
  ) {}

  read(position: number, length: number): Promise<Uint8Array> {
    return this.op('read', `${this.path} @${position}+${length}`, () => {
      checkNonNegative('read position', position, this.path);
      checkNonNegative('read length', length, this.path);
      return SimDisk.read(this.file, position, length);
    });
  }

  write(position: number, data: Uint8Array): Promise<void> {
    const bytes = data.slice();
    return this.op('write', `${this.path} @${position}+${bytes.length}`, () => {
      if (this.mode === 'a')
        throw new FileSystemError(
          'EBADF',
          this.path,
          `EBADF: positional write on ${this.path} opened in append mode`,
        );
      this.checkWritable();
      checkNonNegative('write position', position, this.path);
      this.fs.disk.write(this.file, position, bytes);
    });
  }

  append(data: Uint8Array): Promise<void> {
    const bytes = data.slice();
    return this.op('append', `${this.path} +${bytes.length}`, () => {
      this.checkWritable();
      this.fs.disk.append(this.file, bytes);
    });
  }

  size(): Promise<number> {
    return this.op('size', this.path, () => this.file.size);
  }

  truncate(length: number): Promise<void> {
    return this.op('truncate', `${this.path} ${length}`, () => {
      this.checkWritable();
      checkNonNegative('truncate length', length, this.path);
      this.fs.disk.truncate(this.file, length);
    });
  }

  sync(): Promise<void> {
    return this.op('sync', this.path, () => SimDisk.sync(this.file), true);
  }

  close(): Promise<void> {
    return this.op('close', this.path, () => {
      this.closed = true;
    });
  }

  private op<T>(kind: string, detail: string, fn: () => T, sync = false): Promise<T> {
    return this.fs.run(
      kind,
      detail,
      () => {
        if (this.closed)
          throw new FileSystemError(
            'EBADF',
            this.path,
            `EBADF: ${kind} on closed file ${this.path}`,
          );
        return fn();
      },
      sync,
    );
  }

  private checkWritable(): void {
    if (this.mode === 'r')
      throw new FileSystemError('EBADF', this.path, `EBADF: ${this.path} is opened read-only`);
  }
}

function checkNonNegative(what: string, v: number, path: string): void {
  if (!Number.isSafeInteger(v) || v < 0)
    throw new RangeError(`${what} must be a non-negative integer, got ${v} (${path})`);
}
