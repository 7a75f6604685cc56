/**
 * Test support: a FileSystem that only serves whole-file reads from a map, which is all the
 * configuration module uses. Every other operation fails loudly so a test cannot silently
 * depend on one.
 */
import {
  FileSystemError,
  type FileHandle,
  type FileStat,
  type FileSystem,
} from '../runtime/index.js';

export class StaticFiles implements FileSystem {
  private readonly files: Map<string, Uint8Array>;

  constructor(files: Readonly<Record<string, string | Uint8Array>>) {
    this.files = new Map(
      Object.entries(files).map(([path, content]) => [
        path,
        typeof content === 'string' ? new TextEncoder().encode(content) : content,
      ]),
    );
  }

  readFile(path: string): Promise<Uint8Array> {
    const data = this.files.get(path);
    return data === undefined
      ? Promise.reject(new FileSystemError('ENOENT', path))
      : Promise.resolve(data);
  }

  exists(path: string): Promise<boolean> {
    return Promise.resolve(this.files.has(path));
  }

  open(): Promise<FileHandle> {
    return unsupported('open');
  }
  writeFile(): Promise<void> {
    return unsupported('writeFile');
  }
  mkdir(): Promise<void> {
    return unsupported('mkdir');
  }
  readdir(): Promise<string[]> {
    return unsupported('readdir');
  }
  stat(): Promise<FileStat | undefined> {
    return unsupported('stat');
  }
  rename(): Promise<void> {
    return unsupported('rename');
  }
  remove(): Promise<void> {
    return unsupported('remove');
  }
  syncDir(): Promise<void> {
    return unsupported('syncDir');
  }
}

function unsupported(op: string): Promise<never> {
  return Promise.reject(new Error(`StaticFiles does not support ${op}`));
}
