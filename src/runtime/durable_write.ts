import type { FileSystem } from './filesystem.js';

/**
 * Replaces `dir/name` with `bytes` so that after a crash or power loss readers see either the
 * old file or the whole new one: the bytes go to `name.tmp`, are fsynced, renamed over the
 * target, and the directory is synced. Returns the number of bytes written.
 */
export async function writeFileDurable(
  fs: FileSystem,
  dir: string,
  name: string,
  bytes: Uint8Array,
): Promise<number> {
  const path = `${dir}/${name}`;
  const tmp = `${path}.tmp`;
  const f = await fs.open(tmp, 'w');
  try {
    await f.write(0, bytes);
    await f.sync();
  } finally {
    await f.close();
  }
  await fs.rename(tmp, path);
  await fs.syncDir(dir);
  return bytes.length;
}
