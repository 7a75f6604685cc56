import type { FileSystem } from '../../runtime/index.js';
import { parseSegmentName } from './format.js';

export interface SegmentRef {
  readonly name: string;
  readonly index: number;
}

/**
 * The segment files of a WAL directory in index order. Other entries (checkpoints, repair
 * leftovers) are ignored. Gaps mean segments were lost or removed out of order; like
 * Prometheus we refuse to read such a WAL rather than silently skip records.
 */
export async function listSegments(fs: FileSystem, dir: string): Promise<SegmentRef[]> {
  const refs: SegmentRef[] = [];
  for (const name of await fs.readdir(dir)) {
    const index = parseSegmentName(name);
    if (index !== undefined) refs.push({ name, index });
  }
  refs.sort((a, b) => a.index - b.index);
  for (let i = 1; i < refs.length; i++) {
    const prev = refs[i - 1]!;
    const cur = refs[i]!;
    if (cur.index !== prev.index + 1)
      throw new Error(
        `WAL segments in ${dir} are not sequential: ${prev.name} is followed by ${cur.name}`,
      );
  }
  return refs;
}

/** First and last segment index, both -1 when the directory holds no segment. */
export interface SegmentRange {
  first: number;
  last: number;
}

export async function segmentRange(fs: FileSystem, dir: string): Promise<SegmentRange> {
  const refs = await listSegments(fs, dir);
  const first = refs[0];
  const last = refs[refs.length - 1];
  if (first === undefined || last === undefined) return { first: -1, last: -1 };
  return { first: first.index, last: last.index };
}
