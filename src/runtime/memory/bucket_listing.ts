/**
 * The listing rule of the Bucket contract as a pure function over object names, shared by
 * every implementation that keeps its names in memory (and by tests as the oracle).
 */

/** `dir` as a prefix: '' stays '', anything else gets exactly one trailing `/`. */
export function dirPrefix(dir: string): string {
  if (dir === '' || dir === '/') return '';
  return dir.endsWith('/') ? dir : `${dir}/`;
}

/**
 * Entries directly under `dir`: objects by full name and "directories" (`dir/x/`), sorted by
 * code unit, each once. With `recursive`, every object below `dir` and no directories.
 */
export function listObjectNames(
  names: Iterable<string>,
  dir: string,
  recursive: boolean,
): string[] {
  const prefix = dirPrefix(dir);
  const entries = new Set<string>();
  for (const name of names) {
    if (!name.startsWith(prefix) || name === prefix) continue;
    if (recursive) {
      entries.add(name);
      continue;
    }
    const slash = name.indexOf('/', prefix.length);
    entries.add(slash === -1 ? name : name.slice(0, slash + 1));
  }
  return [...entries].sort(compareCodeUnits);
}

/** Code-unit order, spelled out so no one "fixes" it into a locale comparison. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
