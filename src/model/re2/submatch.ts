// Submatch extraction with Go regexp semantics (PromQL's label_replace needs it): the pattern is parsed by
// the shared RE2 parser and run by a Pike VM (a Thompson NFA whose threads carry capture
// positions and are kept in priority order), which yields Go's leftmost-first ("Perl")
// submatches in time linear in the input. Program (the label matchers' NFA) only answers "does it
// match", so capture positions need this second VM.
import type { Node as Re2Node } from './ast.js';
import { foldKey } from './case_fold.js';
import { classMatches, type CharClass } from './charclass.js';
import { parseRe2 } from './parser.js';

type Inst =
  | { op: 'rune'; rune: number; fold: boolean }
  | { op: 'class'; cls: CharClass }
  | { op: 'any'; nl: boolean }
  | { op: 'assert'; kind: string }
  | { op: 'split'; x: number; y: number }
  | { op: 'jump'; x: number }
  | { op: 'save'; slot: number }
  | { op: 'match' };

class Compiler {
  readonly prog: Inst[] = [];
  readonly names: (string | undefined)[] = [undefined];

  emit(inst: Inst): number {
    this.prog.push(inst);
    return this.prog.length - 1;
  }

  /** A split whose targets are patched later; `x` is the preferred branch. */
  split(): { op: 'split'; x: number; y: number } {
    const inst = { op: 'split' as const, x: -1, y: -1 };
    this.emit(inst);
    return inst;
  }

  compile(node: Re2Node): void {
    switch (node.op) {
      case 'empty':
        return;
      case 'literal':
        this.emit({
          op: 'rune',
          rune: node.fold ? foldKey(node.rune) : node.rune,
          fold: node.fold,
        });
        return;
      case 'class':
        this.emit({ op: 'class', cls: node.cls });
        return;
      case 'any':
        this.emit({ op: 'any', nl: node.nl });
        return;
      case 'assert':
        this.emit({ op: 'assert', kind: node.kind });
        return;
      case 'capture': {
        const index = this.names.length;
        this.names.push(node.name);
        this.emit({ op: 'save', slot: 2 * index });
        this.compile(node.sub);
        this.emit({ op: 'save', slot: 2 * index + 1 });
        return;
      }
      case 'concat':
        for (const sub of node.subs) this.compile(sub);
        return;
      case 'alternate': {
        const jumps: { op: 'jump'; x: number }[] = [];
        node.subs.forEach((sub, i) => {
          if (i === node.subs.length - 1) {
            this.compile(sub);
            return;
          }
          const s = this.split();
          s.x = this.prog.length;
          this.compile(sub);
          const j = { op: 'jump' as const, x: -1 };
          this.emit(j);
          jumps.push(j);
          s.y = this.prog.length;
        });
        for (const j of jumps) j.x = this.prog.length;
        return;
      }
      case 'repeat': {
        // Capture numbering must follow the left-parenthesis order of the source, so copies
        // of the body reuse the indexes of its first compilation.
        const mark = this.names.length;
        const body = (): void => {
          this.names.length = mark;
          this.compile(node.sub);
        };
        for (let i = 0; i < node.min; i++) body();
        if (node.max < 0) {
          const s = this.split();
          const loop = this.prog.length - 1;
          const start = this.prog.length;
          body();
          this.emit({ op: 'jump', x: loop });
          const exit = this.prog.length;
          if (node.greedy) [s.x, s.y] = [start, exit];
          else [s.x, s.y] = [exit, start];
          return;
        }
        const splits: { s: { op: 'split'; x: number; y: number }; start: number }[] = [];
        for (let i = node.min; i < node.max; i++) {
          const s = this.split();
          splits.push({ s, start: this.prog.length });
          body();
        }
        const exit = this.prog.length;
        for (const { s, start } of splits) {
          if (node.greedy) [s.x, s.y] = [start, exit];
          else [s.x, s.y] = [exit, start];
        }
        if (node.min === 0 && node.max === 0) body(); // keep numbering of x{0}
        if (node.min === 0 && node.max === 0) this.prog.length = exit;
        return;
      }
    }
  }
}

function isWordRune(cp: number): boolean {
  return (
    (cp >= 0x30 && cp <= 0x39) ||
    (cp >= 0x41 && cp <= 0x5a) ||
    (cp >= 0x61 && cp <= 0x7a) ||
    cp === 0x5f
  );
}

