/**
 * Thanos's DeduplicateFilter: a block whose `compaction.sources` are all among another
 * block's sources (same resolution) holds nothing that block lacks, so it is a duplicate.
 * That is what is left behind when two compactors compacted the same sources during a ring
 * change, or when a compactor died between uploading its output and marking the sources: the
 * planner must not see both, and the syncer marks the duplicate for deletion.
 *
 * Same algorithm as Thanos: blocks sorted by number of sources (most first), then by ULID,
 * are inserted into a tree under the first top-level block that contains their sources (or
 * beside an identical one); every block that is not at the top is a duplicate. Among blocks
 * with identical sources the one with the lowest ULID stays.
 */
import { compareUlids, type BlockMeta } from '../tsdb/index.js';

interface Node {
  readonly id: string;
  readonly sources: ReadonlySet<string>;
  readonly children: Node[];
}

function containsAll(outer: ReadonlySet<string>, inner: ReadonlySet<string>): boolean {
  for (const s of inner) if (!outer.has(s)) return false;
  return true;
}

function insert(parent: Node, add: Node): void {
  for (;;) {
    let into: Node | undefined;
    for (const node of parent.children) {
      if (!containsAll(node.sources, add.sources)) continue;
      if (containsAll(add.sources, node.sources)) {
        node.children.push(add);
        return;
      }
      into = node;
      break;
    }
    if (into === undefined) {
      parent.children.push(add);
      return;
    }
    parent = into;
  }
}

function collectBelow(node: Node, out: string[]): void {
  for (const child of node.children) {
    out.push(child.id);
    collectBelow(child, out);
  }
}

/** The ULIDs of the duplicate blocks among `metas`, sorted. */
export function findDuplicateBlocks(metas: Iterable<BlockMeta>): string[] {
  const byResolution = new Map<number, BlockMeta[]>();
  for (const m of metas) {
    const res = m.thanos?.downsample.resolution ?? 0;
    const list = byResolution.get(res) ?? [];
    list.push(m);
    byResolution.set(res, list);
  }
  const duplicates: string[] = [];
  for (const list of byResolution.values()) {
    list.sort(
      (a, b) =>
        b.compaction.sources.length - a.compaction.sources.length || compareUlids(a.ulid, b.ulid),
    );
    const root: Node = { id: '', sources: new Set(), children: [] };
    for (const m of list) {
      insert(root, { id: m.ulid, sources: new Set(m.compaction.sources), children: [] });
    }
    for (const top of root.children) collectBelow(top, duplicates);
  }
  return duplicates.sort(compareUlids);
}
