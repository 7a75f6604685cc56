import { FileSystemError, type FileStat, type RandomStream } from '../../src/runtime/index.js';

/**
 * The persistent state of one simulated node's local disk, shared by all incarnations of the
 * node. It keeps two views:
 *
 * - the page cache: what running processes see (every write, create, rename, remove);
 * - the durable state: what survives a power loss. A file's bytes become durable when its
 *   handle is synced; a directory's entries (creates, renames, removals inside it) become
 *   durable when the directory itself is synced (`syncDir`), exactly the POSIX contract a
 *   database relies on. A newly created file is therefore lost on power loss unless both the
 *   file and its parent directory were synced.
 *
 * A process crash keeps the page cache (the kernel still has it); `powerLoss` reverts every
 * directory to its durable entries and every file to its durable bytes, optionally keeping a
 * random prefix of the bytes appended since the last sync (a torn write). Files no longer
 * reachable from a durable directory entry are gone.
 */

export interface DiskFile {
  readonly kind: 'file';
  readonly id: number;
  /** Page-cache bytes: `buf[0, size)`; `buf` grows by doubling so appends stay cheap. */
  buf: Uint8Array;
  size: number;
  /** Length of the durable content. */
  durableSize: number;
  /**
   * The durable content when it is no longer a prefix of the page cache (something below
   * `durableSize` was overwritten or truncated since the last sync). Undefined while every
   * change since the last sync was an append, which is also the only case a power loss tears.
   */
  durableCopy: Uint8Array | undefined;
  mtimeMs: number;
}

export interface DiskDir {
  readonly kind: 'dir';
  readonly id: number;
  entries: Map<string, DiskNode>;
  durableEntries: Map<string, DiskNode>;
  mtimeMs: number;
}

export type DiskNode = DiskFile | DiskDir;

export interface PowerLossOutcome {
  /** Files whose unsynced appended bytes were partly kept, by path: bytes kept / unsynced. */
  torn: Array<{ path: string; kept: number; unsynced: number }>;
  /** Files that lost unsynced bytes (beyond what a tear kept). */
  reverted: string[];
}

export class SimDisk {
  private root: DiskDir;
  private nextId = 1;

  constructor(
    readonly nodeName: string,
    private readonly now: () => number,
  ) {
    this.root = this.newDir();
    this.root.durableEntries = new Map();
  }

  // ---- path resolution ----

  /** Absolute normalized path components; `..` above the root stays at the root. */
  static split(path: string): string[] {
    const parts: string[] = [];
    for (const part of path.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') parts.pop();
      else parts.push(part);
    }
    return parts;
  }

  static join(parts: readonly string[]): string {
    return `/${parts.join('/')}`;
  }

  lookup(path: string): DiskNode | undefined {
    let node: DiskNode = this.root;
    for (const part of SimDisk.split(path)) {
      if (node.kind !== 'dir') return undefined;
      const next = node.entries.get(part);
      if (next === undefined) return undefined;
      node = next;
    }
    return node;
  }

  /** The directory that would hold `path`, and the entry name; throws ENOENT/ENOTDIR. */
  parentOf(path: string): { dir: DiskDir; name: string } {
    const parts = SimDisk.split(path);
    const name = parts.pop();
    if (name === undefined)
      throw new FileSystemError(
        'EISDIR',
        path,
        `EISDIR: the root directory has no parent: ${path}`,
      );
    const dir = this.lookup(SimDisk.join(parts));
    if (dir === undefined)
      throw new FileSystemError(
        'ENOENT',
        path,
        `ENOENT: parent directory of ${path} does not exist`,
      );
    if (dir.kind !== 'dir')
      throw new FileSystemError('ENOTDIR', path, `ENOTDIR: parent of ${path} is a file`);
    return { dir, name };
  }

  requireFile(path: string): DiskFile {
    const node = this.lookup(path);
    if (node === undefined) throw new FileSystemError('ENOENT', path);
    if (node.kind !== 'file') throw new FileSystemError('EISDIR', path);
    return node;
  }

  requireDir(path: string): DiskDir {
    const node = this.lookup(path);
    if (node === undefined) throw new FileSystemError('ENOENT', path);
    if (node.kind !== 'dir') throw new FileSystemError('ENOTDIR', path);
    return node;
  }

  // ---- namespace operations (page cache) ----

