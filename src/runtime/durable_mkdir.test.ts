import { describe, expect, it } from 'vitest';
import type { FileSystem } from './filesystem.js';
import { mkdirAllDurable, parentOf } from './durable_mkdir.js';

/** Records the calls a FileSystem receives over a set of existing directories. */
function recordingFs(existing: string[]): { fs: FileSystem; calls: string[] } {
  const dirs = new Set(existing);
  const calls: string[] = [];
  const fs = {
    exists: (p: string) => Promise.resolve(dirs.has(p)),
    mkdir: (p: string) => {
      calls.push(`mkdir ${p}`);
      for (let d = p; !dirs.has(d); d = parentOf(d)) dirs.add(d);
      return Promise.resolve();
    },
    syncDir: (p: string) => {
      calls.push(`sync ${p}`);
      return Promise.resolve();
    },
  } as unknown as FileSystem;
  return { fs, calls };
}

describe('mkdirAllDurable', () => {
  it('syncs the parent of every directory it creates, top down', async () => {
    const { fs, calls } = recordingFs(['/', '/data']);
    await mkdirAllDurable(fs, '/data/tenant/wal');
    expect(calls).toEqual(['mkdir /data/tenant/wal', 'sync /data', 'sync /data/tenant']);
  });

  it('does nothing when the directory exists', async () => {
    const { fs, calls } = recordingFs(['/', '/data', '/data/wal']);
    await mkdirAllDurable(fs, '/data/wal/');
    expect(calls).toEqual([]);
  });

  it('handles relative paths', async () => {
    const { fs, calls } = recordingFs(['.']);
    await mkdirAllDurable(fs, 'data/wal');
    expect(calls).toEqual(['mkdir data/wal', 'sync .', 'sync data']);
  });
});
