/**
 * Local disk as components see it. The contract is the part of POSIX a database relies on:
 * data written through a handle is durable only after `sync()`; directory changes
 * (create, rename, remove) are durable after `syncDir()` of the parent directory. The real
 * implementation maps to node:fs; the simulated one loses or tears unsynced data on power loss.
 *
 * Paths are POSIX-style strings. Relative paths resolve against the implementation's root
 * (the process working directory for the real one, the node's disk for the simulated one).
 */
export interface FileSystem {
  /**
   * Opens a file. 'r' read-only (must exist); 'r+' read/write (must exist); 'w' read/write,
   * created or truncated; 'a' read/append, created if missing; 'wx' read/write, must not exist.
   */
  open(path: string, mode: OpenMode): Promise<FileHandle>;
  readFile(path: string): Promise<Uint8Array>;
  /** Writes a whole file (created or truncated) without syncing it. */
  writeFile(path: string, data: Uint8Array | string): Promise<void>;
  /** Creates a directory; with `recursive` creates parents and tolerates existing ones. */
  mkdir(path: string, opts?: { recursive?: boolean }): Promise<void>;
  /** Entry names (not paths) of a directory, sorted by code unit. */
  readdir(path: string): Promise<string[]>;
  /** Undefined when the path does not exist. */
  stat(path: string): Promise<FileStat | undefined>;
  exists(path: string): Promise<boolean>;
  /** Atomically replaces `to` with `from` (files or directories). */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file or, with `recursive`, a directory tree. Missing paths are not an error. */
  remove(path: string, opts?: { recursive?: boolean }): Promise<void>;
  /** Makes directory entry changes under `path` durable. */
  syncDir(path: string): Promise<void>;
}

export type OpenMode = 'r' | 'r+' | 'w' | 'a' | 'wx';

export interface FileStat {
  size: number;
  isDirectory: boolean;
  /** Milliseconds since epoch, from the runtime's clock. */
  mtimeMs: number;
}

export interface FileHandle {
  readonly path: string;
  /** Reads up to `length` bytes at `position`; shorter only at end of file. */
  read(position: number, length: number): Promise<Uint8Array>;
  /** Writes at `position` (not allowed in 'a' mode). */
  write(position: number, data: Uint8Array): Promise<void>;
  /** Appends at the end of the file. */
  append(data: Uint8Array): Promise<void>;
  size(): Promise<number>;
  truncate(length: number): Promise<void>;
  /** Makes all data written so far durable. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** Error thrown by FileSystem implementations; `code` mirrors the errno name. */
export class FileSystemError extends Error {
  override readonly name = 'FileSystemError';
  constructor(
    readonly code: 'ENOENT' | 'EEXIST' | 'ENOTDIR' | 'EISDIR' | 'ENOTEMPTY' | 'EIO' | 'EBADF',
    readonly path: string,
    message?: string,
  ) {
    super(message ?? `${code}: ${path}`);
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof FileSystemError && err.code === 'ENOENT';
}
