import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { ScenarioError, type PathSegment } from '../fields/index.js';

/** A scenario file parsed with node positions, so errors can name the line. */
export interface ScenarioSource {
  /** The document as plain data, for the readers. */
  data: unknown;
  /** `<file>:<line>:<col>` of the deepest node along `path` present in the file. */
  position(path: readonly PathSegment[]): string | undefined;
}

/**
 * Parses YAML keeping positions. Syntax errors (and duplicate keys) become a ScenarioError
 * naming `<file>:<line>:<col>`.
 */
export function parseScenarioSource(text: string, file: string): ScenarioSource {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const first = doc.errors[0];
  if (first !== undefined) {
    const at = first.linePos?.[0];
    const where = at === undefined ? file : `${file}:${at.line}:${at.col}`;
    throw new ScenarioError(`${where}: not valid YAML: ${first.message.split('\n')[0]}`, []);
  }
  return {
    data: doc.toJS() as unknown,
    position(path) {
      const offset = offsetOf(doc.contents, path);
      if (offset === undefined) return undefined;
      const { line, col } = lines.linePos(offset);
      return `${file}:${line}:${col}`;
    },
  };
}

/**
 * Walks `path` down the document: a mapping step lands on its key (the line an author
 * reads as "this setting"), a list step on the item. Stops at the first step the file does
 * not have (a required key that is missing points at the mapping that lacks it).
 */
function offsetOf(root: Node | null, path: readonly PathSegment[]): number | undefined {
  let node: unknown = root;
  let offset = root?.range?.[0];
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (pair === undefined) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item: unknown = node.items[segment];
      if (item === undefined || item === null) break;
      offset = (item as Node).range?.[0] ?? offset;
      node = item;
    } else break;
  }
  return offset;
}
