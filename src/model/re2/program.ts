/**
 * Compiles the RE2 AST into a Thompson NFA and runs it as a state-set simulation: the time to
 * match is linear in input length × program size, with no backtracking, whatever the pattern.
 * Only whole-string matching is offered (Prometheus matchers are fully anchored), so
 * greediness and capture groups do not affect the answer and are ignored.
 */
import type { AssertKind, Node } from './ast.js';
import { foldKey } from './case_fold.js';
import { classMatches, type CharClass } from './charclass.js';
import { Re2SyntaxError } from './errors.js';

const OP_RUNE = 0;
const OP_RUNE_FOLD = 1;
const OP_CLASS = 2;
const OP_ANY = 3;
const OP_ANY_NOT_NL = 4;
const OP_SPLIT = 5;
const OP_JUMP = 6;
const OP_ASSERT = 7;
const OP_MATCH = 8;

const ASSERT_CODES: Readonly<Record<AssertKind, number>> = {
  bot: 0,
  eot: 1,
  bol: 2,
  eol: 3,
  wordBoundary: 4,
  noWordBoundary: 5,
};

/** Upper bound on program size; larger expressions are rejected like RE2's size limit. */
export const MAX_PROGRAM_SIZE = 500_000;

class Builder {
  readonly op: number[] = [];
  readonly out: number[] = [];
  readonly out1: number[] = [];
  readonly arg: number[] = [];
  readonly classes: CharClass[] = [];

  constructor(private readonly source: string) {}

  emit(op: number, arg = 0): number {
    if (this.op.length >= MAX_PROGRAM_SIZE)
      throw new Re2SyntaxError('expression too large', this.source);
    this.op.push(op);
    this.out.push(-1);
    this.out1.push(-1);
    this.arg.push(arg);
    return this.op.length - 1;
  }
}

/**
 * Emits code for `node` so that control falls through to the next instruction on success.
 * Every instruction's `out` defaults to "next"; splits and jumps are patched explicitly.
 */
function compileNode(b: Builder, node: Node): void {
  switch (node.op) {
    case 'empty':
      return;
    case 'literal':
      b.emit(node.fold ? OP_RUNE_FOLD : OP_RUNE, node.fold ? foldKey(node.rune) : node.rune);
      return;
    case 'class':
      b.classes.push(node.cls);
      b.emit(OP_CLASS, b.classes.length - 1);
      return;
    case 'any':
      b.emit(node.nl ? OP_ANY : OP_ANY_NOT_NL);
      return;
    case 'assert':
      b.emit(OP_ASSERT, ASSERT_CODES[node.kind]);
      return;
    case 'capture':
      compileNode(b, node.sub);
      return;
    case 'concat':
      for (const sub of node.subs) compileNode(b, sub);
      return;
    case 'alternate': {
      const jumps: number[] = [];
      node.subs.forEach((sub, i) => {
        if (i === node.subs.length - 1) {
          compileNode(b, sub);
          return;
        }
        const split = b.emit(OP_SPLIT);
        b.out[split] = split + 1;
        compileNode(b, sub);
        jumps.push(b.emit(OP_JUMP));
        b.out1[split] = b.op.length;
      });
      for (const j of jumps) b.out[j] = b.op.length;
      return;
    }
    case 'repeat': {
      for (let i = 0; i < node.min; i++) compileNode(b, node.sub);
      if (node.max < 0) {
        // L: split(body, exit); body; jump L
        const split = b.emit(OP_SPLIT);
        b.out[split] = split + 1;
        compileNode(b, node.sub);
        const jump = b.emit(OP_JUMP);
        b.out[jump] = split;
        b.out1[split] = b.op.length;
        return;
      }
      // (max - min) nested optionals: split(body, exit) body split(body, exit) body ... exit
      const splits: number[] = [];
      for (let i = node.min; i < node.max; i++) {
        const split = b.emit(OP_SPLIT);
        b.out[split] = split + 1;
        splits.push(split);
        compileNode(b, node.sub);
      }
      for (const s of splits) b.out1[s] = b.op.length;
      return;
    }
  }
}

function isAsciiWord(cp: number): boolean {
  return (
    (cp >= 0x30 && cp <= 0x39) ||
    (cp >= 0x41 && cp <= 0x5a) ||
    (cp >= 0x61 && cp <= 0x7a) ||
    cp === 0x5f
  );
}

/** Code point at UTF-16 index i; a lone surrogate reads as U+FFFD, as Go reads invalid UTF-8. */
function runeAt(s: string, i: number): number {
  const cp = s.codePointAt(i) as number;
  return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
}

