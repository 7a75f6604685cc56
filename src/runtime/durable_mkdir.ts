import type { FileSystem } from './filesystem.js';

/**
 * `mkdir -p` whose result survives a power loss: creates every missing directory of `path`
 * and syncs the parent of each one it created, top down, so no new directory entry is left
 * only in the page cache (a WAL or block created under a fresh data directory would
 * otherwise vanish with it).
 */
export async function mkdirAllDurable(fs: FileSystem, path: string): Promise<void> {
  const missing: string[] = [];
  for (let dir = trimSlashes(path); !(await fs.exists(dir)); dir = parentOf(dir)) {
    missing.push(dir);
    if (dir === '/' || dir === '.' || !dir.includes('/')) break;
  }
  if (missing.length === 0) return;
  await fs.mkdir(path, { recursive: true });
  for (const dir of missing.reverse()) await fs.syncDir(parentOf(dir));
}

function trimSlashes(p: string): string {
  const t = p.replace(/\/+$/, '');
  return t === '' ? '/' : t;
}

/** The parent directory of `dir` ('.' for a bare relative name, '/' at the root). */
export function parentOf(dir: string): string {
  const trimmed = trimSlashes(dir);
  const slash = trimmed.lastIndexOf('/');
  if (slash < 0) return '.';
  return slash === 0 ? '/' : trimmed.slice(0, slash);
}
