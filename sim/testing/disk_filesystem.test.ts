import { describe, expect, it } from 'vitest';
import { describeFileSystemContract } from '../../src/runtime/testing/index.js';
import { DiskFileSystem } from './index.js';

describeFileSystemContract('kernel-free disk (DiskFileSystem)', () =>
  Promise.resolve({ fs: new DiskFileSystem(), cleanup: () => Promise.resolve() }),
);

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('DiskFileSystem.powerLossAfter', () => {
  it('loses power right after the matched operation: only durable state survives', async () => {
    const fs = new DiskFileSystem();
    await fs.mkdir('/d');
    await fs.syncDir('/');
    const f = await fs.open('/d/synced', 'w');
    await f.write(0, bytes('kept'));
    await f.sync();
    await f.close();
    await fs.syncDir('/d');
    fs.powerLossAfter((op) => op.kind === 'writeFile' && op.path === '/d/unsynced');
    await fs.writeFile('/d/unsynced', 'lost');
    expect(fs.powerLostAfter).toEqual({ kind: 'writeFile', path: '/d/unsynced' });
    await expect(fs.readdir('/d')).rejects.toThrow(
      'readdir /d: power was lost after writeFile /d/unsynced',
    );
    const restarted = new DiskFileSystem(fs.disk);
    expect(await restarted.readdir('/d')).toEqual(['synced']);
    expect(new TextDecoder().decode(await restarted.readFile('/d/synced'))).toBe('kept');
  });

  it('with several matchers, waits until they matched in order', async () => {
    const fs = new DiskFileSystem();
    fs.powerLossAfter([
      (op) => op.kind === 'rename' && op.to === '/b',
      (op) => op.kind === 'syncDir' && op.path === '/',
    ]);
    await fs.mkdir('/a');
    await fs.syncDir('/'); // before the rename: not yet
    await fs.rename('/a', '/b');
    expect(fs.powerLostAfter).toBeUndefined();
    await fs.syncDir('/');
    expect(fs.powerLostAfter).toEqual({ kind: 'syncDir', path: '/' });
    expect(await new DiskFileSystem(fs.disk).readdir('/')).toEqual(['b']);
  });

  it('rejects an empty list of matchers', () => {
    expect(() => new DiskFileSystem().powerLossAfter([])).toThrow(/at least one matcher/);
  });
});
