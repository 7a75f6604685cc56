import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileSystemError } from '../filesystem.js';
import { describeFileSystemContract } from '../testing/index.js';
import { NodeFileSystem, toFileSystemError } from './node_filesystem.js';

async function tempRoot(): Promise<{ root: string; cleanup: () => Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'strata-fs-'));
  return { root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

describeFileSystemContract('NodeFileSystem', async () => {
  const { root, cleanup } = await tempRoot();
  return { fs: new NodeFileSystem(root), cleanup };
});

describe('NodeFileSystem', () => {
  it('resolves relative paths against its root and accepts absolute ones', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const fs = new NodeFileSystem(root);
      await fs.writeFile('wal/../f', 'x');
      expect((await stat(join(root, 'f'))).size).toBe(1);
      expect(new TextDecoder().decode(await fs.readFile(join(root, 'f')))).toBe('x');
    } finally {
      await cleanup();
    }
  });

  it('reports the real file modification time', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const fs = new NodeFileSystem(root);
      await fs.writeFile('f', 'x');
      expect((await fs.stat('f'))?.mtimeMs).toBe((await stat(join(root, 'f'))).mtimeMs);
    } finally {
      await cleanup();
    }
  });

  it('reads a large file completely through a handle', async () => {
    const { root, cleanup } = await tempRoot();
    try {
      const fs = new NodeFileSystem(root);
      const data = new Uint8Array(3 << 20).map((_, i) => i % 251);
      await fs.writeFile('big', data);
      const h = await fs.open('big', 'r');
      const got = await h.read(0, data.length + 10);
      expect(got.length).toBe(data.length);
      expect(Buffer.compare(got, data)).toBe(0); // toEqual is slow on megabytes
      await h.close();
    } finally {
      await cleanup();
    }
  });

  it('maps errno codes outside the interface set to EIO, keeping the original code in the message', () => {
    const err = toFileSystemError(
      Object.assign(new Error('permission denied'), { code: 'EACCES' }),
      'data/x',
    );
    expect(err).toBeInstanceOf(FileSystemError);
    expect((err as FileSystemError).code).toBe('EIO');
    expect(err.message).toContain('EACCES');
    expect(err.message).toContain('data/x');
  });
});
