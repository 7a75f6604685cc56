import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseAllDocuments,
  type Scalar,
  type Node as YamlNode,
} from 'yaml';
import { RuntimeConfigError } from './runtime_config_error.js';

/**
 * A YAML document reduced to what strict decoding needs: maps keep their keys' source text
 * and every node its line, aliases are resolved and `<<` merge keys applied. Go's yaml.v2
 * (which Cortex decodes the runtime config with) behaves the same way on all of these, so a
 * file Cortex accepts reads the same here.
 */
export type YamlValue = YamlScalar | YamlMapping | YamlSequence;

export interface YamlScalar {
  kind: 'scalar';
  /** The value under the YAML 1.2 core schema (string, number, boolean or null). */
  value: unknown;
  /** The scalar's text as written (without quotes). */
  source: string;
  quoted: boolean;
  line: number;
}

export interface YamlMapping {
  kind: 'map';
  entries: YamlEntry[];
  line: number;
}

export interface YamlEntry {
  key: string;
  line: number;
  value: YamlValue;
}

export interface YamlSequence {
  kind: 'seq';
  items: YamlValue[];
  line: number;
}

/**
 * Parses `text` as exactly one YAML document. Returns undefined for an empty stream or an
 * empty/null document; rejects multiple documents, as Cortex does.
 */
export function parseSingleYamlDocument(text: string): YamlValue | undefined {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: true });
  if (docs.length === 0) return undefined;
  if (docs.length > 1) {
    throw new RuntimeConfigError(
      `the runtime configuration contains ${docs.length} YAML documents; exactly one is allowed`,
    );
  }
  const doc = docs[0]!;
  const syntaxError = doc.errors[0];
  if (syntaxError !== undefined) {
    // prettyErrors puts "at line L, column C:" on the first line and a code frame after it.
    const firstLine = (syntaxError.message.split('\n')[0] ?? syntaxError.message).replace(/:$/, '');
    throw new RuntimeConfigError(`invalid YAML: ${firstLine}`);
  }
  if (doc.contents === null) return undefined;
  const root = new TreeBuilder(doc, lineCounter).build(doc.contents);
  if (root.kind === 'scalar' && root.value === null) return undefined;
  return root;
}

/** Human words for a node kind in error messages. */
export function describeYamlValue(v: YamlValue): string {
  switch (v.kind) {
    case 'map':
      return 'a mapping';
    case 'seq':
      return 'a sequence';
    case 'scalar':
      return v.value === null ? 'null' : JSON.stringify(v.source);
  }
}

class TreeBuilder {
  // Converted nodes by identity: an alias reuses its anchor's conversion, so repeated
  // aliases cannot blow up exponentially ("billion laughs").
  private readonly converted = new Map<YamlNode, YamlValue>();
  private readonly inProgress = new Set<YamlNode>();

  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
  ) {}

  build(node: YamlNode): YamlValue {
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (target === undefined) {
        throw new RuntimeConfigError(
          `unknown YAML alias *${node.source} (line ${this.lineOf(node)})`,
        );
      }
      return this.build(target);
    }
    const done = this.converted.get(node);
    if (done !== undefined) return done;
    if (this.inProgress.has(node)) {
      throw new RuntimeConfigError(`recursive YAML alias (line ${this.lineOf(node)})`);
    }
    this.inProgress.add(node);
    const value = this.convert(node);
    this.inProgress.delete(node);
    this.converted.set(node, value);
    return value;
  }

  private convert(node: YamlNode): YamlValue {
    const line = this.lineOf(node);
    if (isScalar(node)) {
      return {
        kind: 'scalar',
        value: node.value,
        source: scalarSource(node),
        quoted: node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE',
        line,
      };
    }
    if (isSeq(node)) {
      const items = node.items.map((item) => this.buildItem(item, line));
      return { kind: 'seq', items, line };
    }
    if (isMap(node)) return this.convertMap(node.items, line);
    throw new RuntimeConfigError(`unsupported YAML node (line ${line})`);
  }

  private buildItem(item: unknown, parentLine: number): YamlValue {
    if (item === null || item === undefined) {
      return { kind: 'scalar', value: null, source: '', quoted: false, line: parentLine };
    }
    if (isPair(item)) {
      throw new RuntimeConfigError(`unexpected key/value pair in a sequence (line ${parentLine})`);
    }
    return this.build(item as YamlNode);
  }

  /**
   * Explicit keys win over merged ones; among several merged maps the earlier wins (the YAML
   * merge-key rules yaml.v2 follows).
   */
  private convertMap(pairs: readonly unknown[], line: number): YamlMapping {
    const explicit: YamlEntry[] = [];
    const merged: YamlEntry[] = [];
    for (const pair of pairs) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as YamlNode | null;
      const valueLine = keyNode ? this.lineOf(keyNode) : line;
      const value = this.buildItem(pair.value, valueLine);
      if (isScalar(keyNode) && keyNode.type === 'PLAIN' && keyNode.source === '<<') {
        merged.push(...this.mergeSources(value, valueLine));
        continue;
      }
      explicit.push({ key: this.keyText(keyNode, line), line: valueLine, value });
    }
    if (merged.length === 0) return { kind: 'map', entries: explicit, line };
    const seen = new Set(explicit.map((e) => e.key));
    const entries: YamlEntry[] = [];
    for (const e of merged) {
      if (seen.has(e.key)) continue;
      seen.add(e.key);
      entries.push(e);
    }
    entries.push(...explicit);
    return { kind: 'map', entries, line };
  }

  private mergeSources(value: YamlValue, line: number): YamlEntry[] {
    if (value.kind === 'map') return value.entries;
    if (value.kind === 'seq' && value.items.every((i) => i.kind === 'map')) {
      return value.items.flatMap((i) => (i.kind === 'map' ? i.entries : []));
    }
    throw new RuntimeConfigError(
      `merge key << needs a mapping or a sequence of mappings, got ${describeYamlValue(value)} (line ${line})`,
    );
  }

  /**
   * Like yaml.v2 decoding into a string-keyed map: a non-string scalar key keeps its text,
   * so tenant `0123` stays "0123" rather than becoming the number 123.
   */
  private keyText(key: YamlNode | null, line: number): string {
    if (isAlias(key)) {
      const target = key.resolve(this.doc);
      if (target !== undefined) return this.keyText(target, line);
    }
    if (isScalar(key) && key.value !== null) {
      return typeof key.value === 'string' ? key.value : scalarSource(key);
    }
    throw new RuntimeConfigError(`map keys must be non-empty scalars (line ${line})`);
  }

  private lineOf(node: YamlNode): number {
    const start = node.range?.[0];
    return start === undefined ? 0 : this.lines.linePos(start).line;
  }
}

/** The scalar as written; parsed scalars always carry it, built ones fall back to the value. */
function scalarSource(node: Scalar): string {
  if (node.source !== undefined) return node.source;
  const v = node.value;
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