function assertionHolds(kind: string, before: number, after: number): boolean {
  switch (kind) {
    case 'bot':
      return before === -1;
    case 'eot':
      return after === -1;
    case 'bol':
      return before === -1 || before === 0x0a;
    case 'eol':
      return after === -1 || after === 0x0a;
    case 'wordBoundary':
      return isWordRune(before) !== isWordRune(after);
    default:
      return isWordRune(before) === isWordRune(after);
  }
}

/** Code point at UTF-16 index i; a lone surrogate reads as U+FFFD, as Go reads invalid UTF-8. */
function runeAt(s: string, i: number): number {
  if (i >= s.length) return -1;
  const cp = s.codePointAt(i) as number;
  return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
}

interface Thread {
  pc: number;
  caps: number[];
}

/** A compiled regular expression that reports Go's submatch positions for anchored input. */
export class SubmatchRegex {
  private readonly prog: Inst[];
  /** Capture names by index; index 0 is the whole match. */
  readonly subexpNames: readonly (string | undefined)[];

  /** Throws Re2SyntaxError (Go's message) when RE2 rejects the pattern. */
  constructor(pattern: string) {
    const compiler = new Compiler();
    compiler.emit({ op: 'save', slot: 0 });
    compiler.compile(parseRe2(pattern));
    compiler.emit({ op: 'save', slot: 1 });
    compiler.emit({ op: 'match' });
    this.prog = compiler.prog;
    this.subexpNames = [...compiler.names];
  }

  /**
   * Go's FindStringSubmatchIndex for a match starting at position 0 (the patterns
   * label_replace builds are anchored): [start0, end0, start1, end1, …] with -1 for groups
   * that did not participate, or undefined when there is no match. Indexes are UTF-16 offsets.
   */
  matchAt0(s: string): number[] | undefined {
    const slots = 2 * this.subexpNames.length;
    let clist: Thread[] = [];
    let visited = new Set<number>();
    const initial = new Array<number>(slots).fill(-1);
    this.addThread(clist, visited, 0, initial, 0, -1, runeAt(s, 0));
    let matched: number[] | undefined;
    let i = 0;
    for (;;) {
      const cp = runeAt(s, i);
      const width = cp > 0xffff ? 2 : 1;
      const next = i + width;
      const nlist: Thread[] = [];
      visited = new Set<number>();
      const after = runeAt(s, next);
      for (const t of clist) {
        const inst = this.prog[t.pc]!;
        if (inst.op === 'match') {
          matched = t.caps;
          break; // lower-priority threads cannot win any more
        }
        if (cp === -1) continue;
        let ok: boolean;
        switch (inst.op) {
          case 'rune':
            ok = inst.fold ? foldKey(cp) === inst.rune : cp === inst.rune;
            break;
          case 'class':
            ok = classMatches(inst.cls, cp);
            break;
          case 'any':
            ok = inst.nl || cp !== 0x0a;
            break;
          default:
            ok = false;
        }
        if (ok) this.addThread(nlist, visited, t.pc + 1, t.caps, next, cp, after);
      }
      if (cp === -1 || nlist.length === 0) break;
      clist = nlist;
      i = next;
    }
    return matched;
  }

  /** Follows empty transitions from pc at `pos` in priority order, recording captures. */
  private addThread(
    list: Thread[],
    visited: Set<number>,
    pc: number,
    caps: number[],
    pos: number,
    before: number,
    after: number,
  ): void {
    if (visited.has(pc)) return;
    visited.add(pc);
    const inst = this.prog[pc]!;
    switch (inst.op) {
      case 'jump':
        this.addThread(list, visited, inst.x, caps, pos, before, after);
        return;
      case 'split':
        this.addThread(list, visited, inst.x, caps, pos, before, after);
        this.addThread(list, visited, inst.y, caps, pos, before, after);
        return;
      case 'save': {
        const copy = caps.slice();
        copy[inst.slot] = pos;
        this.addThread(list, visited, pc + 1, copy, pos, before, after);
        return;
      }
      case 'assert':
        if (assertionHolds(inst.kind, before, after))
          this.addThread(list, visited, pc + 1, caps, pos, before, after);
        return;
      default:
        list.push({ pc, caps });
    }
  }
}