  /** Creates an empty file, or returns the existing one (throws EEXIST when `exclusive`). */
  createFile(path: string, exclusive: boolean): DiskFile {
    const { dir, name } = this.parentOf(path);
    const existing = dir.entries.get(name);
    if (existing !== undefined) {
      if (exclusive) throw new FileSystemError('EEXIST', path);
      if (existing.kind !== 'file') throw new FileSystemError('EISDIR', path);
      return existing;
    }
    const file = this.newFile();
    dir.entries.set(name, file);
    dir.mtimeMs = this.now();
    return file;
  }

  mkdir(path: string, recursive: boolean): void {
    const parts = SimDisk.split(path);
    if (parts.length === 0) {
      if (recursive) return;
      throw new FileSystemError('EEXIST', path);
    }
    let dir = this.root;
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      const last = i === parts.length - 1;
      const existing = dir.entries.get(name);
      if (existing !== undefined) {
        if (existing.kind !== 'dir')
          throw new FileSystemError(
            'ENOTDIR',
            path,
            `ENOTDIR: ${SimDisk.join(parts.slice(0, i + 1))} is a file`,
          );
        if (last && !recursive) throw new FileSystemError('EEXIST', path);
        dir = existing;
        continue;
      }
      if (!last && !recursive)
        throw new FileSystemError(
          'ENOENT',
          path,
          `ENOENT: parent directory of ${path} does not exist`,
        );
      const created = this.newDir();
      dir.entries.set(name, created);
      dir.mtimeMs = this.now();
      dir = created;
    }
  }

  readdir(path: string): string[] {
    return [...this.requireDir(path).entries.keys()].sort();
  }

  stat(path: string): FileStat | undefined {
    const node = this.lookup(path);
    if (node === undefined) return undefined;
    return node.kind === 'file'
      ? { size: node.size, isDirectory: false, mtimeMs: node.mtimeMs }
      : { size: 0, isDirectory: true, mtimeMs: node.mtimeMs };
  }

  rename(from: string, to: string): void {
    const src = this.parentOf(from);
    const node = src.dir.entries.get(src.name);
    if (node === undefined)
      throw new FileSystemError('ENOENT', from, `ENOENT: rename source ${from} does not exist`);
    const dst = this.parentOf(to);
    if (node.kind === 'dir' && this.isAncestor(node, dst.dir)) {
      throw new FileSystemError(
        'EIO',
        to,
        `EINVAL: cannot move directory ${from} into itself (${to})`,
      );
    }
    const target = dst.dir.entries.get(dst.name);
    if (target === node) return;
    if (target !== undefined) {
      if (node.kind === 'file' && target.kind === 'dir') throw new FileSystemError('EISDIR', to);
      if (node.kind === 'dir' && target.kind === 'file') throw new FileSystemError('ENOTDIR', to);
      if (target.kind === 'dir' && target.entries.size > 0)
        throw new FileSystemError('ENOTEMPTY', to);
    }
    src.dir.entries.delete(src.name);
    dst.dir.entries.set(dst.name, node);
    src.dir.mtimeMs = dst.dir.mtimeMs = this.now();
  }

  remove(path: string, recursive: boolean): void {
    const parts = SimDisk.split(path);
    if (parts.length === 0)
      throw new FileSystemError('EIO', path, `EPERM: refusing to remove the root directory`);
    // A missing path is not an error (FileSystem contract), even when its parent is missing.
    const name = parts[parts.length - 1]!;
    const dir = this.lookup(SimDisk.join(parts.slice(0, -1)));
    if (dir === undefined || dir.kind !== 'dir') return;
    const node = dir.entries.get(name);
    if (node === undefined) return;
    if (node.kind === 'dir' && node.entries.size > 0 && !recursive)
      throw new FileSystemError('ENOTEMPTY', path);
    dir.entries.delete(name);
    dir.mtimeMs = this.now();
  }

  syncDir(path: string): void {
    const dir = this.requireDir(path);
    dir.durableEntries = new Map(dir.entries);
  }

  // ---- file content (page cache) ----

  static read(file: DiskFile, position: number, length: number): Uint8Array {
    const start = Math.min(position, file.size);
    const end = Math.min(file.size, position + length);
    return file.buf.slice(start, end);
  }

  write(file: DiskFile, position: number, data: Uint8Array): void {
    if (position < file.durableSize) this.preserveDurable(file);
    const end = position + data.length;
    this.ensureCapacity(file, end);
    if (position > file.size) file.buf.fill(0, file.size, position);
    file.buf.set(data, position);
    file.size = Math.max(file.size, end);
    file.mtimeMs = this.now();
  }

  append(file: DiskFile, data: Uint8Array): void {
    this.write(file, file.size, data);
  }

  truncate(file: DiskFile, length: number): void {
    if (length < file.durableSize) this.preserveDurable(file);
    if (length > file.size) {
      this.ensureCapacity(file, length);
      file.buf.fill(0, file.size, length);
    }
    file.size = length;
    file.mtimeMs = this.now();
  }

  static sync(file: DiskFile): void {
    file.durableSize = file.size;
    file.durableCopy = undefined;
  }

  // ---- failures ----

  /**
   * Power loss: the page cache is gone. Directories revert to their durable entries, files
   * to their durable bytes; with `tearing`, a file whose only unsynced changes were appends
   * keeps a uniformly drawn prefix of them (possibly none, possibly all).
   */
  powerLoss(tearing: RandomStream | undefined): PowerLossOutcome {
    const outcome: PowerLossOutcome = { torn: [], reverted: [] };
    const visited = new Set<number>();
    const revert = (dir: DiskDir, path: string): void => {
      if (visited.has(dir.id)) return;
      visited.add(dir.id);
      dir.entries = new Map(dir.durableEntries);
      for (const name of [...dir.entries.keys()].sort()) {
        const child = dir.entries.get(name)!;
        const childPath = path === '/' ? `/${name}` : `${path}/${name}`;
        if (child.kind === 'dir') revert(child, childPath);
        else if (!visited.has(child.id)) {
          visited.add(child.id);
          this.revertFile(child, childPath, tearing, outcome);
        }
      }
    };
    revert(this.root, '/');
    return outcome;
  }

  private revertFile(
    file: DiskFile,
    path: string,
    tearing: RandomStream | undefined,
    outcome: PowerLossOutcome,
  ): void {
    const unsynced = file.size - file.durableSize;
    if (file.durableCopy === undefined && unsynced === 0) return;
    if (file.durableCopy !== undefined) {
      file.buf = file.durableCopy;
      file.size = file.durableCopy.length;
      file.durableCopy = undefined;
      outcome.reverted.push(path);
      return;
    }
    // Only appends since the last sync: the durable bytes are a prefix of the page cache.
    let kept = 0;
    if (tearing !== undefined && unsynced > 0) kept = tearing.int(unsynced + 1);
    file.size = file.durableSize + kept;
    if (kept > 0) outcome.torn.push({ path, kept, unsynced });
    if (kept < unsynced) outcome.reverted.push(path);
    file.durableSize = file.size;
  }

  // ---- inspection for checkers (no latency, no ownership) ----

  /** The file's bytes as they would be after a power loss now (durable bytes, no tear). */
  readDurable(path: string): Uint8Array | undefined {
    let node: DiskNode = this.root;
    for (const part of SimDisk.split(path)) {
      if (node.kind !== 'dir') return undefined;
      const next = node.durableEntries.get(part);
      if (next === undefined) return undefined;
      node = next;
    }
    if (node.kind !== 'file') return undefined;
    return (node.durableCopy ?? node.buf.subarray(0, node.durableSize)).slice();
  }

  /** The file's bytes as running processes see them (page cache). */
  readCurrent(path: string): Uint8Array | undefined {
    const node = this.lookup(path);
    if (node === undefined || node.kind !== 'file') return undefined;
    return node.buf.slice(0, node.size);
  }

  // ---- helpers ----

  private newFile(): DiskFile {
    return {
      kind: 'file',
      id: this.nextId++,
      buf: new Uint8Array(0),
      size: 0,
      durableSize: 0,
      durableCopy: undefined,
      mtimeMs: this.now(),
    };
  }

  private newDir(): DiskDir {
    return {
      kind: 'dir',
      id: this.nextId++,
      entries: new Map(),
      durableEntries: new Map(),
      mtimeMs: this.now(),
    };
  }

  private preserveDurable(file: DiskFile): void {
    file.durableCopy ??= file.buf.slice(0, file.durableSize);
  }

  private ensureCapacity(file: DiskFile, needed: number): void {
    if (needed <= file.buf.length) return;
    const grown = new Uint8Array(Math.max(needed, file.buf.length * 2, 64));
    grown.set(file.buf.subarray(0, file.size));
    file.buf = grown;
  }

  private isAncestor(ancestor: DiskDir, dir: DiskDir): boolean {
    if (ancestor === dir) return true;
    for (const child of ancestor.entries.values()) {
      if (child.kind === 'dir' && this.isAncestor(child, dir)) return true;
    }
    return false;
  }
}
