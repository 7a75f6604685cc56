import { describe, expect, it } from 'vitest';
import type { FileSystem } from '../../../src/runtime/index.js';
import { CapturingLogger } from '../../../src/runtime/testing/index.js';
import { DiskFileSystem } from '../../testing/index.js';
import {
  BlockDiskLog,
  DeleteBeforeShipFileSystem,
  ObservedFileSystem,
  blockPathOf,
} from './block_disk.js';

const B1 = '01JAAAAAAAAAAAAAAAAAAAAAA1';
const B2 = '01JAAAAAAAAAAAAAAAAAAAAAA2';
const TENANT = '/data/tsdb/team-a';

/** Writes a block the way the TSDB does: under a temporary name, renamed into place last. */
async function writeBlock(fs: FileSystem, ulid: string): Promise<void> {
  const tmp = `${TENANT}/${ulid}.tmp-for-creation`;
  await fs.mkdir(`${tmp}/chunks`, { recursive: true });
  await fs.writeFile(`${tmp}/meta.json`, '{}');
  await fs.rename(tmp, `${TENANT}/${ulid}`);
}

describe('block disk observation', () => {
  it('knows block paths: a ULID directly under a tenant of the tsdb directory', () => {
    expect(blockPathOf(`${TENANT}/${B1}`)).toEqual({ tenant: 'team-a', ulid: B1 });
    expect(blockPathOf(`${TENANT}/${B1}.tmp-for-creation`)).toBeUndefined();
    expect(blockPathOf(`${TENANT}/wal`)).toBeUndefined();
    expect(blockPathOf(`${TENANT}/${B1}/index`)).toBeUndefined();
  });

  it('records cuts (renames into place) and local deletions (rename away or removal)', async () => {
    const log = new BlockDiskLog();
    let now = 100;
    const fs = new ObservedFileSystem(new DiskFileSystem(), 'ingester-1', log, () => now);
    await writeBlock(fs, B1);
    now = 200;
    await writeBlock(fs, B2);
    now = 300;
    // Retention renames a block out of sight, then removes it.
    await fs.rename(`${TENANT}/${B1}`, `${TENANT}/${B1}.tmp-for-deletion`);
    await fs.remove(`${TENANT}/${B1}.tmp-for-deletion`, { recursive: true });
    now = 400;
    await fs.remove(`${TENANT}/${B2}`, { recursive: true });
    expect(log.blocks).toEqual([
      { node: 'ingester-1', tenant: 'team-a', ulid: B1, cutAt: 100, deletedAt: 300 },
      { node: 'ingester-1', tenant: 'team-a', ulid: B2, cutAt: 200, deletedAt: 400 },
    ]);
  });

  it('delete_before_ship removes fresh blocks when the tenant directory is listed', async () => {
    const log = new BlockDiskLog();
    const disk = new DiskFileSystem();
    await writeBlock(disk, B1); // an older block, from before this process started
    const logger = new CapturingLogger();
    const fs = new DeleteBeforeShipFileSystem(
      new ObservedFileSystem(disk, 'ingester-1', log, () => 7),
      logger,
    );
    await writeBlock(fs, B2);
    // Listing another directory leaves it alone.
    expect(await fs.readdir('/data/tsdb')).toEqual(['team-a']);
    expect(await disk.exists(`${TENANT}/${B2}/meta.json`)).toBe(true);
    // The shipper lists the tenant's directory: the fresh block is gone before it is seen.
    expect(await fs.readdir(TENANT)).toEqual([B1]);
    expect(await disk.exists(`${TENANT}/${B2}`)).toBe(false);
    expect(log.blocks).toEqual([
      { node: 'ingester-1', tenant: 'team-a', ulid: B2, cutAt: 7, deletedAt: 7 },
    ]);
    expect(logger.find('deleting a block before shipping it', 'warn')).toHaveLength(1);
  });
});