/** A compiled, immutable NFA that answers "does the whole string match?". */
export class Program {
  private readonly op: Uint8Array;
  private readonly out: Int32Array;
  private readonly out1: Int32Array;
  private readonly arg: Int32Array;
  private readonly classes: readonly CharClass[];
  private readonly listA: Int32Array;
  private readonly listB: Int32Array;
  private readonly stamp: Int32Array;
  /** A pc can be pushed once per incoming edge before it is visited: at most 2 per instruction. */
  private readonly stack: Int32Array;
  private generation = 0;

  constructor(node: Node, source: string) {
    const b = new Builder(source);
    compileNode(b, node);
    b.emit(OP_MATCH);
    const n = b.op.length;
    for (let pc = 0; pc < n; pc++) if (b.out[pc] === -1) b.out[pc] = pc + 1;
    this.op = Uint8Array.from(b.op);
    this.out = Int32Array.from(b.out);
    this.out1 = Int32Array.from(b.out1);
    this.arg = Int32Array.from(b.arg);
    this.classes = b.classes;
    this.listA = new Int32Array(n);
    this.listB = new Int32Array(n);
    this.stamp = new Int32Array(n).fill(-1);
    this.stack = new Int32Array(2 * n + 2);
  }

  get size(): number {
    return this.op.length;
  }

  /** Whole-string match. */
  matches(s: string): boolean {
    // Scratch is reused across calls (matches() is synchronous, so never re-entered); the
    // visit stamps keep increasing, so they need no clearing between calls.
    let current = this.listA;
    let next = this.listB;
    const stamp = this.stamp;
    const stack = this.stack;
    if (this.generation > 0x3fffffff) {
      stamp.fill(-1);
      this.generation = 0;
    }
    let generation = ++this.generation;
    let currentLen = this.addThread(
      current,
      0,
      0,
      stamp,
      generation,
      stack,
      -1,
      s.length > 0 ? runeAt(s, 0) : -1,
    );
    let i = 0;
    while (i < s.length) {
      if (currentLen === 0) return false;
      const cp = runeAt(s, i);
      const width = cp > 0xffff ? 2 : 1;
      const after = i + width < s.length ? runeAt(s, i + width) : -1;
      generation = ++this.generation;
      let nextLen = 0;
      for (let t = 0; t < currentLen; t++) {
        const pc = current[t] as number;
        if (this.step(pc, cp)) {
          nextLen = this.addThread(
            next,
            nextLen,
            this.out[pc] as number,
            stamp,
            generation,
            stack,
            cp,
            after,
          );
        }
      }
      const swap = current;
      current = next;
      next = swap;
      currentLen = nextLen;
      i += width;
    }
    for (let t = 0; t < currentLen; t++)
      if (this.op[current[t] as number] === OP_MATCH) return true;
    return false;
  }

  private step(pc: number, cp: number): boolean {
    const arg = this.arg[pc] as number;
    switch (this.op[pc]) {
      case OP_RUNE:
        return cp === arg;
      case OP_RUNE_FOLD:
        return foldKey(cp) === arg;
      case OP_CLASS:
        return classMatches(this.classes[arg] as CharClass, cp);
      case OP_ANY:
        return true;
      case OP_ANY_NOT_NL:
        return cp !== 0x0a;
      default:
        return false;
    }
  }

  /**
   * Adds pc and everything reachable from it by empty transitions to the list, evaluating
   * assertions between the rune before (`before`, -1 at the start) and after the position.
   * Only rune-consuming instructions and MATCH are stored.
   */
  private addThread(
    list: Int32Array,
    length: number,
    startPc: number,
    stamp: Int32Array,
    generation: number,
    stack: Int32Array,
    before: number,
    after: number,
  ): number {
    let len = length;
    let top = 0;
    stack[top++] = startPc;
    while (top > 0) {
      const pc = stack[--top] as number;
      if (stamp[pc] === generation) continue;
      stamp[pc] = generation;
      switch (this.op[pc]) {
        case OP_JUMP:
          stack[top++] = this.out[pc] as number;
          break;
        case OP_SPLIT:
          stack[top++] = this.out1[pc] as number;
          stack[top++] = this.out[pc] as number;
          break;
        case OP_ASSERT:
          if (assertionHolds(this.arg[pc] as number, before, after))
            stack[top++] = this.out[pc] as number;
          break;
        default:
          list[len++] = pc;
      }
    }
    return len;
  }
}

function assertionHolds(code: number, before: number, after: number): boolean {
  switch (code) {
    case 0:
      return before === -1;
    case 1:
      return after === -1;
    case 2:
      return before === -1 || before === 0x0a;
    case 3:
      return after === -1 || after === 0x0a;
    case 4:
      return isAsciiWord(before) !== isAsciiWord(after);
    default:
      return isAsciiWord(before) === isAsciiWord(after);
  }
}
