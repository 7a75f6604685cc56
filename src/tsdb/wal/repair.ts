import type { FileSystem } from '../../runtime/index.js';
import { PAGE_SIZE, joinPath, segmentName } from './format.js';

/**
 * Replaces segment `index` with its first `keep` bytes, zero-padded to a page boundary so
 * readers see clean page padding where the broken record was. Written to a temporary file,
 * synced and renamed over the segment, so a crash mid-repair leaves either version intact.
 * (Prometheus re-logs the surviving records instead; copying the bytes keeps them exactly.)
 */
export async function rewriteSegmentPrefix(
  fs: FileSystem,
  dir: string,
  index: number,
  keep: number,
): Promise<void> {
  const path = joinPath(dir, segmentName(index));
  const tmpPath = `${path}.repair`;
  const source = await fs.open(path, 'r');
  let prefix: Uint8Array;
  try {
    prefix = await source.read(0, keep);
  } finally {
    await source.close();
  }
  if (prefix.length !== keep)
    throw new Error(
      `cannot repair WAL segment ${path}: wanted to keep ${keep} bytes, it has only ${prefix.length}`,
    );
  const padded = new Uint8Array(Math.ceil(keep / PAGE_SIZE) * PAGE_SIZE);
  padded.set(prefix);
  const out = await fs.open(tmpPath, 'w');
  try {
    await out.write(0, padded);
    await out.sync();
  } finally {
    await out.close();
  }
  await fs.rename(tmpPath, path);
  await fs.syncDir(dir);
}
